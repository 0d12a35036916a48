"""Value types: frozen, keyword-only dataclasses with no I/O.

The public ones (messages, hits, summaries, error records) and those that cross the storage
seam (rows a backend returns to search, the indexer and the summary runner) live here, so a
backend and its callers share them without importing each other.

What memstrata hands to the OpenAI and Anthropic SDKs is typed as those SDKs declare their
parameters, so ``client.chat.completions.create(messages=ctx.to_openai())`` and
``client.messages.create(**ctx.to_anthropic())`` type-check without casts: under a type
checker ``OpenAIMessage``, ``OpenAITool``, ``AnthropicMessage`` and ``AnthropicTool`` are the
SDKs' own parameter types (``TypedDict`` unions); at run time, and for a type checker without
the SDK installed, they are plain dicts: memstrata never imports either SDK to run. (A
``TypedDict`` of our own would not do: one matches another only when every item has the very
same type, and the SDKs' message contents are unions of many block types.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict, get_args

import numpy as np
import numpy.typing as npt

__all__ = [
    "OUTCOMES",
    "AnthropicMessage",
    "AnthropicPrompt",
    "AnthropicTool",
    "ApiKey",
    "Claimed",
    "Draft",
    "ErrorOutcome",
    "ErrorQuery",
    "ErrorRecord",
    "Hit",
    "HitSource",
    "HotChanges",
    "HotMark",
    "HotSession",
    "KeywordRow",
    "MatchMode",
    "Message",
    "MigratedTable",
    "MigrationReport",
    "OpenAIMessage",
    "OpenAITool",
    "ResetMode",
    "Role",
    "RunState",
    "SalvageReport",
    "Salvaged",
    "SessionInfo",
    "SessionRow",
    "SessionStats",
    "Summary",
    "SummaryKind",
    "SummaryResult",
    "TimeRange",
    "Vectors",
]

if TYPE_CHECKING:
    from anthropic.types import MessageParam as AnthropicMessage
    from anthropic.types import ToolParam as AnthropicTool
    from openai.types.chat import ChatCompletionMessageParam as OpenAIMessage
    from openai.types.chat import ChatCompletionToolParam as OpenAITool
else:
    AnthropicMessage = dict[str, Any]
    AnthropicTool = dict[str, Any]
    OpenAIMessage = dict[str, Any]
    OpenAITool = dict[str, Any]


class AnthropicPrompt(TypedDict):
    """``Context.to_anthropic()``: the keyword arguments ``system`` and ``messages`` of
    Anthropic's ``messages.create``."""

    system: str
    messages: list[AnthropicMessage]


MatchMode = Literal["keyword", "semantic", "hybrid"]
"""How ``search`` matches: the words themselves, their meaning, or both."""

TimeRange = Literal["1d", "7d", "1m", "1y", "all"]
"""How far back ``search`` and ``recent`` look (``1m`` is 30 days)."""

ResetMode = Literal["summary", "all"]
"""``reset``: summarise, then delete the messages and keep the summary; or delete both."""


Vectors = npt.NDArray[np.float32]
"""A float32 matrix of shape ``(n, dim)`` whose rows have unit length."""

Role = Literal["user", "assistant"]
HitSource = Literal["archive", "recent", "semantic", "hybrid"]
SummaryKind = Literal["llm", "digest"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Message:
    """One stored message. ``id`` increases in commit order and is never reused."""

    id: int
    session: str
    role: Role
    content: str
    at: int
    """UTC Unix time in nanoseconds."""
    sender: str | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Summary:
    """The rolling summary of one session."""

    session: str
    kind: SummaryKind
    body: dict[str, Any]
    cursor: int | None
    """Id of the last message the summary absorbed (``None``: not known yet)."""
    created_at: int
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Hit:
    """A search result. Expansion neighbours have ``matched=False`` and ``rank=None``."""

    message: Message
    score: float
    """Semantic and hybrid hits: under the learned ranker (the default with a packaged local
    model that ships one), the calibrated probability, 0 to 1, that the message is relevant to
    the query; under the hand-tuned fusion, its similarity to the query, -1 to 1. Either way
    absolute, and the floor ``min_score`` applies to it. Keyword hits: BM25 scaled by the
    query's best, +1 for the whole query as written; neighbours: 0."""
    rank: int | None
    source: HitSource
    matched: bool = True


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionInfo:
    """One line of ``Memory.sessions()``."""

    id: str
    messages: int
    first_at: int | None
    last_at: int | None
    has_summary: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionStats:
    """What ``Memory.stats(session)`` reports about one session."""

    session: str
    messages: int
    hot_messages: int
    hot_bytes: int
    cutoff: int
    """Messages with ``id > cutoff`` are hot."""
    cursor: int | None
    index_backlog: int
    """This session's messages still waiting to be embedded for semantic search."""
    summary_kind: SummaryKind | None
    summary_tokens_in: int
    summary_tokens_out: int
    last_error: str | None
    extra: dict[str, Any] = field(default_factory=dict)
    tenant_backlog: int = 0
    """The whole tenant's messages still waiting to be embedded (this session's included).
    Tenants are indexed in turn, so another tenant's backlog does not hold these up."""

    @classmethod
    def of(cls, row: SessionRow, summary: Summary | None, run: RunState, *, backlog: int,
           other_model_vectors: int, tenant_backlog: int = 0) -> SessionStats:
        """The report assembled from what the store holds about the session."""
        return cls(session=row.id, messages=row.messages, hot_messages=row.hot_messages,
                   hot_bytes=row.hot_bytes, cutoff=row.cutoff,
                   cursor=summary.cursor if summary else None, index_backlog=backlog,
                   summary_kind=summary.kind if summary else None,
                   summary_tokens_in=summary.tokens_in if summary else 0,
                   summary_tokens_out=summary.tokens_out if summary else 0,
                   last_error=run.last_error, tenant_backlog=tenant_backlog,
                   extra={"summary_due": row.summary_due,
                          "vectors_other_model": other_model_vectors,
                          "summary_failures": run.failures, "summary_retry_at": run.retry_at})


@dataclass(frozen=True, kw_only=True, slots=True)
class Draft:
    """A validated message on its way to the store (what ``ingest`` produces)."""

    role: Role
    content: str
    at: int
    sender: str | None = None
    meta_json: str | None = None
    key: str | None = None
    size: int = 0
    """UTF-8 bytes of ``content``: what the bytes policy counts."""


@dataclass(frozen=True, kw_only=True)
class SummaryResult:
    """What a run did. ``body``/``cursor`` are what was last saved (the previous summary's when
    nothing was saved); tokens count every model call of the run, the failed one included."""

    body: dict[str, Any] | None
    cursor: int | None
    saved: bool
    chunks: int
    calls: int
    tokens_in: int
    tokens_out: int
    unsaved_tokens_in: int = 0
    unsaved_tokens_out: int = 0
    """Tokens spent after the last ``save`` (a failed chunk's call, or a decision call when
    nothing was saved): record them with the error, ``save`` never saw them."""
    noise_dropped: int = 0
    overturned: int = 0


# -- error memory ----------------------------------------------------------------------------

ErrorOutcome = Literal["resolved", "failed", "abandoned"]
OUTCOMES: tuple[str, ...] = get_args(ErrorOutcome)


@dataclass(frozen=True, kw_only=True, slots=True)
class ErrorRecord:
    """One remembered tool error and how it was handled."""

    id: str
    """32 lower-case hex characters; any unique prefix of 8 or more is accepted as the id."""
    tool_name: str
    keywords: tuple[str, ...]
    """Lower-cased, without duplicates, in the order written."""
    symptom: str
    cause: str | None
    action: str
    outcome: ErrorOutcome
    created_at: int
    """UTC Unix nanoseconds."""
    expires_at: int
    """UTC Unix nanoseconds; moved forward by every hit."""
    hits: int


@dataclass(frozen=True, kw_only=True, slots=True)
class ErrorQuery:
    """Everything a store needs to run one error search in one transaction."""

    tenant: str
    needle: str
    """The query as typed, for the substring scan."""
    match: str | None
    """An escaped FTS5 expression over the query's terms (``None``: no usable terms)."""
    vector: Vectors | None
    """The query's embedding, shape ``(dim,)``, or ``None`` for keyword search only."""
    model_id: str | None
    min_similarity: float
    tool: str | None
    limit: int
    now: int
    renew_until: int
    """The new ``expires_at`` of every record returned."""


# -- API keys ---------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True, slots=True)
class ApiKey:
    """What is stored about an API key of the HTTP service (never the key itself)."""

    id: str
    """8 lower-case letters and digits: the public part of the key, shown by ``keys list``."""
    tenant: str
    name: str | None
    created_at: int
    """UTC Unix nanoseconds."""
    revoked_at: int | None = None
    """UTC Unix nanoseconds, or ``None`` while the key is valid."""
    scopes: tuple[str, ...] = ("read", "write")
    """What the key may do: ``read``, ``write`` and/or ``admin`` (managing keys)."""
    expires_at: int | None = None
    """UTC Unix nanoseconds after which the key stops working, or ``None``: never."""
    rate_per_second: float | None = None
    """Requests per second this key may make (``None``: the service's default)."""
    messages_per_day: int | None = None
    """Messages a tenant of this key may add per day (``None``: the service's default)."""
    stored_bytes: int | None = None
    """Bytes of message text a tenant of this key may keep (``None``: the default)."""

    @property
    def is_prefix(self) -> bool:
        """Whether ``tenant`` is a prefix (``acme/*``): each request names its tenant."""
        return self.tenant.endswith("*")

    def covers(self, tenant: str) -> bool:
        """Whether this key may act for ``tenant`` (its own, or one under its prefix)."""
        if self.is_prefix:
            stem = self.tenant[:-1]
            return tenant.startswith(stem) and len(tenant) > len(stem)
        return tenant == self.tenant


# -- values that cross the storage seam ------------------------------------------------------

@dataclass(frozen=True, kw_only=True, slots=True)
class KeywordRow:
    message: Message
    bm25: float
    """FTS5 relevance (larger is better); 0.0 when only the substring scan found it."""
    exact: bool
    """The message contains the whole query as written (case-insensitive), not inside a
    longer word."""
    hot: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionRow:
    id: str
    messages: int
    hot_messages: int
    hot_bytes: int
    cutoff: int
    first_at: int | None
    last_at: int | None
    active_at: int
    summary_due: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class Claimed:
    tenant: str
    message: Message
    previous: str | None = None
    """The text of the message before it in its session (``None`` for the first)."""
    previous_sender: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class HotSession:
    """A session's hot messages in id order, with the vector of each (zero rows and
    ``embedded[i] == False`` where a message has no vector of the model yet)."""

    version: int
    ids: list[int]
    contents: list[str]
    senders: list[str | None]
    ats: list[int]
    matrix: npt.NDArray[np.float32]
    embedded: npt.NDArray[np.bool_]


@dataclass(frozen=True, kw_only=True, slots=True)
class HotMark:
    """What a session's hot tier holds, counted in the same snapshot as a delta: its vector
    version, its cutoff, its hot messages and how many of them have a vector of the model."""

    version: int
    cutoff: int
    hot: int
    embedded: int


@dataclass(frozen=True, kw_only=True, slots=True)
class HotChanges:
    """What changed in some sessions' hot tiers since an id: the marks of the sessions asked
    about (a session absent from ``marks`` no longer exists), their hot messages above the id
    (ordered by session, then id, with their vectors as in :class:`HotSession`), and the
    vectors now stored for messages that had none."""

    marks: dict[str, HotMark]
    sessions: list[str]
    ids: list[int]
    contents: list[str]
    senders: list[str | None]
    ats: list[int]
    matrix: npt.NDArray[np.float32]
    embedded: npt.NDArray[np.bool_]
    vectors: dict[int, npt.NDArray[np.float32]]


@dataclass(frozen=True, kw_only=True, slots=True)
class RunState:
    failures: int
    retry_at: int | None
    last_error: str | None


@dataclass(frozen=True, kw_only=True, slots=True)
class Salvaged:
    """What salvage did with one kind of record."""

    copied: int
    """Records written to the new file."""
    unreadable: int
    """Records left behind: unreadable, or read but not whole and valid. Exact when ``exact``
    is true (another b-tree still listed every live id); otherwise an estimate from the ids
    SQLite could not read, some of which may never have held a record."""
    exact: bool = True
    from_pages: int = 0
    """Of ``copied``, the records found by scanning pages that the table's b-tree could no
    longer reach (below a damaged interior page, or cut off by a truncation)."""
    unreadable_ids: tuple[tuple[int, int], ...] = ()
    """Inclusive id ranges that could not be read (messages and error records)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SalvageReport:
    """What ``memstrata.store.salvage`` copied out of a damaged file, and what it found."""

    source: str
    dest: str
    damage: tuple[str, ...]
    """The source's problems, as the integrity check names them (empty: none found)."""
    messages: Salvaged
    summaries: Salvaged
    error_records: Salvaged
    sessions: int
    """Sessions in the new file (counters recomputed from the messages copied)."""
    vectors: int
    """Embeddings copied for hot messages."""
    queued: int
    """Hot messages without an embedding, queued for the indexer."""
    api_keys: int = 0
    """API keys of the service copied (hashed, as stored; revoked ones stay revoked)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class MigratedTable:
    """What ``memstrata.store.migrate`` did with one table."""

    name: str
    source: int
    """Rows in the source."""
    copied: int
    """Rows this run wrote to the target."""
    present: int
    """Rows the target already held (an earlier, interrupted or finished, run)."""
    target: int
    """Rows of the source's tenants in the target afterwards."""


@dataclass(frozen=True, kw_only=True, slots=True)
class MigrationReport:
    """What ``memstrata.store.migrate`` copied from one database to another."""

    source: str
    target: str
    """Where the target is (host, port and database; never a password)."""
    tables: tuple[MigratedTable, ...]
    differences: tuple[str, ...]
    """Tables whose counts disagree after the copy, one line each (empty: verified)."""

    @property
    def copied(self) -> int:
        """Rows written by this run, over every table (0: the target already had it all)."""
        return sum(t.copied for t in self.tables)
