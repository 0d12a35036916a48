"""Telling a misspelled session from a new one.

The library reads a session that does not exist as an empty one (an agent's first turn needs
exactly that), so ``context``, ``search`` and ``export`` of a typo would quietly show nothing.
The command line looks the session up and says so, naming the sessions it may have meant.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import NoReturn

from ..client import MemoryAPI
from ..errors import NotFound
from ..types import SessionStats
from ._app import fail, warn

__all__ = ["Missing", "lookup", "missing"]


@dataclass(frozen=True)
class Missing:
    """A session that does not exist, and the existing ones whose names are close to it."""

    session: str
    tenant: str
    suggestions: list[str]

    @property
    def message(self) -> str:
        hint = (f" (did you mean {' or '.join(repr(s) for s in self.suggestions)}?)"
                if self.suggestions else "")
        return f"no session {self.session!r} in tenant {self.tenant!r}{hint}"

    def warn(self) -> None:
        """Say so on stderr; the command goes on (its result is the empty one)."""
        warn(self.message, type="NotFound", field="session", session=self.session,
             suggestions=self.suggestions)

    def fail(self) -> NoReturn:
        """Say so as an error and exit with 2."""
        fail(self.message, field="session", kind="NotFound", session=self.session,
             suggestions=self.suggestions)


async def lookup(mem: MemoryAPI, session: str) -> SessionStats | Missing:
    """The session's stats, or what is known about its absence."""
    try:
        return await mem.stats(session)
    except NotFound:
        names = [info.id for info in await mem.sessions()]
        return Missing(session, mem.tenant,
                       difflib.get_close_matches(session, names, n=3, cutoff=0.6))


async def missing(mem: MemoryAPI, session: str) -> Missing | None:
    """``None`` when the session exists."""
    found = await lookup(mem, session)
    return found if isinstance(found, Missing) else None
