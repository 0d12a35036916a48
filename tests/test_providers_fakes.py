"""FakeLLM, HashEmbedder and the registry: the deterministic parts users build tests on."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from memstrata.errors import InvalidInput, ProviderError
from memstrata.providers import (
    LLM,
    Embedder,
    FakeLLM,
    HashEmbedder,
    LocalEmbedder,
    OpenAIChat,
    ProviderSpec,
    Vectors,
    embedder_names,
    llm_names,
    make_embedder,
    make_llm,
    register_embedder,
)

# --- FakeLLM -----------------------------------------------------------------------------------


async def test_fake_llm_replies_in_order_and_records_calls() -> None:
    def shout(messages: list[dict[str, str]], system: str | None) -> str:
        return f"{system}:{messages[-1]['content'].upper()}"

    llm = FakeLLM(["first", ValueError("boom"), shout])
    assert isinstance(llm, LLM)
    reply = await llm.complete([{"role": "user", "content": "abcdefgh"}], max_tokens=5)
    assert (reply.text, reply.tokens_in, reply.tokens_out, reply.model) == ("first", 2, 2, "fake")
    with pytest.raises(ValueError, match="boom"):
        await llm.complete([{"role": "user", "content": "x"}])
    reply = await llm.complete([{"role": "user", "content": "hey"}], system="s", json_mode=True)
    assert reply.text == "s:HEY"
    assert len(llm.calls) == 3
    assert llm.calls[0].max_tokens == 5 and not llm.calls[0].json_mode
    assert llm.calls[2].system == "s" and llm.calls[2].json_mode
    assert llm.calls[2].messages == [{"role": "user", "content": "hey"}]
    assert llm.remaining == 0


async def test_fake_llm_exhausted_script_and_default() -> None:
    llm = FakeLLM()
    with pytest.raises(ProviderError, match="no scripted reply"):
        await llm.complete([{"role": "user", "content": "x"}])
    llm.add("later")
    assert (await llm.complete([])).text == "later"
    fallback = FakeLLM(["a"], default="b")
    texts = [(await fallback.complete([])).text for _ in range(3)]
    assert texts == ["a", "b", "b"]


async def test_fake_llm_from_the_registry_answers_json() -> None:
    llm = make_llm("fake")
    assert isinstance(llm, FakeLLM)
    assert (await llm.complete([{"role": "user", "content": "x"}], json_mode=True)).text == "{}"


# --- HashEmbedder ------------------------------------------------------------------------------


async def test_hash_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashEmbedder(32)
    assert isinstance(embedder, Embedder)
    texts = ["The cat sat on the mat", "", "!!!", "我今天很開心"]
    first = await embedder.embed(texts)
    second = await HashEmbedder(32).embed(texts)
    assert first.shape == (4, 32) and first.dtype == np.float32
    assert np.array_equal(first, second)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-6)
    assert embedder.model_id == "hash:32"
    # Pinned values: stored vectors must stay comparable across processes and releases.
    assert np.allclose(first[0][:6], [-0.599, 0.1634, 0.0, 0.0, 0.0, -0.3267], atol=1e-4)


async def test_hash_embedder_texts_sharing_words_are_closer() -> None:
    vectors = await HashEmbedder(256).embed([
        "my favourite food is spicy noodles",
        "spicy noodles are my favourite food",
        "the train to Berlin leaves at nine",
        "我喜歡吃辣的麵條",
        "辣的麵條我很喜歡",
    ])
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2] + 0.3
    assert sims[3, 4] > sims[3, 2] + 0.3


async def test_hash_embedder_empty_batch_and_bad_input() -> None:
    embedder = HashEmbedder()
    assert (await embedder.embed([])).shape == (0, 64)
    with pytest.raises(InvalidInput, match="single string"):
        await embedder.embed("a text")
    with pytest.raises(InvalidInput, match=r"texts\[1\]"):
        await embedder.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match="dim"):
        HashEmbedder(3)


# --- registry ----------------------------------------------------------------------------------


def test_registry_builds_the_built_ins_without_io() -> None:
    local = make_embedder("local")
    assert isinstance(local, LocalEmbedder) and not local.loaded
    assert (local.model_id, local.dim) == ("local:use-multilingual-v3", 512)
    assert make_embedder("local:e5-small").model_id == "local:e5-small"
    assert make_embedder("hash").model_id == "hash:64"
    assert make_embedder("hash:128").dim == 128
    assert make_embedder("openai").model_id == "openai:text-embedding-3-small@256"
    assert make_embedder("openai:text-embedding-3-large@1024").dim == 1024
    chat = make_llm("openai:llama3.1", base_url="http://127.0.0.1:11434/v1")
    assert isinstance(chat, OpenAIChat) and chat.model_id == "openai:llama3.1"
    assert make_llm("anthropic:claude-x").model_id == "anthropic:claude-x"
    assert {"hash", "local", "openai"} <= set(embedder_names())
    assert {"anthropic", "fake", "openai"} <= set(llm_names())


@pytest.mark.parametrize("name", ["nope", "nope:model", "", "hash:big", "hash:3", "local:unknown",
                                  "openai:text-embedding-3-small@x"])
def test_bad_embedder_names_are_invalid_input(name: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        make_embedder(name)
    assert caught.value.field == "embedder"


def test_unknown_llm_names_list_the_known_ones() -> None:
    with pytest.raises(InvalidInput, match=r"known: .*anthropic.*openai") as caught:
        make_llm("mystery:model")
    assert caught.value.field == "summary_model"
    with pytest.raises(InvalidInput) as caught:
        make_llm("openai", field="decision_model")
    assert caught.value.field == "decision_model"


class _Constant:
    """A third-party embedder: every text maps to the same unit vector."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.model_id = f"constant:{dim}"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        vectors[:, 0] = 1.0
        return vectors


async def test_third_party_embedders_register_like_built_ins() -> None:
    seen: list[ProviderSpec] = []

    def factory(spec: ProviderSpec) -> Embedder:
        seen.append(spec)
        return _Constant(int(spec.model or 4))

    register_embedder("constant", factory)
    embedder = make_embedder("constant:3", base_url="http://x", api_key="k")
    assert (await embedder.embed(["a"])).tolist() == [[1.0, 0.0, 0.0]]
    assert seen[0].model == "3" and seen[0].base_url == "http://x" and seen[0].api_key == "k"
    with pytest.raises(InvalidInput, match="prefix"):
        register_embedder("bad:prefix", factory)
