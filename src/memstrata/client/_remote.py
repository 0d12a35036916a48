"""``RemoteMemory``: one tenant's memory on a memstrata server, with ``Memory``'s methods.

Each method is one request to the server's ``/v1`` API (``flush`` polls); replies come back as
the same values and errors come back as the same exceptions a local ``Memory`` gives. The
tenant is the API key's: the server says which on :meth:`RemoteMemory.connect`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from .._context import Context
from .._ingest import check_session, check_tenant
from .._opening import Opening
from ..config import Settings
from ..errors import FlushTimeout, InvalidInput, NotFound
from ..text import check_unicode
from ..tools import Tools
from ..types import (
    Hit,
    MatchMode,
    Message,
    ResetMode,
    Role,
    SessionInfo,
    SessionStats,
    TimeRange,
)
from . import _checks as checks
from . import _wire as wire
from ._errormem import RemoteErrors
from ._http import Http

__all__ = ["FLUSH_TIMEOUT_S", "RemoteMemory"]

FLUSH_TIMEOUT_S = 300.0
"""How long ``flush()`` without a timeout waits for the server's indexer."""
_POLL_S = 0.1
# Requests in flight at once when one call needs many (the backlog of every session).
_PARALLEL = 8
_UNSAID = "(the server's)"


class RemoteMemory:
    """A tenant's memory on a server: ``async with RemoteMemory.open(url, key) as mem``.

    The server's settings and models apply; of ``settings`` only the timezone is used here,
    for the time headers of ``Context.window()`` (as a local ``Memory`` uses its own).
    """

    def __init__(self, url: str, key: str, *, settings: Settings | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 timeout: float = 60.0, tenant: str | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.url = url.rstrip("/")
        if tenant is not None:
            tenant = check_tenant(tenant)
        self._http = Http(self.url, key, transport=transport, timeout=timeout, tenant=tenant)
        self.errors = RemoteErrors(self._http, self.settings)
        """The tenant's error memory on the server."""
        self._tenant: str | None = None
        self._embedder: str | None = None

    @classmethod
    def open(cls, url: str, key: str, *, settings: Settings | None = None,
             transport: httpx.AsyncBaseTransport | None = None,
             timeout: float = 60.0, tenant: str | None = None) -> Opening[RemoteMemory]:
        """Connect to the server (awaitable, or ``async with`` to close it afterwards).
        ``tenant`` is for a key made for a tenant prefix (``acme/*``): the tenant under it
        to act for (``acme/user-42``); a key of one tenant needs none."""
        async def make() -> RemoteMemory:
            mem = cls(url, key, settings=settings, transport=transport, timeout=timeout,
                      tenant=tenant)
            try:
                await mem.connect()
            except BaseException:
                await mem.close()
                raise
            return mem
        return Opening(make, "RemoteMemory.open(...)")

    async def connect(self) -> None:
        """Check the key and learn its tenant (``Unauthorized`` if the server refuses it)."""
        info = await self._http.get_json("/v1/stats")
        self._tenant = str(info["tenant"])
        # A server that does not say whether it embeds is asked as if it did: flush() then
        # polls a backlog that stays 0 without an embedder, which costs a request, not a
        # wrong answer.
        model = info.get("embedder", _UNSAID)
        self._embedder = str(model) if model else None

    async def close(self, *, timeout: float | None = None) -> None:
        """Close the connections (nothing is pending on the client side: every call waited
        for its reply). ``timeout`` bounds the wait, as ``Memory.close``'s does."""
        if timeout is None:
            await self._http.close()
        else:
            await asyncio.wait_for(self._http.close(), timeout)

    async def __aenter__(self) -> RemoteMemory:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def tenant(self) -> str:
        """The tenant acted for: the API key's, or the one named under its prefix."""
        if self._tenant is None:
            raise InvalidInput("tenant", "not connected yet: await connect() first")
        return self._tenant

    @property
    def embedder(self) -> str | None:
        """The server's embedding model id (``None``: the server searches by keyword only)."""
        return self._embedder

    def match_modes(self) -> list[str]:
        return ["keyword", "semantic", "hybrid"] if self._embedder else ["keyword"]

    def tools(self, session: str) -> Tools:
        """The model-facing tools (``chat_history``, ``error_history``, ``write_error``)
        bound to a session, as ``Memory.tools`` gives them; each call is a request."""
        return Tools(self, check_session(session))

    # -- writes ----------------------------------------------------------------------------

    async def add(self, session: str, role: Role, content: str | list[Any], *,
                  sender: str | None = None, at: int | None = None,
                  meta: Mapping[str, Any] | None = None, key: str | None = None) -> Message:
        """Store one message; when this returns, the server has committed it."""
        checks.message(role, content, sender=sender, at=at, meta=meta, key=key)
        body = _item({"role": role, "content": content, "sender": sender, "at": at,
                      "meta": meta, "key": key})
        return wire.message(await self._http.send_json(
            "POST", f"{_session_path(session)}/messages", body))

    async def add_many(self, session: str, items: Iterable[Mapping[str, Any]]) -> list[Message]:
        """Store several messages atomically (all or none)."""
        path = f"{_session_path(session)}/messages/batch"
        data = await self._http.send_json("POST", path, {"items": checks.items(items)})
        return [wire.message(m) for m in data["messages"]]

    async def forget(self, message_id: int) -> bool:
        """Remove one message from every stratum; ``False`` if no such message."""
        mid = checks.message_id(message_id, "message_id")
        return await self._http.delete(f"/v1/messages/{mid}")

    # -- reads -----------------------------------------------------------------------------

    async def context(self, session: str, query: str | None = None) -> Context:
        """The window and summary to send before the new user input."""
        path = _session_path(session)
        checks.context_query(query)
        data = await self._http.get_json(f"{path}/context",
                                         _params(query=query, format="plain"))
        summary = data.get("summary")
        kind = data.get("summary_kind")
        if summary is not None and kind is None:
            kind = (await self._http.get_json(f"{path}/summary")).get("kind")
        return Context(session=str(data.get("session", session)),
                       messages=[wire.message(m) for m in data["messages"]],
                       summary=summary, summary_kind=kind,
                       system_prompt=data.get("system_prompt") or "",
                       turn_context=_turn_context(data.get("turn_context")),
                       timezone=self.settings.timezone,
                       unsummarized=_count(data.get("unsummarized")))

    async def search(self, session: str | None, query: str, *, match: MatchMode | None = None,
                     time_range: TimeRange = "all", limit: int | None = None,
                     exclude_window: bool = True, min_score: float | None = None) -> list[Hit]:
        """Search one session (or every session of the tenant with ``session=None``)."""
        path = "/v1/search" if session is None else f"{_session_path(session)}/search"
        checks.search(query, match=match, time_range=time_range, limit=limit,
                      exclude_window=exclude_window, min_score=min_score,
                      semantic=self._embedder is not None, settings=self.settings)
        data = await self._http.get_json(path, _params(
            q=query, match=match, time_range=time_range, limit=limit,
            exclude_window=exclude_window, min_score=min_score))
        return [wire.hit(h) for h in data["hits"]]

    async def read(self, message_id: int, *, before: int | None = None,
                   after: int | None = None) -> list[Message]:
        """A message with its neighbours, oldest first (``NotFound`` if none)."""
        mid = checks.message_id(message_id, "message_id")
        checks.neighbours(before, after)
        data = await self._http.get_json(f"/v1/messages/{mid}",
                                         _params(before=before, after=after))
        return [*(wire.message(m) for m in data.get("before", [])),
                wire.message(data["message"]),
                *(wire.message(m) for m in data.get("after", []))]

    async def recent(self, session: str | None, *, time_range: TimeRange = "all",
                     limit: int | None = None, before_id: int | None = None) -> list[Message]:
        """One session's messages, newest first, paged by ``before_id``."""
        if session is None:
            raise InvalidInput("session", "the server lists one session's messages at a "
                                          "time; name the session")
        path = _session_path(session)
        if before_id is not None:
            checks.message_id(before_id, "before_id")
        checks.time_range(time_range)
        checks.search_limit(limit, self.settings)
        data = await self._http.get_json(f"{path}/messages", _params(
            time_range=time_range, limit=limit, before_id=before_id))
        return [wire.message(m) for m in data["messages"]]

    async def message(self, message_id: int) -> Message | None:
        """One message by id, or ``None``."""
        try:
            found = await self.read(message_id, before=0, after=0)
        except NotFound:
            return None
        return found[0]

    # -- indexing --------------------------------------------------------------------------

    async def index_backlog(self, session: str | None = None) -> int:
        """Messages still waiting for the server's indexer (of one session, or the tenant's
        listed sessions)."""
        if session is None:
            tenant = await self._http.get_json("/v1/stats")
            if "index_backlog" in tenant:  # a server that counts it for the whole tenant
                return int(tenant["index_backlog"])
        names = [session] if session is not None else [s.id for s in await self.sessions()]
        gate = asyncio.Semaphore(_PARALLEL)

        async def one(name: str) -> int:
            async with gate:
                try:
                    return (await self.stats(name)).index_backlog
                except NotFound:
                    return 0  # removed meanwhile: nothing of it waits
        return sum(await asyncio.gather(*(one(n) for n in names)))

    async def flush(self, timeout: float | None = None) -> None:
        """Wait until the server's indexer has embedded every message written so far.

        The server indexes in the background; this polls the backlog. ``FlushTimeout`` after
        ``timeout`` seconds (``FLUSH_TIMEOUT_S`` when not given: a server whose embedder keeps
        failing never catches up).
        """
        if not self._embedder:
            return
        limit = FLUSH_TIMEOUT_S if timeout is None else timeout
        deadline = time.monotonic() + limit
        while (left := await self.index_backlog()) > 0:
            if time.monotonic() >= deadline:
                raise FlushTimeout(f"the server still had {left} message(s) to index after "
                                   f"{limit:g} s")
            await asyncio.sleep(_POLL_S)

    # -- summary and sessions --------------------------------------------------------------

    async def summarize(self, session: str) -> dict[str, Any] | None:
        """Bring the session's summary up to date on the server; return it (or ``None``)."""
        try:
            data = await self._http.send_json("POST", f"{_session_path(session)}/summarize",
                                              None, slow=True)
        except NotFound:
            return None  # a session the server has not: locally, no summary either
        summary = data.get("summary")
        return dict(summary) if summary is not None else None

    async def sessions(self) -> list[SessionInfo]:
        data = await self._http.get_json("/v1/sessions")
        return [wire.session_info(s) for s in data["sessions"]]

    async def stats(self, session: str) -> SessionStats:
        return wire.session_stats(await self._http.get_json(_session_path(session)))

    async def reset(self, session: str, mode: ResetMode = "summary") -> None:
        """Delete the session's messages (``summary``: summarised first, the summary kept;
        ``all``: the summary too). A session the server has not is left as it is."""
        path = f"{_session_path(session)}/reset"
        # Checked here: for a session it has not, the server answers 404 before the mode.
        if mode not in ("summary", "all"):
            raise InvalidInput("mode", f"must be 'summary' or 'all'; got {mode!r}")
        with contextlib.suppress(NotFound):
            await self._http.send_json("POST", path, {"mode": mode}, slow=True)

    async def remove(self, session: str) -> bool:
        return await self._http.delete(_session_path(session))

    # -- import / export -------------------------------------------------------------------

    async def export(self, session: str) -> AsyncIterator[dict[str, Any]]:
        """The session as records: its messages (oldest first), then its summary."""
        records = self._http.stream_lines(f"{_session_path(session)}/export")
        try:
            first = await anext(records)
        except (StopAsyncIteration, NotFound):
            return  # the server says 404 for a session it has not: locally, nothing comes
        yield first
        async for record in records:
            yield record

    async def import_(self, session: str, records: Iterable[Any]) -> int:
        """Import exported records (all or nothing); a bad record's error names its line."""
        path = f"{_session_path(session)}/import"
        # Every record is read (and a local reading error raised) before anything is sent.
        body = "\n".join(wire.jsonl_line(r) for r in records).encode("utf-8")
        data = await self._http.send_bytes("POST", path, body, "application/x-ndjson")
        return int(data["imported"])

    async def import_history(self, session: str, history: Any) -> int:
        """Import a history array as the Go runtime stores it:
        ``[{"role", "content", "sendAt" (ns), "sender"}]`` (the JSON text, or the list)."""
        if isinstance(history, str | bytes):
            body = history.encode("utf-8") if isinstance(history, str) else history
        else:
            body = json.dumps(history, ensure_ascii=False).encode("utf-8")
        if body.lstrip()[:1] != b"[":
            raise InvalidInput("history", "must be a JSON array of {role, content, sendAt, "
                                          "sender}")
        data = await self._http.send_bytes("POST", f"{_session_path(session)}/import", body,
                                           "application/json")
        return int(data["imported"])


# Query parameters whose Python argument has another name.
_ARGUMENT = {"q": "query"}


def _session_path(session: str) -> str:
    """``/v1/sessions/{session}``, the id checked first so a bad one fails as it does
    locally (and never changes the path's meaning)."""
    check_session(session)
    segment = quote(session, safe="")
    if set(segment) == {"."}:
        segment = segment.replace(".", "%2E")  # "." and ".." are path steps, not names
    return f"/v1/sessions/{segment}"


def _count(value: object) -> int:
    """A non-negative count from a response (0 from a server that does not send it)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _turn_context(value: Any) -> dict[str, str] | None:
    """The user message that carries the summary: the server sends its text."""
    if value is None or isinstance(value, dict):
        return value
    return {"role": "user", "content": str(value)}


def _item(body: dict[str, Any]) -> dict[str, Any]:
    """A message body without the fields left at their defaults."""
    return {k: v for k, v in body.items() if v is not None}


def _params(**values: Any) -> dict[str, str | int | float]:
    """Query parameters without the ``None`` ones; booleans as ``true``/``false``. Text that
    is not valid Unicode cannot be put in a URL: it is refused here, by the argument's name,
    as the server would refuse it."""
    out: dict[str, str | int | float] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, str):
            check_unicode(value, _ARGUMENT.get(name, name))
        out[name] = ("true" if value else "false") if isinstance(value, bool) else value
    return out
