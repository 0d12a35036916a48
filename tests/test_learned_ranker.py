"""The learned ranker's parts: features that do not depend on what else is searched (and the
two that compare a message with the rest), the answer gate's judge, the shipped weights, and
the switch back to the hand-tuned fusion."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memstrata import InvalidInput, Memory, Settings
from memstrata.providers import HashEmbedder, LocalEmbedder
from memstrata.search._cues import query_cues
from memstrata.search._features import (
    FEATURES,
    JUDGE_FEATURES,
    RELATIVE,
    SCOPED,
    SEMANTIC_FEATURES,
    centred_cosines,
    feedback_columns,
    query_terms_of,
)
from memstrata.search._fusion import build_session_index, rank_learned, session_features
from memstrata.search._ranker import (
    JUDGE_COLUMNS,
    LEARNED_FLOOR,
    Gate,
    LearnedRanker,
    Trees,
    bent,
    load_rankers,
    log_odds,
    ranker_for,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from _rankdata import EmbedCache

SESSIONS = {
    "a": ["I adopted a cat called Mochi.", "Noted.", "Mochi likes tuna.", "這個問題很好。"],
    "b": ["The deployment happens every second Tuesday."],
    "c": ["我對花生過敏，點餐的時候要小心。", "了解。", "Peanuts are in many sauces.",
          "Sounds good!", "Mochi is a cat."],
}


def _vectors(texts: list[str], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(len(texts), 16)).astype(np.float32)
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


@pytest.mark.parametrize("query", ["Mochi the cat", "peanut allergy", "deployment Tuesday",
                                   "花生", "nothing here at all", "what is Mochi's name now?"])
def test_a_message_has_the_same_features_alone_or_beside_other_sessions(query: str) -> None:
    """Every feature but the :data:`SCOPED` and :data:`RELATIVE` ones is the message's own
    (within its session): the same in a search of its session and beside other sessions. The
    scoped ones compare it with the best of all the messages searched, across sessions, never
    per session; the relative ones place it among every message searched in a session of more
    than one, and a memory alone in its session against itself, wherever it is searched."""
    texts, groups, own, keyed = [], [], [], []
    per_session = []
    for code, (name, session) in enumerate(SESSIONS.items()):
        o, k = _vectors(session, code), _vectors(session, 100 + code)
        index = build_session_index(list(range(len(session))), session, [name] * len(session),
                                    [10**18 + i for i in range(len(session))], k,
                                    own_vectors=o)
        per_session.append((index, len(session)))
        texts += session
        groups += [code] * len(session)
        own.append(o)
        keyed.append(k)
    together = build_session_index(
        list(range(len(texts))), texts,
        [name for name, s in SESSIONS.items() for _ in s],
        [10**18 + i for s in SESSIONS.values() for i in range(len(s))],
        np.concatenate(keyed), own_vectors=np.concatenate(own), groups=groups)
    q = query_terms_of(query)
    qv = _vectors([query], 7)[0]
    for semantic in (False, True):
        alone = np.concatenate([session_features(ix, q, qv, now=2 * 10**18,
                                                 semantic_only=semantic)
                                for ix, _ in per_session])
        side = session_features(together, q, qv, now=2 * 10**18, semantic_only=semantic)
        names = SEMANTIC_FEATURES if semantic else FEATURES
        assert side.shape == (len(texts), len(names))
        kept = [j for j, name in enumerate(names) if name not in SCOPED + RELATIVE]
        np.testing.assert_allclose(side[:, kept], alone[:, kept], atol=1e-6)
        single = np.asarray([len(SESSIONS[name]) == 1 for name in SESSIONS
                             for _ in SESSIONS[name]])
        relative = np.asarray([j for j, name in enumerate(names) if name in RELATIVE])
        np.testing.assert_array_equal(side[np.ix_(single, relative)],
                                      alone[np.ix_(single, relative)])
        rel = names.index("rel_sim")
        # Per session, each session of several messages had its own best at 1; searched
        # together, they are one conversation with one best.
        assert int((alone[~single, rel] == 1.0).sum()) == sum(
            len(s) > 1 for s in SESSIONS.values())
        assert int((side[~single, rel] == 1.0).sum()) == 1
        assert float(side[~single, rel].min()) == 0.0
        assert not side[single, rel].any()
        if semantic:
            continue
        gap, cos = FEATURES.index("cos_gap"), FEATURES.index("cos_own")
        np.testing.assert_allclose(side[:, gap], side[:, cos] - side[:, cos].max(), atol=1e-6)
        assert float(side[:, gap].max()) == 0.0
        # Searched alone, every session has a message at 0; beside the others, only the one
        # holding the best cosine of all.
        assert int((alone[:, gap] == 0.0).sum()) == len(SESSIONS)
        assert int((side[:, gap] == 0.0).sum()) == 1
        cov, cgap = FEATURES.index("cov_own"), FEATURES.index("cov_gap")
        np.testing.assert_allclose(side[:, cgap], side[:, cov] - side[:, cov].max(), atol=1e-6)
        # Searched alone, a session's scope-wide coverage is its own; beside the others it
        # weighs each query word by how many of all the messages hold it.
        wide = FEATURES.index("cov_scope")
        np.testing.assert_allclose(alone[:, wide], alone[:, cov], atol=1e-6)
        assert bool((side[:, wide] > 0).any()) == bool((side[:, cov] > 0).any())


def test_a_word_many_memories_hold_weighs_less_across_the_memories_searched() -> None:
    """Memories kept one per session: within its own session every word a memory holds is as
    rare as any other, so its coverage of "dog peanut" is the same whichever word it holds.
    Among all the memories searched, "dog" (in four of them) weighs less than "peanut" (in
    one), and the memory holding "peanut" covers more of the query, and scores more BM25."""
    memories = ["My dog sleeps a lot.", "The dog park opens at nine.", "A dog barked at night.",
                "We walked the dog.", "I have a peanut allergy.", "Lunch was late."]
    index = build_session_index(list(range(len(memories))), memories, ["u"] * len(memories),
                                [10**18 + i for i in range(len(memories))],
                                _vectors(memories, 1), own_vectors=_vectors(memories, 2),
                                groups=list(range(len(memories))))
    x = session_features(index, query_terms_of("dog peanut"), _vectors(["q"], 3)[0],
                         now=2 * 10**18)
    cov, wide, bm25 = (FEATURES.index(n) for n in ("cov_own", "cov_scope", "bm25_scope"))
    assert x[0, cov] == pytest.approx(x[4, cov])
    assert x[4, wide] > 0.5 > x[0, wide] > 0.0
    assert x[4, bm25] > x[0, bm25] > 0.0
    assert x[5, wide] == 0.0 and x[5, bm25] == 0.0
    # The idf is the BM25 idf over the six memories: "dog" in 4, "peanut" in 1.
    dog, peanut = np.log1p((6 - 4 + 0.5) / 4.5), np.log1p((6 - 1 + 0.5) / 1.5)
    assert x[4, wide] == pytest.approx(peanut / (dog + peanut), rel=1e-5)


def test_the_shipped_rankers_load_and_give_probabilities() -> None:
    rankers = load_rankers()
    for mode, names in (("hybrid", FEATURES), ("semantic", SEMANTIC_FEATURES)):
        ranker = ranker_for("local:use-multilingual-v3", mode)
        assert ranker is not None, sorted(rankers)
        x = np.random.default_rng(0).normal(size=(50, len(names))).astype(np.float32)
        p = ranker.probability(x)
        assert p.shape == (50,) and bool(((p >= 0) & (p <= 1)).all())
        again = LearnedRanker.from_json(ranker.to_json())
        np.testing.assert_array_equal(again.probability(x), p)


@pytest.mark.parametrize(("query", "early", "late"), [
    ("What was the first problem I brought to you?", True, False),
    ("Before the raise, how much went to the credit cards?", True, False),
    ("What did Caroline used to do with her dad?", True, False),
    ("What's our remodeling budget at this point?", False, True),
    ("Which version are we on now?", False, True),
    ("一開始我說報表是多久做一次？", True, False),
    ("目前用哪個 Python 版本？", False, True),
    ("We first planned 80 guests; how many now?", True, True),
    ("What is the cat's name?", False, False),
    ("Is firstname a column, or is knowledge?", False, False),
])
def test_a_query_asking_how_a_thing_stood_first_or_stands_now_is_told_apart(
        query: str, early: bool, late: bool) -> None:
    """English cue words match whole words only ("firstname" and "knowledge" hold none)."""
    cues = query_cues(query)
    assert (cues.early, cues.late) == (early, late)


def test_cue_columns_weigh_the_message_by_its_age_and_place_in_its_session() -> None:
    """``early_place`` is 1 for a session's oldest message and 0 for its newest, ``*_age``
    the message's age; all four are 0 for a query with no cue. Semantic search has
    ``early_place``."""
    texts = ["We plan for 80 guests.", "Venue booked.", "Now we are at 120 guests."]
    day = 86_400 * 10**9
    times = [10**18, 10**18 + day, 10**18 + 4 * day]
    index = build_session_index([0, 1, 2], texts, ["u"] * 3, times, _vectors(texts, 1),
                                own_vectors=_vectors(texts, 2))
    qv = _vectors(["q"], 3)[0]
    now = 10**18 + 10 * day

    def column(query: str, name: str) -> list[float]:
        x = session_features(index, query_terms_of(query), qv, now=now)
        return [round(float(v), 4) for v in x[:, FEATURES.index(name)]]

    first = "How many guests did we first plan for?"
    assert column(first, "early_place") == [1.0, 0.75, 0.0]
    assert column(first, "late_place") == [0.0, 0.0, 0.0]
    assert column(first, "early_age") == column(first, "age")
    latest = "How many guests now?"
    assert column(latest, "late_place") == [1.0, 0.75, 0.0]
    assert column(latest, "early_age") == [0.0, 0.0, 0.0]
    for name in ("early_age", "late_age", "early_place", "late_place"):
        assert column("How many guests?", name) == [0.0, 0.0, 0.0]
    # Semantic search reads the first cue's place too (the cue words are the query's alone).
    for query, want in ((first, [1.0, 0.75, 0.0]), (latest, [0.0, 0.0, 0.0])):
        x = session_features(index, query_terms_of(query), qv, now=now, semantic_only=True)
        got = [round(float(v), 4) for v in x[:, SEMANTIC_FEATURES.index("early_place")]]
        assert got == want, query


def test_a_ranker_names_its_own_floor_only_where_its_model_needs_one() -> None:
    """The default model's rankers use the package's floor; a ranker's own floor survives
    the file, and one that is not a probability is refused."""
    default = ranker_for("local:use-multilingual-v3", "semantic")
    assert default is not None and default.floor is None
    assert default.best_floor == LEARNED_FLOOR["semantic"]
    body = default.to_json()
    assert "floor" not in body
    body["floor"] = 0.0265
    again = LearnedRanker.from_json(body)
    assert again.best_floor == 0.0265 and again.to_json()["floor"] == 0.0265
    for wrong in (0.0, 1.0, -0.1):
        body["floor"] = wrong
        with pytest.raises(ValueError, match="floor must be a probability"):
            LearnedRanker.from_json(body)


def test_the_calibration_bends_only_above_its_first_knot_and_keeps_the_order() -> None:
    """A linear ranker whose log-odds are its first feature: the bends leave every log-odds
    under the first knot as it was, change the slope by each knot's change above it, keep
    the order of the messages, and survive the file."""
    d = len(FEATURES)
    weights = np.zeros(d, np.float32)
    weights[0] = 1.0
    plain = LearnedRanker(mode="hybrid", features=FEATURES, mean=np.zeros(d, np.float32),
                          scale=np.ones(d, np.float32), weights=weights, bias=0.0,
                          centre=np.zeros(16, np.float32))
    ranker = dataclasses.replace(plain, bends=((-1.0, -0.5), (1.0, 0.25)))
    x = np.zeros((6, d), dtype=np.float32)
    x[:, 0] = [-4.0, -1.0, 0.0, 1.0, 2.0, 5.0]
    # Slope 1 up to -1, 0.5 from -1 to 1, 0.75 above 1.
    np.testing.assert_allclose(ranker.logits(x), [-4.0, -1.0, -0.5, 0.0, 0.75, 3.0])
    np.testing.assert_allclose(plain.logits(x), x[:, 0])
    probability = ranker.probability(x)
    assert list(np.argsort(probability)) == list(range(6))
    again = LearnedRanker.from_json(ranker.to_json())
    assert again.bends == ranker.bends
    np.testing.assert_allclose(again.logits(x), ranker.logits(x))
    assert "bends" not in plain.to_json()
    np.testing.assert_allclose(bent(x[:, 0], ranker.bends), ranker.logits(x))


@pytest.mark.parametrize("bends", [((1.0, 0.1), (-1.0, 0.1)), ((0.0, 0.1), (0.0, 0.2)),
                                   ((-1.0, -1.0),), ((-1.0, -0.5), (1.0, -0.6))])
def test_bends_that_would_reorder_the_hits_are_refused(bends: tuple[tuple[float, float], ...]
                                                       ) -> None:
    ranker = ranker_for("local:use-multilingual-v3", "semantic")
    assert ranker is not None
    body = ranker.to_json()
    body["bends"] = [list(b) for b in bends]
    with pytest.raises(ValueError, match="bends must have rising knots"):
        LearnedRanker.from_json(body)


@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_the_shipped_rankers_are_less_sure_at_the_top_than_a_straight_calibration(
        mode: str) -> None:
    """The shipped calibration bends: the straight one was over-sure above its first knot
    (docs/benchmarks.md, the reliability curve), so its slope falls there. The answer gate's
    judge stays straight: the gate's offset was fitted on its log-odds."""
    ranker = ranker_for("local:use-multilingual-v3", mode)
    assert ranker is not None and len(ranker.bends) == 2
    (first, change), _ = ranker.bends
    assert first < 0.0 < change + 1.0 and change < 0.0
    low = np.asarray([-8.0, -3.0, first - 0.01], dtype=np.float32)
    np.testing.assert_allclose(bent(low, ranker.bends), low)
    high = np.asarray([2.0], dtype=np.float32)
    assert float(bent(high, ranker.bends)[0]) < 2.0
    if ranker.gate is not None and ranker.gate.judge is not None:
        assert ranker.gate.judge.bends == ()


def test_a_ranker_of_other_features_is_refused() -> None:
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    assert ranker is not None
    body = ranker.to_json()
    body["features"] = body["features"][:-1]
    with pytest.raises(ValueError, match="features do not match"):
        LearnedRanker.from_json(body)


def test_an_unknown_ranker_setting_names_the_field() -> None:
    with pytest.raises(InvalidInput) as err:
        Settings(ranker="neural")  # type: ignore[arg-type]
    assert err.value.field == "ranker"


async def test_the_fusion_stays_available_and_differs_from_the_learned_scores(
        tmp_path: Path) -> None:
    """An embedder without shipped weights (here the hash embedder) ranks by the fusion; the
    setting picks the fusion for the local model too. Both find an exact word."""
    path = str(tmp_path / "m.db")
    settings = Settings(embedder=None, summary_cron=None)
    async with Memory.open(path, settings=settings, embedder=HashEmbedder(),
                           background=False) as mem:
        for text in SESSIONS["a"] + SESSIONS["c"]:
            await mem.add("s", "user", text)
        await mem.flush()
        hits = await mem.search("s", "tuna", match="hybrid", exclude_window=False)
        best = min((h for h in hits if h.matched), key=lambda h: h.rank or 0)
        assert best.message.content == "Mochi likes tuna."
    assert ranker_for(HashEmbedder().model_id, "hybrid") is None


def _stump_ranker(feature: int, threshold: float, low: float, high: float) -> LearnedRanker:
    """A hybrid ranker whose linear part is 0 and whose one tree of depth 1 adds ``low`` or
    ``high`` by one feature."""
    d = len(FEATURES)
    trees = Trees(np.asarray([[feature]], dtype=np.int16),
                  np.asarray([[threshold]], dtype=np.float32),
                  np.asarray([[low, high]], dtype=np.float32))
    return LearnedRanker(mode="hybrid", features=FEATURES, mean=np.zeros(d, np.float32),
                         scale=np.ones(d, np.float32), weights=np.zeros(d, np.float32),
                         bias=0.0, trees=trees, centre=np.zeros(16, np.float32))


def test_trees_add_their_leaf_to_the_log_odds() -> None:
    ranker = _stump_ranker(0, 0.5, -2.0, 3.0)
    x = np.zeros((3, len(FEATURES)), dtype=np.float32)
    x[:, 0] = [0.1, 0.5, 0.9]  # at the threshold goes left
    np.testing.assert_allclose(ranker.logits(x), [-2.0, -2.0, 3.0])
    again = LearnedRanker.from_json(ranker.to_json())
    np.testing.assert_allclose(again.logits(x), ranker.logits(x))


def test_deeper_trees_follow_both_children() -> None:
    d = len(FEATURES)
    # depth 2: root on feature 0, its left child on feature 1, its right child on feature 2
    trees = Trees(np.asarray([[0, 1, 2]], dtype=np.int16),
                  np.asarray([[0.0, 0.0, 0.0]], dtype=np.float32),
                  np.asarray([[1.0, 2.0, 3.0, 4.0]], dtype=np.float32))
    x = np.zeros((4, d), dtype=np.float32)
    x[:, 0] = [-1, -1, 1, 1]
    x[:, 1] = [-1, 1, 0, 0]
    x[:, 2] = [0, 0, -1, 1]
    np.testing.assert_allclose(trees(x), [1.0, 2.0, 3.0, 4.0])


def test_refining_scores_only_the_best_rows_with_the_trees() -> None:
    d = len(FEATURES)
    weights = np.zeros(d, np.float32)
    weights[1] = 1.0
    base = _stump_ranker(0, 0.5, 0.0, 10.0)
    ranker = LearnedRanker(mode="hybrid", features=FEATURES, mean=base.mean, scale=base.scale,
                           weights=weights, bias=0.0, trees=base.trees)
    x = np.zeros((4, d), dtype=np.float32)
    x[:, 0] = 1.0  # every row would gain 10 from the tree
    x[:, 1] = [4.0, 3.0, 2.0, 1.0]  # the linear part ranks row 0 first
    np.testing.assert_allclose(ranker.logits(x), [14.0, 13.0, 12.0, 11.0])
    np.testing.assert_allclose(ranker.logits(x, refine=2), [14.0, 13.0, 2.0, 1.0])


def test_malformed_trees_are_refused() -> None:
    with pytest.raises(ValueError, match="trees are malformed"):
        Trees(np.zeros((1, 2), np.int16), np.zeros((1, 2), np.float32),
              np.zeros((1, 3), np.float32))


# -- centred cosines ---------------------------------------------------------------------------

def _unit(rows: np.ndarray) -> np.ndarray:
    out: np.ndarray = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return out


def test_centred_cosines_are_the_cosines_of_the_centred_vectors() -> None:
    rng = np.random.default_rng(3)
    shared = rng.normal(size=16).astype(np.float32) * 3  # one direction every vector shares
    m = _unit(rng.normal(size=(20, 16)).astype(np.float32) + shared).astype(np.float32)
    q = _unit(rng.normal(size=16).astype(np.float32) + shared).astype(np.float32)
    c = m.mean(axis=0)
    expected = _unit(m - c) @ _unit(q - c)
    got = centred_cosines((m @ q).astype(np.float32), (m @ c).astype(np.float32),
                          float(q @ c), float(c @ c))
    np.testing.assert_allclose(got, expected, atol=1e-5)
    # The plain cosines crowd together; the centred ones spread out.
    assert float(np.std(got)) > 2 * float(np.std(m @ q))
    # A message with no vector yet has no centred cosine either.
    none = centred_cosines(np.zeros(2, np.float32), np.zeros(2, np.float32), float(q @ c),
                           float(c @ c))
    np.testing.assert_array_equal(none, [0.0, 0.0])


def test_the_hybrid_features_carry_centred_cosines_and_hub_products() -> None:
    texts = SESSIONS["a"]
    own, keyed = _vectors(texts, 1), _vectors(texts, 2)
    index = build_session_index(list(range(len(texts))), texts, ["a"] * len(texts),
                                [10**18 + i for i in range(len(texts))], keyed,
                                own_vectors=own)
    q = query_terms_of("Mochi the cat")
    qv = 2.0 * _vectors(["q"], 3)[0]  # not unit: the features read its direction only
    centre = (own.mean(axis=0) * 0.9).astype(np.float32)
    x = session_features(index, q, qv, now=2 * 10**18, centre=centre)
    col = {name: x[:, FEATURES.index(name)] for name in FEATURES}
    unit_q = _unit(qv)
    np.testing.assert_allclose(col["ccos_own"], _unit(own - centre) @ _unit(unit_q - centre),
                               atol=1e-5)
    np.testing.assert_allclose(col["ccos_key"], _unit(keyed - centre) @ _unit(unit_q - centre),
                               atol=1e-5)
    np.testing.assert_allclose(col["hub_own"], own @ centre, atol=1e-6)
    np.testing.assert_allclose(col["hub_query"], float(unit_q @ centre), atol=1e-6)
    # Without a centre (the zero vector) they are the plain cosines, and the hubs are 0.
    plain = session_features(index, q, qv, now=2 * 10**18)
    np.testing.assert_array_equal(plain[:, FEATURES.index("ccos_own")],
                                  plain[:, FEATURES.index("cos_own")])
    assert not plain[:, FEATURES.index("hub_own")].any()
    # Semantic search's features are unchanged.
    semantic = session_features(index, q, qv, now=2 * 10**18, centre=centre,
                                semantic_only=True)
    assert semantic.shape[1] == len(SEMANTIC_FEATURES)
    assert "ccos_own" not in SEMANTIC_FEATURES


def test_the_shipped_hybrid_ranker_carries_its_centre() -> None:
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    assert ranker is not None and ranker.centre is not None
    assert ranker.centre.shape == (512,)
    # Every vector of the model shares this direction: the mean is far from 0.
    assert float(np.linalg.norm(ranker.centre)) > 0.2
    body = ranker.to_json()
    del body["centre"]
    with pytest.raises(ValueError, match="centre"):
        LearnedRanker.from_json(body)



def test_the_shipped_hybrid_ranker_gates_on_the_closest_centred_cosine() -> None:
    """The answer gate: the probability the best hit needs falls as the closest of the best
    hits comes nearer the query, and ``answers`` agrees with ``floor``."""
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    assert ranker is not None and ranker.gate is not None
    gate = ranker.gate
    assert gate.feature == "ccos_own" and gate.per_cosine > 0
    floors = [gate.floor(c) for c in (0.0, 0.2, 0.4, 0.6)]
    assert floors == sorted(floors, reverse=True) and 0.0 < floors[-1] < floors[0] < 0.1
    for cosine in (0.0, 0.3):
        floor = gate.floor(cosine)
        assert gate.answers(log_odds(floor * 1.01), cosine)
        assert not gate.answers(log_odds(floor * 0.99), cosine)
    again = LearnedRanker.from_json(ranker.to_json()).gate
    assert again is not None and again.to_json() == gate.to_json()
    body = ranker.to_json()
    body["gate"]["feature"] = "cos_everything"
    with pytest.raises(ValueError, match="answer gate"):
        LearnedRanker.from_json(body)
    # Semantic search keeps the fixed floor on its best hit (a gate measured worse there).
    semantic = ranker_for("local:use-multilingual-v3", "semantic")
    assert semantic is not None and semantic.gate is None


def test_the_shipped_gate_also_reads_the_query_words_the_best_hits_hold() -> None:
    """Beside the log-odds and the closest cosine, the shipped gate reads the best hits'
    scope-weighted share of the query's words and whether one holds a rare one: holding more
    of the query's words lowers the probability the best hit needs. Its further features
    survive the file and must be features of the ranker; a gate without them reads as
    before."""
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    assert ranker is not None and ranker.gate is not None
    gate = ranker.gate
    assert [name for name, _ in gate.more] == ["cov_scope", "rare_own"]
    assert gate.more[0][1] > 0
    assert gate.features == ("ccos_own", "cov_scope", "rare_own")
    assert gate.floor(0.2, (1.0, 0.0)) < gate.floor(0.2, (0.5, 0.0)) < gate.floor(0.2)
    floor = gate.floor(0.2, (0.5, 1.0))
    assert gate.answers(log_odds(floor * 1.01), 0.2, (0.5, 1.0))
    assert not gate.answers(log_odds(floor * 0.99), 0.2, (0.5, 1.0))
    assert not gate.answers(log_odds(floor * 1.01), 0.2)
    with pytest.raises(ValueError, match="reads 2 more features, not 3"):
        gate.answers(0.0, 0.2, (0.1, 0.2, 0.3))
    body = ranker.to_json()
    assert body["gate"]["more"] == [["cov_scope", gate.more[0][1]], ["rare_own", gate.more[1][1]]]
    again = LearnedRanker.from_json(body).gate
    assert again is not None and again.more == gate.more
    body["gate"]["more"] = [["cov_everything", 1.0]]
    with pytest.raises(ValueError, match="answer gate reads an unknown feature: 'cov_everything'"):
        LearnedRanker.from_json(body)
    del body["gate"]["more"]
    plain = LearnedRanker.from_json(body).gate
    assert plain is not None and plain.more == () and plain.features == ("ccos_own",)
    assert plain.answers(0.0, 0.2) == (0.2 * plain.per_cosine >= plain.offset)


def test_the_shipped_gate_is_judged_on_a_messages_own_evidence() -> None:
    """The hybrid ranker's answer gate reads a judge over :data:`JUDGE_FEATURES` only: what a
    message has of its own, not how it compares with the rest searched, nor cue words. So
    changing a :data:`SCOPED` column moves the ranker's probability but not the judge's."""
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    assert ranker is not None and ranker.gate is not None
    judge = ranker.gate.judge
    assert judge is not None and judge.mode == "judge" and judge.features == JUDGE_FEATURES
    assert not set(SCOPED) & set(JUDGE_FEATURES)
    assert "early_age" not in JUDGE_FEATURES and "ccos_own" in JUDGE_FEATURES
    x = np.random.default_rng(4).normal(size=(30, len(FEATURES))).astype(np.float32)
    judged = ranker.judged(x)
    assert judged is not None
    np.testing.assert_array_equal(judged, judge.logits(np.ascontiguousarray(x[:, JUDGE_COLUMNS])))
    moved = x.copy()
    moved[:, [FEATURES.index(name) for name in SCOPED]] -= 0.5
    np.testing.assert_array_equal(ranker.judged(moved), judged)
    assert not np.allclose(ranker.probability(moved), ranker.probability(x))
    again = LearnedRanker.from_json(ranker.to_json())
    assert again.gate is not None and again.gate.judge is not None
    np.testing.assert_array_equal(again.judged(x), judged)


def test_a_judge_only_a_hybrid_gate_may_have_is_checked() -> None:
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    semantic = ranker_for("local:use-multilingual-v3", "semantic")
    assert ranker is not None and ranker.gate is not None and semantic is not None
    judge = ranker.gate.judge
    assert judge is not None
    body = semantic.to_json()
    body["gate"] = Gate(offset=-5.0, per_cosine=0.0, feature="cos_own", judge=judge).to_json()
    with pytest.raises(ValueError, match="judge"):
        LearnedRanker.from_json(body)
    wrong = ranker.to_json()
    wrong["gate"]["judge"]["features"] = list(FEATURES)
    with pytest.raises(ValueError, match="features do not match"):
        LearnedRanker.from_json(wrong)

# -- reproducible training -----------------------------------------------------------------------

async def test_training_vectors_do_not_depend_on_what_else_is_embedded(tmp_path: Path) -> None:
    """The training's embedding cache gives each text the vector it has alone, whatever texts
    come with it and in whatever order: the vector a search computes for the same text as a
    query. So a retraining sees the same numbers and writes the same weights."""
    embedder = LocalEmbedder()
    texts = ["Noted.", "我對花生過敏，點餐的時候要小心。", "Our cat is called Mochi.",
             "We agreed that the deployment happens every second Tuesday, after the "
             "review, unless the release manager is away that week.", "了解。",
             "What is the torque specification for the cylinder head bolts?"] * 12
    texts = [f"{t} ({i})" for i, t in enumerate(texts)]
    together = await EmbedCache(embedder, tmp_path / "a").embed(texts)
    parts = EmbedCache(embedder, tmp_path / "b")
    await parts.embed(texts[::-3])
    np.testing.assert_array_equal(await parts.embed(texts), together)
    for text, row in zip(texts[:6], together, strict=False):
        np.testing.assert_array_equal((await embedder.embed([text]))[0], row)
    parts.save()
    np.testing.assert_array_equal(await EmbedCache(embedder, tmp_path / "b").embed(texts),
                                  together)



def test_training_pins_the_blas_kernels_the_shipped_weights_were_made_with() -> None:
    """OpenBLAS picks its kernels by the processor and they round differently, so the training
    starts itself again with the shipped weights' kernels pinned where the processor can run
    them, and says so where it cannot."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    code = (f"import sys; sys.path.insert(0, {str(bench)!r}); import train_ranker; "
            "print(train_ranker.pin_blas_kernels())")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    flags = Path("/proc/cpuinfo").read_text("ascii", errors="replace")
    if all(f in flags.split() for f in ("avx512f", "avx512cd", "avx512bw", "avx512dq",
                                        "avx512vl")):
        assert done.stdout.strip() == "SkylakeX"
        assert "note:" not in done.stderr
    else:
        assert "not SkylakeX" in done.stderr


def test_the_feedback_is_drawn_from_the_three_leading_messages() -> None:
    """``cos_feedback`` is each message's cosine with the normalised mean of the vectors of
    the three messages leading on ``ccos_own + cov_own`` (the first of equals first);
    ``cos_expanded`` its cosine with the unit query plus that mean. Without a query vector
    there is no feedback."""
    own = _vectors([f"m{i}" for i in range(8)], 3)
    q = _vectors(["q"], 4)[0] * 2.0
    cos = own @ (q / np.linalg.norm(q))
    lead = np.asarray([0.1, 0.9, 0.2, 0.8, 0.7, 0.0, 0.0, 0.3], dtype=np.float32)
    feedback, expanded = feedback_columns(own, lead, cos, q)
    mean = own[[1, 3, 4]].mean(axis=0)
    f = mean / np.linalg.norm(mean)
    np.testing.assert_allclose(feedback, own @ f, atol=1e-6)
    e = q / np.linalg.norm(q) + f
    np.testing.assert_allclose(expanded, own @ (e / np.linalg.norm(e)), atol=1e-6)
    # The three leaders are each closer to what they say together than the others are.
    assert set(np.argsort(-feedback)[:3].tolist()) == {1, 3, 4}
    tied, _ = feedback_columns(own, np.zeros(8, np.float32), cos, q)
    first = own[:3].mean(axis=0)
    np.testing.assert_allclose(tied, own @ (first / np.linalg.norm(first)), atol=1e-6)
    none, plain = feedback_columns(own, lead, cos, None)
    assert not none.any()
    np.testing.assert_array_equal(plain, cos)
    empty, _ = feedback_columns(np.zeros((8, 16), np.float32), lead, cos, q)
    assert not empty.any()


def _centred_ranker(seed: int, hidden: int = 0) -> LearnedRanker:
    """A hybrid ranker leaning on the centred cosines, with a tree splitting on one (and
    ``hidden`` tanh units beside its linear part)."""
    rng = np.random.default_rng(seed)
    d = len(FEATURES)
    weights = rng.normal(scale=0.3, size=d).astype(np.float32)
    weights[FEATURES.index("ccos_own")] = 4.0
    # The candidates are the rows leading on meaning and words, as a trained ranker's are,
    # so the feedback drawn from them is the one drawn from every row.
    weights[FEATURES.index("cos_own")] = 4.0
    weights[FEATURES.index("cov_own")] = 4.0
    weights[FEATURES.index("cos_feedback")] = 3.0
    trees = Trees(np.asarray([[FEATURES.index("ccos_key")]], dtype=np.int16),
                  np.asarray([[0.1]], dtype=np.float32), np.asarray([[-1.0, 1.0]], np.float32))
    centre = (rng.normal(size=16) * 0.1).astype(np.float32)
    return LearnedRanker(
        mode="hybrid", features=FEATURES, mean=np.full(d, 0.1, np.float32),
        scale=np.ones(d, np.float32), weights=weights, bias=-3.0, trees=trees, centre=centre,
        hidden=rng.normal(scale=0.5, size=(d, hidden)).astype(np.float32) if hidden else None,
        hidden_bias=rng.normal(size=hidden).astype(np.float32) if hidden else None,
        out=rng.normal(size=hidden).astype(np.float32) if hidden else None)


@pytest.mark.parametrize(("n", "hidden"), [(40, 0), (700, 0), (700, 4)])
def test_a_search_works_the_centred_cosines_out_for_its_candidates(n: int, hidden: int) -> None:
    """The search computes the centre's products for its candidates only (the rows the linear
    part ranks highest; every row of a short session), and its hits score as they would with
    every row's features worked out, which is what the ranker was trained on."""
    texts = [f"message number {i} about {'cats' if i % 7 else 'trains'}" for i in range(n)]
    own, keyed = _vectors(texts, 5), _vectors(texts, 6)
    index = build_session_index(list(range(n)), texts, ["a"] * n,
                                [10**18 + i for i in range(n)], keyed, own_vectors=own)
    ranker = _centred_ranker(1, hidden)
    assert ranker.centre is not None
    q = query_terms_of("trains")
    qv = own[3] + 0.5 * _vectors(["q"], 9)[0]
    full = ranker.probability(session_features(index, q, qv, now=2 * 10**18,
                                               centre=ranker.centre))
    lazy = session_features(index, q, qv, now=2 * 10**18, centre=ranker.centre,
                            candidates_only=True)
    assert np.isnan(lazy[:, FEATURES.index("ccos_own")]).all()
    assert np.isnan(lazy[:, FEATURES.index("cos_feedback")]).all()
    hits = rank_learned(index, q, qv, ranker, k=8, now=2 * 10**18)
    assert int(np.argmax(full)) in [h.id for h in hits]
    np.testing.assert_allclose([h.score for h in hits], full[[h.id for h in hits]], atol=1e-6)
