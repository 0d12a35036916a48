"""``HashEmbedder``: a deterministic embedder with no model, for tests and for trying things out.

Texts are turned into word, character-trigram and CJK-bigram features, each hashed (signed) into
one of ``dim`` buckets. Texts that share words therefore point in similar directions, which is
enough for tests of ranking code; it knows nothing about meaning or synonyms.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidInput
from ._base import Vectors
from ._batching import check_texts, normalise_rows

__all__ = ["HashEmbedder"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
# Whole words say the most; trigrams let "embedder"/"embedders" overlap a little.
_WORD_WEIGHT = 1.0
_GRAM_WEIGHT = 0.3


class HashEmbedder:
    """Deterministic bag-of-features vectors of ``dim`` dimensions (same text, same vector,
    in every process and on every platform)."""

    def __init__(self, dim: int = 64) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or not 8 <= dim <= 4096:
            raise InvalidInput("dim", f"must be an integer from 8 to 4096, got {dim!r}")
        self.dim = dim
        self.model_id = f"hash:{dim}"

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self.dim})"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        matrix = np.zeros((len(items), self.dim), dtype=np.float32)
        for row, text in enumerate(items):
            self._fill(matrix[row], text)
        return normalise_rows(matrix, dim=self.dim, provider=self.model_id)

    def _fill(self, row: Vectors, text: str) -> None:
        lowered = text.lower()
        features: list[tuple[str, float]] = []
        for word in _WORD.findall(lowered):
            if _CJK.fullmatch(word):
                continue
            features.append(("w:" + word, _WORD_WEIGHT))
            padded = f"^{word}$"
            features.extend(("g:" + padded[i:i + 3], _GRAM_WEIGHT)
                            for i in range(len(padded) - 2))
        for run in _CJK.findall(lowered):
            # CJK text has no spaces: single characters and overlapping pairs stand in for words.
            features.extend(("c:" + ch, _GRAM_WEIGHT) for ch in run)
            features.extend(("w:" + run[i:i + 2], _WORD_WEIGHT) for i in range(len(run) - 1))
        if not features:
            # Empty or punctuation-only text still gets a unit vector, the same one every time.
            features.append(("empty:", 1.0))
        for feature, weight in features:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            row[(value >> 1) % self.dim] += sign * weight
