"""Idempotency keys within one batch, the same for every backend (pure: no SQL).

A batch may repeat a key, and some of its keys may be stored already: each draft is answered
by the stored message, by the first draft of the batch with its key, or by itself as new.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import KeyConflict
from ..types import Draft, Message

__all__ = ["IMPORT_CHUNK", "Plan", "Totals", "check_same", "plan_keyed"]

IMPORT_CHUNK = 2000
"""Drafts an import makes and writes at a time (both backends): its drafts may be held
packed (see ``memstrata._packed``), and a chunk is what exists of them as objects, with their
parameters and index texts, while the transaction runs."""


def check_same(stored: Message | Draft, d: Draft) -> None:
    """``KeyConflict`` when ``d`` reuses the idempotency key of ``stored`` for another
    message (a different role or text); a retry of the same message passes, whatever else
    it says (its time, sender or metadata are the stored message's)."""
    if (stored.role, stored.content) != (d.role, d.content):
        raise KeyConflict("key", f"{d.key!r} already names another message in this session "
                          "(a different role or content); use a new key for a new message")


class Plan:
    """The drafts to insert (``fresh``) and, per draft of the batch, its answer: a stored
    message or a position in ``fresh``."""

    def __init__(self, fresh: list[Draft], slots: list[Message | int]) -> None:
        self.fresh = fresh
        self._slots = slots

    def answers(self, inserted: Sequence[Message]) -> list[Message]:
        """The message for each draft of the batch, given the inserted ``fresh`` ones."""
        return [s if isinstance(s, Message) else inserted[s] for s in self._slots]


class Totals:
    """What the new messages of an import add to the session's counters, chunk by chunk."""

    __slots__ = ("count", "first_at", "last_at", "size")

    def __init__(self) -> None:
        self.count = self.size = self.first_at = self.last_at = 0

    def add(self, fresh: Sequence[Draft]) -> None:
        if not fresh:
            return
        ats = [d.at for d in fresh]
        low, high = min(ats), max(ats)
        self.first_at = low if self.count == 0 else min(self.first_at, low)
        self.last_at = high if self.count == 0 else max(self.last_at, high)
        self.count += len(fresh)
        self.size += sum(d.size for d in fresh)


def plan_keyed(drafts: Sequence[Draft], stored: Mapping[str, Message]) -> Plan:
    """What to insert for ``drafts`` when ``stored`` maps the keys already in the store to
    their messages; a key repeated within the batch is inserted once."""
    fresh: list[Draft] = []
    slots: list[Message | int] = []
    first_of: dict[str, int] = {}
    for d in drafts:
        if d.key is not None and d.key in stored:
            check_same(stored[d.key], d)
            slots.append(stored[d.key])
        elif d.key is not None and d.key in first_of:
            check_same(fresh[first_of[d.key]], d)
            slots.append(first_of[d.key])
        else:
            if d.key is not None:
                first_of[d.key] = len(fresh)
            slots.append(len(fresh))
            fresh.append(d)
    return Plan(fresh, slots)
