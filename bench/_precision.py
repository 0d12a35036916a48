"""Precision checks of ``bench/locomo.py``, run on each loaded LoCoMo conversation.

* **abstention**: off-topic questions (``_offtopic.py``: none of their words occurs in the
  conversation) and queries with no word at all must return no matched hit;
* **the floor's trade-off**: turn recall of the LoCoMo questions and abstention on the
  off-topic ones, for a range of ``min_score`` values, semantic and hybrid;
* **a message is found as itself**: searching a message's own text (semantic) ranks it first;
* **an exact rare word is never buried**: searching a word that only a few messages hold
  (hybrid) ranks every one of them above every message that holds no query term;
* **time ranges hold for neighbours**: with ``time_range="7d"`` no hit, matched or neighbour,
  is older than seven days.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from _offtopic import SYMBOL_QUERIES, off_topic_for

from memstrata import Hit, Memory
from memstrata.search._bm25 import tokens
from memstrata.types import MatchMode

__all__ = ["FLOORS", "Precision", "check_conversation", "report_precision"]

FLOORS = (-1.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1)
"""``min_score`` values of the trade-off curve: probabilities of the learned ranker (-1: no
floor)."""
PRECISION_MODES = ("semantic", "hybrid")
_DAY = 86_400 * 10**9


@dataclass
class Precision:
    """Counts gathered over the conversations."""

    abstained: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    symbols: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    curve_recall: dict[tuple[str, float, int], list[float]] = field(
        default_factory=lambda: defaultdict(list))
    curve_abstained: dict[tuple[str, float], list[bool]] = field(
        default_factory=lambda: defaultdict(list))
    own_first: list[bool] = field(default_factory=list)
    rare_first: list[bool] = field(default_factory=list)
    old_hits: int = 0
    range_hits: int = 0


def _matched(hits: Sequence[Hit]) -> list[Hit]:
    return sorted((h for h in hits if h.matched), key=lambda h: h.rank or 0)


async def check_conversation(mem: Memory, session: str, texts: Sequence[str],
                             keyed: Sequence[str], questions: Sequence[tuple[str, set[int]]],
                             ids: Sequence[int], out: Precision, *, curve: bool,
                             samples: int, now: int) -> None:
    """Run the checks on one loaded conversation.

    ``texts`` and ``keyed`` (``speaker: text``) are its messages in order, ``ids`` their
    message ids, ``questions`` the LoCoMo questions with their evidence (message positions).
    """
    off = off_topic_for(keyed)
    for mode in PRECISION_MODES:
        for q in off:
            out.abstained[mode].append(not _matched(await mem.search(
                session, q, match=cast("MatchMode", mode), limit=10, exclude_window=False)))
        for q in SYMBOL_QUERIES:
            out.symbols[mode].append(not _matched(await mem.search(
                session, q, match=cast("MatchMode", mode), limit=10, exclude_window=False)))
    if curve:
        position = {mid: i for i, mid in enumerate(ids)}
        for mode in PRECISION_MODES:
            for floor in FLOORS:
                for q, evidence in questions:
                    hits = _matched(await mem.search(
                        session, q, match=cast("MatchMode", mode), limit=10,
                        exclude_window=False, min_score=floor))
                    ranked = [position[h.message.id] for h in hits]
                    for k in (5, 10):
                        out.curve_recall[mode, floor, k].append(
                            len(evidence & set(ranked[:k])) / len(evidence))
                for q in off:
                    out.curve_abstained[mode, floor].append(not _matched(await mem.search(
                        session, q, match=cast("MatchMode", mode), limit=10, exclude_window=False,
                        min_score=floor)))
    rng = random.Random(7)
    picks = rng.sample(range(len(texts)), min(samples, len(texts)))
    for i in picks:
        hits = _matched(await mem.search(session, texts[i], match="semantic", limit=1,
                                         exclude_window=False))
        out.own_first.append(bool(hits) and hits[0].message.id == ids[i])
    await _rare_words(mem, session, keyed, ids, out, rng, samples)
    await _time_range(mem, session, out, now)


async def _rare_words(mem: Memory, session: str, keyed: Sequence[str], ids: Sequence[int],
                      out: Precision, rng: random.Random, samples: int) -> None:
    """Words held by 1-3 messages: each such message must rank above every message that
    holds no query term (hybrid; the key of a neighbour counts as holding it)."""
    own = [set(tokens(k)) for k in keyed]
    df = Counter(t for terms in own for t in terms)
    words = sorted(t for t, n in df.items() if n <= 3 and t.isalpha() and len(t) > 3)
    for word in rng.sample(words, min(samples, len(words))):
        hits = _matched(await mem.search(session, word, match="hybrid", limit=10,
                                         exclude_window=False))
        holders = {ids[i] for i, terms in enumerate(own) if word in terms}
        near = {ids[j] for i, terms in enumerate(own) if word in terms
                for j in range(max(0, i - 2), min(len(ids), i + 3))}
        ranks = {h.message.id: h.rank or 0 for h in hits}
        worst = max((ranks.get(m, 99) for m in holders), default=0)
        buried = any(r < worst for m, r in ranks.items() if m not in near)
        out.rare_first.append(not buried)


async def _time_range(mem: Memory, session: str, out: Precision, now: int) -> None:
    since = now - 7 * _DAY
    for q in ("what did we talk about", "family", "work", "weekend plans"):
        for mode in PRECISION_MODES:
            hits = await mem.search(session, q, match=cast("MatchMode", mode), time_range="7d",
                                    limit=8, exclude_window=False)
            out.range_hits += len(hits)
            out.old_hits += sum(h.message.at < since for h in hits)


def _pct(values: Sequence[float | bool]) -> float:
    return 100.0 * sum(values) / len(values) if values else 0.0


def report_precision(p: Precision, default_floor: float | None) -> None:
    print(f"\nprecision checks (default min_score {default_floor})")
    for mode in PRECISION_MODES:
        print(f"  {mode:8} abstains on {_pct(p.abstained[mode]):5.1f} % of "
              f"{len(p.abstained[mode])} off-topic questions, on "
              f"{_pct(p.symbols[mode]):5.1f} % of {len(p.symbols[mode])} queries without a word")
    print(f"  own text ranks its message first (semantic): {_pct(p.own_first):5.1f} % of "
          f"{len(p.own_first)} messages")
    print(f"  a rare word's messages rank above every message without it (hybrid): "
          f"{_pct(p.rare_first):5.1f} % of {len(p.rare_first)} words")
    print(f"  time_range 7d: {p.old_hits} of {p.range_hits} hits (matched or neighbour) older "
          "than 7 days")
    if not p.curve_recall:
        return
    print("\nthe floor's trade-off: turn recall R@5 / R@10 of the LoCoMo questions, and the "
          "share of off-topic questions that get no hit")
    print("  min_score " + "".join(f"{m + ' R@5/R@10':>22}{'abstain':>9}"
                                   for m in PRECISION_MODES))
    for floor in FLOORS:
        cells = "".join(
            f"{_pct(p.curve_recall[m, floor, 5]):>13.1f} / "
            f"{_pct(p.curve_recall[m, floor, 10]):4.1f}"
            f"{_pct(p.curve_abstained[m, floor]):>8.1f}%" for m in PRECISION_MODES)
        label = "off" if floor <= -1 else f"{floor:.2f}"
        print(f"  {label:>9}{cells}")
