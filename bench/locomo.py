"""LoCoMo retrieval benchmark: memstrata's keyword, semantic and hybrid search side by side with
a plain SQLite FTS5 BM25 ranking of the same turns, plus indexer throughput and search latency
with 100,000 hot vectors in one session.

    python bench/locomo.py                 # the full run (local multilingual model)
    python bench/locomo.py --quick         # 2 conversations, no 100k latency run
    python bench/locomo.py --latency-only  # only the 100k latency run, quiet and loaded

Beside recall it runs the precision checks of ``_precision.py`` (abstention on off-topic
questions, the ``min_score`` trade-off curve, own text ranked first, rare words never buried,
time ranges holding for neighbours), and the latency run times search quiet and while a
CPU-burning process runs on every core.

Data: ../shared/bench-data/locomo/locomo-dev6.json (CC BY-NC 4.0), read at run time. Each
conversation is one session: speaker A is ``user``, speaker B ``assistant``, the speaker's name
is the sender, the LoCoMo session date is the message time, image captions are kept as text.
Only *matched* hits count (expansion neighbours do not). Recall@k is LoCoMo's turn-level
recall: the fraction of a question's evidence turns among the top k.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from _precision import Precision, check_conversation, report_precision

from memstrata import Hit, InvalidInput, Memory, Settings
from memstrata.providers import Embedder, HashEmbedder, LocalEmbedder, Vectors
from memstrata.text import fts_match_expression, query_terms
from memstrata.types import MatchMode

DATA = Path(__file__).resolve().parents[2] / "shared" / "bench-data" / "locomo"
KS = (1, 5, 10, 25, 50)
MODES = ("keyword", "semantic", "hybrid")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
              5: "adversarial"}


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    at: int


@dataclass
class Question:
    text: str
    category: int
    evidence: set[str]


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def _when(text: str) -> int:
    moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(moment.timestamp()) * 10**9


def _norm_id(raw: str) -> list[str]:
    out = []
    for part in re.split(r"[;,\s]+", raw.strip()):
        m = re.fullmatch(r"D:?(\d+):0*(\d+)", part)
        if m:
            out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def load(limit: int | None, data: Path = DATA) -> list[Conversation]:
    raw = json.loads((data / "locomo-dev6.json").read_text(encoding="utf-8"))
    audit = json.loads((data / "audit-dial481" / "errors.json").read_text(encoding="utf-8"))
    fixes = {a["question"]: a["correct_evidence"] for a in audit
             if a.get("error_type") == "WRONG_CITATION" and a.get("correct_evidence")}
    convs = []
    for sample in raw[:limit]:
        c = sample["conversation"]
        conv = Conversation(sample_id=sample["sample_id"], speaker_a=c["speaker_a"])
        n = 1
        while f"session_{n}" in c:
            base = _when(c[f"session_{n}_date_time"])
            for i, t in enumerate(c[f"session_{n}"]):
                text = t["text"]
                if t.get("blip_caption"):
                    text += f" [image: {t['blip_caption']}]"
                conv.turns.append(Turn(_norm_id(t["dia_id"])[0], t["speaker"], text,
                                       base + i * 10**9))
            n += 1
        known = {t.dia_id for t in conv.turns}
        for qa in sample["qa"]:
            cited = fixes.get(qa["question"], qa.get("evidence", []))
            evidence = {e for raw_id in cited for e in _norm_id(raw_id)} & known
            if evidence:
                conv.questions.append(Question(qa["question"], int(qa["category"]), evidence))
        convs.append(conv)
    return convs


@dataclass
class Scores:
    recall: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    session_hit: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    rr: list[float] = field(default_factory=list)
    by_cat: dict[int, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))

    def add(self, q: Question, ranked_by_k: dict[int, list[str]]) -> None:
        sessions = {e.split(":")[0] for e in q.evidence}
        for k, ranked in ranked_by_k.items():
            got = len(q.evidence & set(ranked[:k])) / len(q.evidence)
            self.recall[k].append(got)
            self.by_cat[q.category][k].append(got)
            self.session_hit[k].append(float(any(r.split(":")[0] in sessions
                                                 for r in ranked[:k])))
        full = ranked_by_k[max(ranked_by_k)]
        first = next((i for i, r in enumerate(full, 1) if r in q.evidence), None)
        self.rr.append(1.0 / first if first else 0.0)


async def search_or_none(mem: Memory, session: str | None, query: str,
                         **options: Any) -> list[Hit]:
    """``mem.search``, with a keyword query of stop words only (refused by design: it has
    nothing to look for) counted as a search that found nothing."""
    try:
        return await mem.search(session, query, **options)
    except InvalidInput as exc:
        if exc.field != "query" or options.get("match") != "keyword":
            raise
        return []


def _pct(values: list[float]) -> float:
    return 100.0 * sum(values) / len(values) if values else 0.0


async def run_memstrata(conv: Conversation, embedder: Embedder | None, scores: dict[str, Scores],
                        tmp: Path, timing: dict[str, float], precision: Precision | None = None,
                        *, curve: bool = False, samples: int = 100,
                        fusion: dict[str, Scores] | None = None) -> None:
    """Load the conversation, then score every question in every mode (``fusion``: also with
    ``Settings(ranker="fusion")``, the hand-tuned fusion, on the same database)."""
    settings = Settings(summary_cron=None, search_limit_max=max(KS), embedder=None)
    now = max(t.at for t in conv.turns) + 86_400 * 10**9  # a day after the last turn
    async with Memory.open(str(tmp / f"{conv.sample_id}.db"), settings=settings,
                           embedder=embedder, background=False, clock=lambda: now) as mem:
        items = [{"role": "user" if t.speaker == conv.speaker_a else "assistant",
                  "content": t.text, "sender": t.speaker, "at": t.at} for t in conv.turns]
        messages = await mem.add_many(conv.sample_id, items)
        by_id = {m.id: t.dia_id for m, t in zip(messages, conv.turns, strict=True)}
        start = time.perf_counter()
        await mem.flush()
        timing["index_s"] += time.perf_counter() - start
        timing["indexed"] += len(messages)
        modes = MODES if embedder is not None else ("keyword",)
        runs: list[tuple[Memory, dict[str, Scores], tuple[str, ...]]] = [(mem, scores, modes)]
        if fusion is not None and embedder is not None:
            old = await Memory.open(str(tmp / f"{conv.sample_id}.db"),
                                    settings=settings.replace(ranker="fusion"),
                                    embedder=embedder, background=False, clock=lambda: now)
            runs.append((old, fusion, ("semantic", "hybrid")))
        for target, table, run_modes in runs:
            for q in conv.questions:
                for mode in run_modes:
                    ranked_by_k = {}
                    for k in KS:
                        hits = await search_or_none(target, conv.sample_id, q.text,
                                                    match=mode, limit=k,
                                                    exclude_window=False, **_NO_FLOOR)
                        matched = sorted((h for h in hits if h.matched),
                                         key=lambda h: h.rank or 0)
                        ranked_by_k[k] = [by_id[h.message.id] for h in matched]
                    table[mode].add(q, ranked_by_k)
        for target, _, _ in runs[1:]:
            await target.close()
        if precision is not None and embedder is not None:
            where = {t.dia_id: i for i, t in enumerate(conv.turns)}
            await check_conversation(
                mem, conv.sample_id, [t.text for t in conv.turns],
                [f"{t.speaker}: {t.text}" for t in conv.turns],
                [(q.text, {where[e] for e in q.evidence}) for q in conv.questions],
                [m.id for m in messages], precision, curve=curve, samples=samples, now=now)


def run_fts_baseline(conv: Conversation, scores: Scores) -> None:
    """Plain FTS5 BM25 over each turn (speaker name prefixed), OR of the question's terms."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(dia_id UNINDEXED, body, "
               "tokenize='porter unicode61')")
    db.executemany("INSERT INTO t VALUES (?, ?)",
                   [(t.dia_id, f"{t.speaker}: {t.text}") for t in conv.turns])
    for q in conv.questions:
        expr = fts_match_expression(query_terms(q.text))
        rows = db.execute("SELECT dia_id FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?",
                          (expr, max(KS))).fetchall() if expr else []
        ranked = [r[0] for r in rows]
        scores.add(q, {k: ranked for k in KS})


def report(scores: dict[str, Scores], questions: int) -> None:
    print(f"\nLoCoMo turn-level retrieval, {questions} questions (matched hits only)")
    head = "method".ljust(18) + "".join(f"R@{k}".rjust(8) for k in KS) + "     MRR" + \
        "".join(f"S@{k}".rjust(8) for k in (5, 10))
    print(head)
    for name, s in scores.items():
        print(name.ljust(18) + "".join(f"{_pct(s.recall[k]):8.1f}" for k in KS)
              + f"{100 * statistics.fmean(s.rr):8.1f}"
              + "".join(f"{_pct(s.session_hit[k]):8.1f}" for k in (5, 10)))
    print("\nper category, R@5 / R@10")
    print("method".ljust(18) + "".join(f"{v:>20}" for v in CATEGORIES.values()))
    for name, s in scores.items():
        cells = [f"{_pct(s.by_cat[c][5]):.1f} / {_pct(s.by_cat[c][10]):.1f}"
                 for c in CATEGORIES]
        print(name.ljust(18) + "".join(f"{x:>20}" for x in cells))
    if "hybrid" in scores:
        r5, r10 = _pct(scores["hybrid"].recall[5]), _pct(scores["hybrid"].recall[10])
        print(f"\ntarget hybrid R@5 >= 70: {r5:.1f} {'met' if r5 >= 70 else 'MISSED'}; "
              f"R@10 >= 80: {r10:.1f} {'met' if r10 >= 80 else 'MISSED'}")


def _synthetic(n: int) -> list[dict[str, Any]]:
    words = ("budget trip dinner train hotel museum report meeting deadline garden dog cat "
             "concert coffee paper bike river mountain 火車 旅館 會議 報告 預算 晚餐").split()
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(12))
             + f" #{i}"} for i in range(n)]


class _QueryCost:
    """Embeds like ``index`` (a hash embedder, so 100,000 vectors are quick to build) but runs
    ``model`` on every call first, so a query pays the real model's embedding time."""

    def __init__(self, index: Embedder, model: Embedder | None) -> None:
        self._index, self._model = index, model
        self.model_id, self.dim = index.model_id, index.dim

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if self._model is not None:
            await self._model.embed(texts)
        return await self._index.embed(texts)


_ROUNDS = 4


def _burn() -> None:
    while True:
        pass


def _burners() -> list[multiprocessing.process.BaseProcess]:
    """A CPU-burning process on every core (the caller stops them)."""
    ctx = multiprocessing.get_context("spawn")
    procs: list[multiprocessing.process.BaseProcess] = [
        ctx.Process(target=_burn, daemon=True) for _ in range(os.cpu_count() or 1)]
    for p in procs:
        p.start()
    return procs


def _p(times: list[float], q: float) -> float:
    times = sorted(times)
    return times[max(0, int(q * len(times)) - 1)]


# No floor, so every query returns a full list (and the run also works on versions of
# memstrata from before min_score, for side-by-side figures).
_NO_FLOOR: dict[str, Any] = (
    {"min_score": -1.0} if "min_score" in Memory.search.__code__.co_varnames else {})


async def _timed(mem: Memory, queries: list[str], mode: str) -> list[float]:
    times = []
    for q in queries:
        t0 = time.perf_counter()
        await mem.search("big", q, match=cast("MatchMode", mode), **_NO_FLOOR)
        times.append((time.perf_counter() - t0) * 1000)
    return times


async def latency_100k(tmp: Path, local: Embedder | None, n: int) -> None:
    """Search latency with ``n`` hot vectors in one session, quiet and while every core is
    busy with another process. The stored vectors come from a 512-d HashEmbedder (the search
    cost depends on the matrix size, not on the model); each query is also embedded with the
    local model, whose time is part of the semantic and hybrid figures."""
    dim = local.dim if local is not None else 512
    settings = Settings(summary_cron=None, embedder=None, max_history_bytes=2**40,
                        vector_cache_mb=2048)
    index = HashEmbedder(dim)
    async with Memory.open(str(tmp / "latency.db"), settings=settings,
                           embedder=index, background=False) as mem:
        items = _synthetic(n)
        for i in range(0, n, 5000):
            await mem.add_many("big", items[i:i + 5000])
        await mem.flush()
    queries = ["train to the mountain hotel", "預算 會議 報告", "coffee with the dog",
               "deadline for the paper", "concert after dinner"] * 40
    async with Memory.open(str(tmp / "latency.db"), settings=settings,
                           embedder=_QueryCost(index, local), background=False) as mem:
        start = time.perf_counter()
        await mem.search("big", queries[0], match="semantic")
        cold = time.perf_counter() - start
        print(f"  first semantic search (loads {n:,} vectors into the cache): "
              f"{cold * 1000:.0f} ms")
        keyword = await _timed(mem, queries, "keyword")
        print(f"  keyword   search: p50 {statistics.median(keyword):6.1f} ms  p95 "
              f"{_p(keyword, 0.95):6.1f} ms  (no target: every synthetic message matches)")
        rows: dict[str, dict[str, list[float]]] = {
            label: defaultdict(list) for label in ("quiet", "loaded")}
        # Quiet and loaded blocks alternate, so other work on the machine weighs on both alike.
        for block in range(2 * _ROUNDS):
            label = "quiet" if block % 2 == 0 else "loaded"
            part = queries[(block // 2) * 50:(block // 2 + 1) * 50]
            procs = _burners() if label == "loaded" else []
            try:
                if procs:
                    time.sleep(1.0)  # let the burners reach full speed
                for mode in ("semantic", "hybrid"):
                    rows[label][mode] += await _timed(mem, part, mode)
                if local is not None:
                    for q in part:
                        t0 = time.perf_counter()
                        await local.embed([q])
                        rows[label]["query embedding"].append(
                            (time.perf_counter() - t0) * 1000)
            finally:
                for p in procs:
                    p.terminate()
                for p in procs:
                    p.join()
        print(f"  {'':16} {'quiet p50':>10} {'quiet p95':>10} {'loaded p50':>11} "
              f"{'loaded p95':>11} {'p95 ratio':>10}")
        for what in rows["quiet"]:
            qt, ld = rows["quiet"][what], rows["loaded"][what]
            ratio = _p(ld, 0.95) / _p(qt, 0.95)
            verdict = "" if what == "query embedding" else (
                f"  (target p95 <= 30 ms quiet: {'met' if _p(qt, 0.95) <= 30 else 'MISSED'}; "
                f"loaded <= 2x quiet: {'met' if ratio <= 2 else 'MISSED'})")
            print(f"  {what:16} {statistics.median(qt):10.1f} {_p(qt, 0.95):10.1f} "
                  f"{statistics.median(ld):11.1f} {_p(ld, 0.95):11.1f} {ratio:9.2f}x{verdict}")
        print(f"  ({os.cpu_count()} burning processes in the loaded blocks; {_ROUNDS} quiet and "
              f"{_ROUNDS} loaded blocks of 50 queries, alternating; figures in ms; semantic and "
              "hybrid include the query embedding)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 conversations, no 100k run")
    parser.add_argument("--embedder", default="local", choices=["local", "hash", "none"])
    parser.add_argument("--latency-messages", type=int, default=100_000)
    parser.add_argument("--data", type=Path, default=DATA, help="the LoCoMo folder")
    parser.add_argument("--latency-only", action="store_true",
                        help="only the latency run (quiet and loaded)")
    parser.add_argument("--no-curve", action="store_true",
                        help="skip the min_score trade-off curve (on by default without "
                             "--quick)")
    args = parser.parse_args()
    embedder: Embedder | None = None
    if args.embedder == "local":
        embedder = LocalEmbedder()
    elif args.embedder == "hash":
        embedder = HashEmbedder()
    if args.latency_only:
        with tempfile.TemporaryDirectory() as tmpdir:
            print(f"latency, {args.latency_messages:,} hot messages in one session:")
            await latency_100k(Path(tmpdir), embedder, args.latency_messages)
        return
    convs = load(2 if args.quick else None, args.data)
    scores: dict[str, Scores] = {"FTS5 BM25 (plain)": Scores()}
    for mode in MODES if embedder is not None else ("keyword",):
        scores[f"memstrata {mode}"] = Scores()
    fusion = {m: Scores() for m in ("semantic", "hybrid")}
    if embedder is not None:
        for m in fusion:
            scores[f"  {m}, ranker=fusion"] = fusion[m]
    timing: dict[str, float] = defaultdict(float)
    precision = Precision()
    if embedder is not None:
        start = time.perf_counter()
        await embedder.embed(["warm up"])  # the model loads once; not part of the throughput
        print(f"{embedder.model_id}: loaded in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for conv in convs:
            run_fts_baseline(conv, scores["FTS5 BM25 (plain)"])
            per_mode = {m: scores[f"memstrata {m}"] for m in MODES if f"memstrata {m}" in scores}
            await run_memstrata(conv, embedder, per_mode, tmp, timing, precision,
                                curve=not (args.quick or args.no_curve),
                                samples=20 if args.quick else 100, fusion=fusion)
            print(f"{conv.sample_id}: {len(conv.turns)} turns, {len(conv.questions)} questions",
                  file=sys.stderr)
        questions = sum(len(c.questions) for c in convs)
        report(scores, questions)
        if embedder is not None:
            # getattr: the run also works on memstrata from before the floor (side by side).
            report_precision(precision, getattr(Settings(), "search_min_score", None))
        if embedder is not None:
            rate = timing["indexed"] / timing["index_s"]
            print(f"\nindexer: {int(timing['indexed'])} messages in {timing['index_s']:.1f} s = "
                  f"{rate:.0f} messages/s with {embedder.model_id} "
                  f"(target >= 400: {'met' if rate >= 400 else 'MISSED'})")
        if not args.quick:
            print(f"\nlatency, {args.latency_messages:,} hot messages in one session:")
            await latency_100k(tmp, embedder, args.latency_messages)


if __name__ == "__main__":
    asyncio.run(main())
