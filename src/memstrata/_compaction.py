"""Where the hot tier's cutoff goes: the bytes policy and the turns policy (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CompactionPolicy", "HotRow", "Verdict", "decide", "is_due"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CompactionPolicy:
    by_bytes: bool = True
    max_bytes: int = 4_194_304
    ratio: float = 0.8
    by_turns: bool = False
    max_turns: int = 101
    keep_turns: int = 20


@dataclass(frozen=True, slots=True)
class HotRow:
    id: int
    role: str
    size: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    cutoff: int
    """New cutoff: messages with a larger id stay hot."""
    summary_due: bool
    """The turns policy fired, which (as in the turns design) asks for a summary run."""


def is_due(hot_count: int, hot_bytes: int, policy: CompactionPolicy) -> bool:
    """Cheap check on the session's counters: does a policy want to move the cutoff?"""
    return (policy.by_bytes and hot_bytes > policy.max_bytes) or (
        policy.by_turns and hot_count >= policy.max_turns
    )


def decide(hot: Sequence[HotRow], policy: CompactionPolicy) -> Verdict | None:
    """The new cutoff for a hot tier given oldest first, or ``None`` when nothing moves.

    Bytes: drop the oldest messages until about ``ratio`` of ``max_bytes`` remains, then keep
    dropping until the kept part starts with a user message (a whole user+assistant pair).
    Turns: keep the newest ``keep_turns`` messages. Both may fire; the later cutoff wins. At
    least one message always stays hot.
    """
    if not hot:
        return None
    drop = 0
    total = sum(r.size for r in hot)
    if policy.by_bytes and total > policy.max_bytes:
        target = policy.ratio * policy.max_bytes
        remaining = total
        while drop < len(hot) - 1 and remaining > target:
            remaining -= hot[drop].size
            drop += 1
        while drop < len(hot) - 1 and hot[drop].role != "user":
            drop += 1
    summary_due = False
    if policy.by_turns and len(hot) >= policy.max_turns:
        drop = max(drop, len(hot) - policy.keep_turns)
        summary_due = True
    if drop == 0:
        return None
    return Verdict(cutoff=hot[drop - 1].id, summary_due=summary_due)
