"""The learned ranker's parts: features that do not depend on what else is searched, the
shipped weights, and the switch back to the hand-tuned fusion."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memstrata import InvalidInput, Memory, Settings
from memstrata.providers import HashEmbedder
from memstrata.search._features import FEATURES, SEMANTIC_FEATURES, query_terms_of
from memstrata.search._fusion import build_session_index, session_features
from memstrata.search._ranker import LearnedRanker, Trees, load_rankers, ranker_for

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
                                   "花生", "nothing here at all"])
def test_a_message_has_the_same_features_alone_or_beside_other_sessions(query: str) -> None:
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
        assert side.shape == (len(texts), len(SEMANTIC_FEATURES if semantic else FEATURES))
        np.testing.assert_allclose(side, alone, atol=1e-6)


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
                         bias=0.0, trees=trees)


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
