"""One summary run: screening, chunking and the per-chunk LLM loop (no SQL).

The caller hands over the previous summary, every message after its cursor and a ``save``
callback; this module decides what the models see and in which order, and calls ``save`` after
each good chunk. Persistence is the caller's: ``save`` must store the body and move the cursor
in one transaction. Schema and parsing live in :mod:`memstrata.summary_schema`, the prompts in
:mod:`memstrata.prompts`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from ..config import Settings
from ..errors import InvalidSummary, ProviderError, SummaryFailed
from ..providers import LLM, Completion
from ..types import Message, Summary, SummaryKind, SummaryResult
from ._prompts import (
    decision_system_prompt,
    decision_user_message,
    summary_system_prompt,
    summary_user_message,
)
from ._schema import (
    CURRENT,
    DECISIONS,
    PAST,
    empty_summary,
    first_object,
    parse_summary,
    rewrite_markers,
)
from ._shapes import decision_schema, summary_schema, token_bound

__all__ = [
    "Decision",
    "Save",
    "apply_decision",
    "body_kind",
    "chunk_messages",
    "conversations",
    "decide",
    "parse_decision",
    "run_summary",
]

log = logging.getLogger(__name__)

Save = Callable[[dict[str, Any], int, int, int], Awaitable[None]]
"""``save(body, cursor, tokens_in, tokens_out)``: store ``body`` and move the cursor to
``cursor`` in one transaction, adding the tokens (spent since the previous save) to the totals."""


def body_kind(body: Mapping[str, Any]) -> SummaryKind:
    """``"digest"`` for a digest body (``{"text": …}``), else ``"llm"``. A run that drops every
    message as noise saves a previous digest unchanged, so the caller keeps its kind."""
    return "digest" if "text" in body and DECISIONS not in body else "llm"


# --- grouping and chunking ------------------------------------------------------------------

def conversations(messages: Sequence[Message]) -> list[list[Message]]:
    """Group messages into conversations: a user message and the replies after it.
    Replies before the first user message form a conversation of their own."""
    groups: list[list[Message]] = []
    for m in messages:
        if m.role == "user" or not groups:
            groups.append([m])
        else:
            groups[-1].append(m)
    return groups


def chunk_messages(messages: Sequence[Message], max_chars: int) -> list[list[Message]]:
    """Split into chunks of at most ``max_chars`` characters of message text.

    A chunk holds at least one message, so one huge message is a chunk of its own. A chunk
    never ends on a user message while more messages follow (the reply is what makes the
    request worth summarising), so such a chunk takes the next messages even past the limit —
    at most twice ``max_chars`` more, so a long run of user messages without replies still
    splits.
    """
    chunks: list[list[Message]] = []
    current: list[Message] = []
    size = spill = 0
    for m in messages:
        if current and size + len(m.content) > max_chars:
            if current[-1].role == "user" and (
                    spill == 0 or spill + len(m.content) <= 2 * max_chars):
                spill += len(m.content)
            else:
                chunks.append(current)
                current, size, spill = [], 0, 0
        current.append(m)
        size += len(m.content)
    if current:
        chunks.append(current)
    return chunks


# --- the decision model ---------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Decision:
    """What the decision model said: 0-based indices of noise conversations (with the
    confidence already applied) and of overturned previous entries."""

    noise: frozenset[int] = frozenset()
    overturned_decisions: frozenset[int] = frozenset()
    overturned_past: frozenset[int] = frozenset()


def _indices(value: object, size: int) -> frozenset[int]:
    """1-based numbers (ints or strings like ``"K2"``) → valid 0-based indices."""
    out: set[int] = set()
    for item in value if isinstance(value, list) else []:
        if isinstance(item, bool):
            continue
        number = item if isinstance(item, int) else None
        if isinstance(item, str):
            digits = re.search(r"\d+", item)
            number = int(digits.group()) if digits else None
        if number is not None and 1 <= number <= size:
            out.add(number - 1)
    return frozenset(out)


def _confidence(value: object) -> float:
    """The confidence as a number from 0 to 1; anything off that scale (a model writing ``9``
    or ``85``) counts as 0, so a verdict that cannot be read never drops a message."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return 0.0
    try:
        number = float(value)
    except ValueError:
        return 0.0
    return number if 0.0 <= number <= 1.0 else 0.0


def parse_decision(text: str, *, conversations: int, decisions: int, past: int,
                   threshold: float) -> Decision:
    """Read the decision reply; raises ``ValueError`` when it holds no usable JSON object."""
    obj = first_object(text)
    if not isinstance(obj.get("conversations"), list):
        raise ValueError("the decision reply has no 'conversations' list")
    noise: set[int] = set()
    for entry in obj.get("conversations") or []:
        if not isinstance(entry, dict) or entry.get("noise") is not True:
            continue
        index = _indices([entry.get("index")], conversations)
        if index and _confidence(entry.get("confidence")) >= threshold:
            noise |= index
    return Decision(noise=frozenset(noise),
                    overturned_decisions=_indices(obj.get("overturned_key_decisions"), decisions),
                    overturned_past=_indices(obj.get("overturned_past_discussions"), past))


async def decide(llm: LLM, previous: Mapping[str, Any], groups: Sequence[Sequence[Message]],
                 settings: Settings) -> tuple[Decision, Completion | None]:
    """Ask the decision model; on any failure the answer is "keep everything".

    Returns the decision and the completion (``None`` when the call itself failed), so the
    caller can count its tokens.
    """
    tz = ZoneInfo(settings.timezone)
    schema = decision_schema(conversations=len(groups),
                             decisions=len(previous.get(DECISIONS) or []),
                             past=len(previous.get(PAST) or []))
    limit = settings.decision_max_tokens or token_bound(schema)
    try:
        reply = await llm.complete(
            [{"role": "user", "content": decision_user_message(previous, groups, tz)}],
            system=decision_system_prompt(), max_tokens=limit, json_mode=True, schema=schema)
    except ProviderError as exc:
        log.warning("decision model failed, keeping every message: %s", exc)
        return Decision(), None
    if reply.truncated:
        log.warning("decision reply cut at max_tokens=%d, keeping every message", limit)
        return Decision(), reply
    try:
        decision = parse_decision(reply.text, conversations=len(groups),
                                  decisions=len(previous.get(DECISIONS) or []),
                                  past=len(previous.get(PAST) or []),
                                  threshold=settings.noise_confidence)
    except ValueError as exc:
        log.warning("decision reply unusable, keeping every message: %s", exc)
        return Decision(), reply
    return decision, reply


def apply_decision(previous: Mapping[str, Any], groups: Sequence[Sequence[Message]],
                   decision: Decision) -> tuple[dict[str, Any], list[Message]]:
    """The previous summary without overturned entries, and the messages of the
    conversations that are not noise (in order)."""
    pruned = dict(previous)
    if DECISIONS in pruned:
        pruned[DECISIONS] = [d for i, d in enumerate(pruned[DECISIONS])
                             if i not in decision.overturned_decisions]
    if PAST in pruned:
        pruned[PAST] = [p for i, p in enumerate(pruned[PAST])
                        if i not in decision.overturned_past]
    kept = [m for i, group in enumerate(groups) if i not in decision.noise for m in group]
    return pruned, kept


# --- the run --------------------------------------------------------------------------------

def _previous_state(previous: Summary | None) -> tuple[dict[str, Any], str | None]:
    """(structured summary to merge into, digest text to show instead, if any)."""
    if previous is None or not previous.body:
        return empty_summary(), None
    if previous.kind == "digest" or body_kind(previous.body) == "digest":
        return empty_summary(), str(previous.body.get("text", ""))
    body = dict(previous.body)
    body[DECISIONS] = rewrite_markers(body.get(DECISIONS))
    body.setdefault(PAST, [])
    body.setdefault(CURRENT, {})
    return body, None


@dataclass(kw_only=True)
class _Tally:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    unsaved_in: int = 0
    unsaved_out: int = 0
    chunks: int = 0
    saved: bool = False
    noise_dropped: int = 0
    overturned: int = 0
    cursor: int | None = None
    body: dict[str, Any] | None = field(default=None)

    def count(self, reply: Completion | None) -> None:
        self.calls += 1
        if reply is not None:
            self.tokens_in += reply.tokens_in
            self.tokens_out += reply.tokens_out
            self.unsaved_in += reply.tokens_in
            self.unsaved_out += reply.tokens_out

    async def save(self, save: Save, body: dict[str, Any], cursor: int) -> None:
        await save(body, cursor, self.unsaved_in, self.unsaved_out)
        self.unsaved_in = self.unsaved_out = 0
        self.body, self.cursor, self.saved = body, cursor, True

    def result(self) -> SummaryResult:
        return SummaryResult(body=self.body, cursor=self.cursor, saved=self.saved,
                             chunks=self.chunks, calls=self.calls, tokens_in=self.tokens_in,
                             tokens_out=self.tokens_out, unsaved_tokens_in=self.unsaved_in,
                             unsaved_tokens_out=self.unsaved_out, noise_dropped=self.noise_dropped,
                             overturned=self.overturned)


async def _screen(decision_llm: LLM | None, base: dict[str, Any], messages: list[Message],
                  settings: Settings, tally: _Tally) -> tuple[dict[str, Any], list[Message]]:
    if decision_llm is None:
        return base, messages
    groups = conversations(messages)
    decision = Decision()
    # One decision call per batch of conversations, each within the chunk size, so a long
    # backlog never becomes one request larger than the model's context.
    for start, batch in _batches(groups, settings.summary_chunk_chars):
        part, reply = await decide(decision_llm, base, batch, settings)
        tally.count(reply)
        decision = Decision(
            noise=decision.noise | {start + i for i in part.noise},
            overturned_decisions=decision.overturned_decisions | part.overturned_decisions,
            overturned_past=decision.overturned_past | part.overturned_past)
    pruned, kept = apply_decision(base, groups, decision)
    tally.noise_dropped = len(messages) - len(kept)
    tally.overturned = len(decision.overturned_decisions) + len(decision.overturned_past)
    return pruned, kept


def _batches(groups: Sequence[Sequence[Message]],
             max_chars: int) -> list[tuple[int, Sequence[Sequence[Message]]]]:
    """Consecutive runs of conversations of at most ``max_chars`` characters (at least one
    conversation each), with the index of each run's first conversation."""
    out: list[tuple[int, Sequence[Sequence[Message]]]] = []
    start, size = 0, 0
    for i, group in enumerate(groups):
        chars = sum(len(m.content) for m in group)
        if i > start and size + chars > max_chars:
            out.append((start, groups[start:i]))
            start, size = i, 0
        size += chars
    if start < len(groups):
        out.append((start, groups[start:]))
    return out


def _cursors(chunks: Sequence[Sequence[Message]], messages: Sequence[Message]) -> list[int]:
    """The cursor after each chunk: just before the next chunk's first message, and the last
    input message after the final chunk, so messages dropped as noise between or after
    chunks are passed over as well."""
    ids = [m.id for m in messages]
    after: list[int] = []
    for nxt in chunks[1:]:
        position = ids.index(nxt[0].id)
        after.append(ids[position - 1])
    after.append(ids[-1])
    return after


async def run_summary(llm: LLM, *, settings: Settings, previous: Summary | None,
                      messages: Sequence[Message], save: Save,
                      decision_llm: LLM | None = None) -> SummaryResult:
    """Merge ``messages`` (every message after the cursor, oldest first) into ``previous``.

    Calls ``save`` after each good chunk. Raises :class:`SummaryFailed` (a ``ProviderError``,
    raised from the cause) when a chunk's call fails or its reply is not a valid summary;
    what was saved before stays saved and later chunks are not sent.
    """
    tally = _Tally(body=dict(previous.body) if previous else None,
                   cursor=previous.cursor if previous else None)
    floor = previous.cursor if previous is not None and previous.cursor is not None else -1
    # Messages the summary already absorbed are never merged twice, whatever the caller passed.
    inputs = sorted((m for m in messages if m.id > floor), key=lambda m: m.id)
    if not inputs:
        return tally.result()
    if previous is not None and previous.cursor is None:
        # A summary without a cursor (e.g. imported) already covers what exists.
        await tally.save(save, dict(previous.body), inputs[-1].id)
        return tally.result()
    base, digest = _previous_state(previous)
    pruned, kept = await _screen(decision_llm, base, inputs, settings, tally)
    if not kept:
        body = dict(previous.body) if digest is not None and previous else pruned
        await tally.save(save, body, inputs[-1].id)
        return tally.result()
    chunks = chunk_messages(kept, settings.summary_chunk_chars)
    # A first run shows the model an empty memory rather than an empty JSON skeleton.
    current: dict[str, Any] | str | None = (
        digest if digest is not None else pruned if previous is not None else None)
    for chunk, cursor in zip(chunks, _cursors(chunks, inputs), strict=True):
        body = await _one_chunk(llm, settings, current, chunk, tally, len(chunks))
        await tally.save(save, body, cursor)
        tally.chunks += 1
        current = body
    return tally.result()


async def _one_chunk(llm: LLM, settings: Settings, current: dict[str, Any] | str | None,
                     chunk: Sequence[Message], tally: _Tally, total: int) -> dict[str, Any]:
    where = (f"summary chunk {tally.chunks + 1} of {total} (messages {chunk[0].id}.."
             f"{chunk[-1].id})")
    system = summary_system_prompt(current, reply_lang=settings.reply_lang,
                                   max_key_decisions=settings.max_key_decisions,
                                   max_past_discussions=settings.max_past_discussions)
    user = summary_user_message(chunk, ZoneInfo(settings.timezone))
    schema = summary_schema(max_key_decisions=settings.max_key_decisions,
                            max_past_discussions=settings.max_past_discussions)
    limit = settings.summary_max_tokens or token_bound(schema)
    try:
        reply = await llm.complete([{"role": "user", "content": user}], system=system,
                                   max_tokens=limit, json_mode=True, schema=schema)
    except ProviderError as exc:
        tally.count(None)
        raise SummaryFailed(f"{where} failed: {exc}", tally.result()) from exc
    tally.count(reply)
    previous = current if isinstance(current, dict) else None
    try:
        if reply.truncated:
            # Cut JSON is at best a shortened memory: never save it.
            raise InvalidSummary(
                f"the reply was cut at the max_tokens limit ({limit} tokens) before it was "
                f"complete; the setting summary_max_tokens changes the limit: "
                f"{reply.text[-120:]!r}")
        return parse_summary(reply.text, max_key_decisions=settings.max_key_decisions,
                             max_past_discussions=settings.max_past_discussions,
                             previous=previous)
    except InvalidSummary as exc:
        raise SummaryFailed(f"{where}: {exc}", tally.result()) from exc

