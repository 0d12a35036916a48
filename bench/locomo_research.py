"""Turn-level retrieval on LoCoMo: BM25 baseline, keyword, semantic and hybrid variants.

    python bench/locomo_research.py [--data PATH] [--audit PATH] [--cache DIR] [--variants all]

Protocol: each LoCoMo conversation is one memstrata session; every turn is a message indexed
as ``speaker: text`` (an image is appended as ``[image: caption]``). For each question the
conversation's turns are ranked and scored against the question's evidence turns: turn recall
at 1/5/10/25/50 (fraction of evidence turns in the top k), evidence-session hit@5/10 (some top-k
turn lies in an evidence session) and MRR of the first evidence turn, overall and per category
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial). Evidence ids are
normalised ("D8:6; D9:17", "D:11:26", "D30:05"), and citations the audit file marks as
WRONG_CITATION are replaced by its corrected ids.

Conversations are split in two halves: variants are chosen on the first three ("choose") and
the chosen one is confirmed on the other three ("confirm"). The data is read at run time;
embeddings of the turns are cached under ``--cache`` (outside the repository).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from memstrata.providers import LocalEmbedder
from memstrata.providers._local import DEFAULT_LOCAL_MODEL
from memstrata.search import _fusion as fusion
from memstrata.text import bigram_text, fts_match_expression, query_terms

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT / "shared/bench-data/locomo/locomo-dev6.json"
DEFAULT_AUDIT = ROOT / "shared/bench-data/locomo/audit-dial481/errors.json"
KS = (1, 5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-dom", 4: "single-hop", 5: "adversar"}
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")

Ranker = Callable[["Conversation", int], np.ndarray]


@dataclass
class Question:
    text: str
    category: int
    evidence: set[int]  # positions of the evidence turns in the conversation
    sessions: set[int]


@dataclass
class Conversation:
    name: str
    speakers: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    sessions: list[int] = field(default_factory=list)
    dia_ids: list[str] = field(default_factory=list)
    times: list[int] = field(default_factory=list)  # UTC ns, the LoCoMo session's date
    questions: list[Question] = field(default_factory=list)
    cache: dict[str, object] = field(default_factory=dict)

    def keyed(self, i: int) -> str:
        return f"{self.speakers[i]}: {self.texts[i]}"


def evidence_ids(raw: Sequence[str]) -> list[str]:
    """Normalised evidence ids ("D8:6", ...), malformed pieces dropped."""
    out: list[str] = []
    for item in raw:
        for piece in str(item).split(";"):
            m = _EVIDENCE.fullmatch(piece.strip())
            if m:
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def session_time(text: str) -> int:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as UTC Unix nanoseconds."""
    moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(moment.timestamp()) * 10**9


def load(data: Path, audit: Path | None) -> list[Conversation]:
    """The conversations with their turns and answerable questions (evidence found)."""
    fixes: dict[str, list[str]] = {}
    if audit is not None and audit.is_file():
        for rec in json.loads(audit.read_text()):
            if rec.get("error_type") == "WRONG_CITATION" and rec.get("correct_evidence"):
                fixes[rec["question_id"]] = list(rec["correct_evidence"])
    convs: list[Conversation] = []
    for ci, rec in enumerate(json.loads(data.read_text())):
        conv = Conversation(name=rec["sample_id"])
        c = rec["conversation"]
        for key in sorted((k for k in c if re.fullmatch(r"session_\d+", k)),
                          key=lambda k: int(k.split("_")[1])):
            at = session_time(c[f"{key}_date_time"])
            for turn in c[key]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [image: {turn['blip_caption']}]"
                conv.speakers.append(turn["speaker"])
                conv.texts.append(text)
                conv.sessions.append(int(key.split("_")[1]))
                conv.times.append(at + len(conv.times) * 10**9)
                conv.dia_ids.append(evidence_ids([turn["dia_id"]])[0])
        where = {d: i for i, d in enumerate(conv.dia_ids)}
        for qi, q in enumerate(rec["qa"]):
            ev = evidence_ids(fixes.get(f"locomo_{ci}_qa{qi}", q["evidence"]))
            pos = {where[e] for e in ev if e in where}
            if pos:
                conv.questions.append(Question(q["question"], int(q["category"]), pos,
                                               {conv.sessions[p] for p in pos}))
        convs.append(conv)
    return convs


# -- embeddings -------------------------------------------------------------------------------

EMBED_KEYS: dict[str, Callable[[Conversation, int], str]] = {
    "plain": lambda c, i: c.texts[i],
    "spk": lambda c, i: c.keyed(i),
    "prev": lambda c, i: fusion.embedding_key(c.texts[i], c.speakers[i],
                                              c.texts[i - 1] if i else None,
                                              c.speakers[i - 1] if i else None),
    "win": lambda c, i: "\n".join(c.keyed(j) for j in range(max(0, i - 1),
                                                            min(len(c.texts), i + 2))),
    "prev2": lambda c, i: "\n".join(c.keyed(j) for j in range(max(0, i - 2), i + 1)),
}


def _embed_all(texts: list[str], model: str) -> np.ndarray:
    vectors = asyncio.run(LocalEmbedder(model).embed(texts))
    return np.asarray(vectors, dtype=np.float32)


def attach_vectors(convs: list[Conversation], cache: Path, keys: Sequence[str],
                   model: str = DEFAULT_LOCAL_MODEL) -> None:
    """Put each conversation's turn vectors (per key) and question vectors in ``conv.cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    qpath = cache / "q.npy"
    if not qpath.exists():
        np.save(qpath, _embed_all([q.text for c in convs for q in c.questions], model))
    qv = np.load(qpath)
    if len(qv) != sum(len(c.questions) for c in convs):
        raise SystemExit(f"{qpath} does not match the data; delete the cache")
    at = 0
    for c in convs:
        c.cache["q"] = qv[at : at + len(c.questions)]
        at += len(c.questions)
    for key in keys:
        path = cache / f"t_{key}.npy"
        if not path.exists():
            np.save(path, _embed_all([EMBED_KEYS[key](c, i) for c in convs
                                      for i in range(len(c.texts))], model))
        tv = np.load(path)
        at = 0
        for c in convs:
            c.cache[f"v_{key}"] = tv[at : at + len(c.texts)]
            at += len(c.texts)


# -- metrics ----------------------------------------------------------------------------------

@dataclass
class Score:
    n: int = 0
    recall: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    session_hit: dict[int, float] = field(default_factory=lambda: {5: 0.0, 10: 0.0})
    mrr: float = 0.0

    def add(self, ranking: np.ndarray, q: Question, sessions: list[int]) -> None:
        self.n += 1
        top = [int(i) for i in ranking[: max(KS)]]
        for k in KS:
            self.recall[k] += len(q.evidence.intersection(top[:k])) / len(q.evidence)
        for k in self.session_hit:
            self.session_hit[k] += any(sessions[i] in q.sessions for i in top[:k])
        first = next((r for r, i in enumerate(top) if i in q.evidence), None)
        self.mrr += 0.0 if first is None else 1.0 / (first + 1)

    def row(self) -> str:
        n = max(self.n, 1)
        rs = " ".join(f"{100 * self.recall[k] / n:5.1f}" for k in KS)
        sh = " ".join(f"{100 * self.session_hit[k] / n:5.1f}" for k in self.session_hit)
        return f"{rs} | {sh} | {self.mrr / n:.3f} n={self.n}"


def evaluate(convs: Sequence[Conversation], rank: Ranker) -> dict[str, Score]:
    """Scores overall ("all") and per category name for one ranking method."""
    out: dict[str, Score] = {"all": Score()}
    for c in convs:
        for qi, q in enumerate(c.questions):
            ranking = rank(c, qi)
            out["all"].add(ranking, q, c.sessions)
            out.setdefault(CATEGORIES[q.category], Score()).add(ranking, q, c.sessions)
    return out


# -- rankers ----------------------------------------------------------------------------------

def fts5_baseline(c: Conversation, qi: int) -> np.ndarray:
    """Plain FTS5 BM25 (porter unicode61) over ``speaker: text``, as the store ranks keywords."""
    db = c.cache.get("fts")
    if db is None:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = "
                   "'porter unicode61 remove_diacritics 2')")
        db.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)",
                       [(i, bigram_text(c.keyed(i))) for i in range(len(c.texts))])
        c.cache["fts"] = db
    assert isinstance(db, sqlite3.Connection)
    expr = fts_match_expression(query_terms(c.questions[qi].text))
    rows = [] if expr is None else db.execute(
        "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 50", (expr,)).fetchall()
    return np.asarray([r[0] for r in rows], dtype=np.int64)


def _index(c: Conversation, weights: dict[int, float], k1: float, b: float,
           groups: bool) -> fusion.KeywordIndex:
    name = f"ix{sorted(weights.items())}{k1}{b}{groups}"
    ix = c.cache.get(name)
    if ix is None:
        toks = c.cache.get("toks")
        if toks is None:
            toks = c.cache["toks"] = [fusion.tokens(c.keyed(i)) for i in range(len(c.texts))]
        assert isinstance(toks, list)
        ix = c.cache[name] = fusion.build_keyword_index(
            toks, groups=c.sessions if groups else None, key_weights=weights, k1=k1, b=b)
    assert isinstance(ix, fusion.KeywordIndex)
    return ix


@dataclass(frozen=True)
class Variant:
    """One ranking method: keyword key, embedding key, smoothing and fusion settings."""

    key_weights: dict[int, float] = field(default_factory=lambda: {0: 1.0})
    k1: float = 1.2
    b: float = 0.75
    groups: bool = False
    embed: str = "spk"
    smooth: dict[int, float] = field(default_factory=lambda: {0: 1.0})
    semantic_weight: float = 0.5
    mode: str = "hybrid"  # keyword | semantic | hybrid

    def keyword(self, c: Conversation, qi: int) -> np.ndarray:
        ix = _index(c, self.key_weights, self.k1, self.b, self.groups)
        return fusion.keyword_scores(ix, c.questions[qi].text)

    def semantic(self, c: Conversation, qi: int) -> np.ndarray:
        vectors = c.cache[f"v_{self.embed}"]
        qv = c.cache["q"]
        assert isinstance(vectors, np.ndarray) and isinstance(qv, np.ndarray)
        cos = fusion.semantic_scores(vectors, qv[qi])
        return fusion.neighbour_smooth(cos, self.smooth,
                                       c.sessions if self.groups else None)

    def __call__(self, c: Conversation, qi: int) -> np.ndarray:
        if self.mode == "keyword":
            s = self.keyword(c, qi)
        elif self.mode == "semantic":
            s = self.semantic(c, qi)
        else:
            # Score-level fusion of the two normalised rankings.
            s = (fusion.minmax(self.keyword(c, qi))
                 + np.float32(self.semantic_weight) * fusion.minmax(self.semantic(c, qi)))
        return fusion.top_indices(s, max(KS))


NEIGHBOURS = {-1: 0.5, 0: 1.0, 1: 0.5}
KEY_WEIGHTS = fusion.DEFAULT_KEY_WEIGHTS
SMOOTH = fusion.DEFAULT_SMOOTHING
SEMANTIC_WEIGHT = fusion.HybridWeights().semantic
EMBED = "prev"


@dataclass(frozen=True)
class Method:
    """The chosen method through :func:`fusion.search_session`, as memstrata's search runs it."""

    mode: str = "hybrid"
    weights: fusion.HybridWeights = field(default_factory=fusion.HybridWeights)

    def __call__(self, c: Conversation, qi: int) -> np.ndarray:
        index = c.cache.get("session_index")
        if index is None:
            vectors = c.cache[f"v_{EMBED}"]
            assert isinstance(vectors, np.ndarray)
            index = c.cache["session_index"] = fusion.build_session_index(
                list(range(len(c.texts))), c.texts, c.speakers, c.times, vectors)
        assert isinstance(index, fusion.SessionIndex)
        qv = c.cache["q"]
        assert isinstance(qv, np.ndarray)
        hits = fusion.search_session(index, c.questions[qi].text, qv[qi], k=max(KS),
                                     mode=self.mode, weights=self.weights)
        return np.asarray([i for i, _ in hits], dtype=np.int64)


def variants(which: str) -> dict[str, Ranker]:
    """The named ranking methods to compare ("final": the chosen method and its parts)."""
    bare = fusion.HybridWeights(time=0.0, sender=0.0)
    final: dict[str, Ranker] = {
        "fts5 bm25 (baseline)": fts5_baseline,
        "keyword: nbr-key bm25": Method("keyword", bare),
        "semantic: smoothed cos": Method("semantic", bare),
        "hybrid, no priors": Method("hybrid", bare),
        "keyword + priors": Method("keyword"),
        "semantic + priors": Method("semantic"),
        "HYBRID (chosen)": Method("hybrid"),
    }
    if which == "final":
        return final
    out: dict[str, Ranker] = dict(final)
    out.update(explore())
    return out


def explore() -> dict[str, Ranker]:
    """Alternatives measured on the choose half."""
    out: dict[str, Ranker] = {"kw own": Variant(mode="keyword")}
    for name, w in {"kw ±1 .5": NEIGHBOURS, "kw ±1 1": {-1: 1.0, 0: 1.0, 1: 1.0},
                    "kw -1 .5": {-1: 0.5, 0: 1.0}, "kw ±2": {-2: .25, -1: .5, 0: 1, 1: .5, 2: .25},
                    "kw ±1 .3": {-1: 0.3, 0: 1.0, 1: 0.3}}.items():
        out[name] = Variant(key_weights=w, mode="keyword")
    for emb in EMBED_KEYS:
        out[f"sem {emb}"] = Variant(embed=emb, mode="semantic")
        out[f"sem {emb} smooth"] = Variant(embed=emb, smooth=NEIGHBOURS, mode="semantic")
    for emb in ("spk", "prev", "win"):
        for sw in (0.3, 0.5, 0.8):
            for sm_name, sm in (("", {0: 1.0}), (" smooth", NEIGHBOURS)):
                out[f"hyb {emb} w{sw}{sm_name}"] = Variant(
                    key_weights=NEIGHBOURS, embed=emb, smooth=sm, semantic_weight=sw)
    return out


def table(convs: list[Conversation], rankers: dict[str, Ranker], title: str) -> None:
    print(f"\n## {title}: {', '.join(c.name for c in convs)} "
          f"({sum(len(c.questions) for c in convs)} questions)")
    print(f"{'method':28} {'R@1':>5} {'R@5':>5} {'R@10':>5} {'R@25':>5} {'R@50':>5} | "
          f"{'S@5':>5} {'S@10':>5} | MRR")
    per_cat: dict[str, dict[str, Score]] = {}
    for name, rank in rankers.items():
        t0 = time.perf_counter()
        res = evaluate(convs, rank)
        ms = 1000 * (time.perf_counter() - t0) / max(res["all"].n, 1)
        print(f"{name:28} {res['all'].row()} ({ms:.2f} ms/q)")
        per_cat[name] = res
    print(f"\nper category (R@5 / R@10), {title}")
    print(f"{'method':28} " + " ".join(f"{v:>12}" for v in CATEGORIES.values()))
    for name, res in per_cat.items():
        cells = []
        for cat in CATEGORIES.values():
            s = res.get(cat, Score())
            n = max(s.n, 1)
            cells.append(f"{100 * s.recall[5] / n:5.1f}/{100 * s.recall[10] / n:5.1f}")
        print(f"{name:28} " + " ".join(f"{c:>12}" for c in cells))


def latency(convs: list[Conversation], size: int = 100_000, queries: int = 300) -> None:
    """Time building a :class:`fusion.SessionIndex` over ``size`` messages and searching it.

    Messages are LoCoMo turns repeated, each copy given a distinct extra word so the vocabulary
    grows as in a real archive; vectors are random unit rows (512-d, the USE dimension); times
    span two years. Queries are the LoCoMo questions (some name dates and speakers).
    """
    turns = [(c.speakers[i], c.texts[i]) for c in convs for i in range(len(c.texts))]
    rng = np.random.default_rng(0)
    rows = [turns[i % len(turns)] for i in range(size)]
    texts = [f"{t} w{i // len(turns)}x{rng.integers(1000)}" for i, (_, t) in enumerate(rows)]
    start = convs[0].times[0]
    times = [start + i * (730 * 86_400 * 10**9 // size) for i in range(size)]
    vectors = rng.standard_normal((size, 512)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    t0 = time.perf_counter()
    index = fusion.build_session_index(list(range(size)), texts, [s for s, _ in rows], times,
                                       vectors)
    built = time.perf_counter() - t0
    qs = [q.text for c in convs for q in c.questions][:queries]
    qv = rng.standard_normal((len(qs), 512)).astype(np.float32)
    print(f"\n## latency at {size:,} messages (one session): build index {built:.2f} s "
          f"({index.keyword.weights.size:,} postings)")
    for mode in ("keyword", "semantic", "hybrid"):
        spent: list[float] = []
        for text, vec in zip(qs, qv, strict=True):
            s0 = time.perf_counter()
            fusion.search_session(index, text, vec, k=32, mode=mode)
            spent.append(1000 * (time.perf_counter() - s0))
        p50, p95, p99 = np.percentile(spent, [50, 95, 99])
        print(f"{mode:9} search: p50 {p50:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms "
              f"over {len(spent)} queries")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--audit", default=str(DEFAULT_AUDIT),
                    help="audit file with corrected citations ('' to score the data as-is)")
    ap.add_argument("--model", default=DEFAULT_LOCAL_MODEL, help="local embedding model")
    ap.add_argument("--cache", type=Path, default=None,
                    help="embedding cache directory (default: a per-model /tmp directory)")
    ap.add_argument("--variants", choices=("final", "all"), default="final")
    ap.add_argument("--latency", type=int, default=100_000, help="messages (0: skip)")
    args = ap.parse_args()
    audit = Path(args.audit) if args.audit else None
    convs = load(args.data, audit)
    cache = args.cache or Path(f"/tmp/memstrata-locomo-cache/{args.model}")
    attach_vectors(convs, cache, list(EMBED_KEYS) if args.variants == "all" else [EMBED],
                   args.model)
    rankers = variants(args.variants)
    half = len(convs) // 2
    table(convs[:half], rankers, "choose")
    table(convs[half:], rankers if args.variants == "final" else variants("final"), "confirm")
    if args.latency:
        latency(convs, args.latency)


if __name__ == "__main__":
    main()
