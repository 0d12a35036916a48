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
from memstrata.search._ranker import LearnedRanker, load_rankers, ranker_for

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
