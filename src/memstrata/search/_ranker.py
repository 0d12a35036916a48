"""The learned ranker: a logistic model over :mod:`memstrata.search._features` (pure).

Its weights are trained offline by ``bench/train_ranker.py`` (cross-validated by conversation
on LoCoMo and on sets written for memstrata) and shipped in ``memstrata/data/ranker.json``, one
model per embedder and search mode. The output is calibrated on held-out conversations: it
estimates the probability that the message is relevant to the query, and that is
``Hit.score``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ._features import FEATURES, SEMANTIC_FEATURES

__all__ = ["RANKER_FILE", "LearnedRanker", "load_rankers", "ranker_for"]

FloatArray = npt.NDArray[np.float32]
RANKER_FILE = "ranker.json"


@dataclass(frozen=True)
class LearnedRanker:
    """``p = sigmoid(bias + sum(weights * (x - mean) / scale))`` per message."""

    mode: str
    features: tuple[str, ...]
    mean: FloatArray
    scale: FloatArray
    weights: FloatArray
    bias: float

    def __post_init__(self) -> None:
        expected = SEMANTIC_FEATURES if self.mode == "semantic" else FEATURES
        if self.features != expected:
            raise ValueError(f"the {self.mode} ranker's features do not match this version: "
                             f"{self.features} != {expected}")

    def logits(self, x: FloatArray) -> FloatArray:
        out: FloatArray = (((x - self.mean) / self.scale) @ self.weights
                           + np.float32(self.bias)).astype(np.float32)
        return out

    def probability(self, x: FloatArray) -> FloatArray:
        z = np.clip(self.logits(x), -30.0, 30.0)
        out: FloatArray = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "features": list(self.features),
                "mean": [float(v) for v in self.mean], "scale": [float(v) for v in self.scale],
                "weights": [float(v) for v in self.weights], "bias": float(self.bias)}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> LearnedRanker:
        return cls(mode=str(raw["mode"]), features=tuple(raw["features"]),
                   mean=np.asarray(raw["mean"], dtype=np.float32),
                   scale=np.asarray(raw["scale"], dtype=np.float32),
                   weights=np.asarray(raw["weights"], dtype=np.float32),
                   bias=float(raw["bias"]))


def parse_rankers(raw: dict[str, Any]) -> dict[tuple[str, str], LearnedRanker]:
    """``{(embedder model id, mode): ranker}`` from the shipped file's JSON."""
    out = {}
    for model_id, modes in raw["models"].items():
        for mode, body in modes.items():
            out[model_id, mode] = LearnedRanker.from_json(body)
    return out


@functools.cache
def load_rankers() -> dict[tuple[str, str], LearnedRanker]:
    """The shipped rankers (read once per process)."""
    text = resources.files("memstrata").joinpath("data", RANKER_FILE).read_text("utf-8")
    return parse_rankers(json.loads(text))


def ranker_for(model_id: str, mode: str) -> LearnedRanker | None:
    """The shipped ranker for an embedder and mode (``hybrid`` or ``semantic``), if any."""
    return load_rankers().get((model_id, mode))
