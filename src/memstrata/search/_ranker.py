"""The learned ranker: a logistic model over :mod:`memstrata.search._features`, with boosted
trees beside it for hybrid search (pure).

Its weights are trained offline by ``bench/train_ranker.py`` (cross-validated by conversation
on LoCoMo and on sets written for memstrata) and shipped in ``memstrata/data/ranker.json``, one
model per embedder and search mode. The output is calibrated on held-out conversations: it
estimates the probability that the message is relevant to the query, and that is
``Hit.score``.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ._features import FEATURES, JUDGE_FEATURES, SEMANTIC_FEATURES

__all__ = ["BEST_SHARE", "FUSION_FLOOR", "GATE_TOP", "HIT_FLOOR", "JUDGE_COLUMNS", "LEARNED_FLOOR",
           "RANKER_FILE", "Gate", "LearnedRanker", "Trees", "bent", "load_rankers", "log_odds",
           "probability_of", "ranker_for"]

FloatArray = npt.NDArray[np.float32]
RANKER_FILE = "ranker.json"

LEARNED_FLOOR: dict[str, float] = {"hybrid": 0.0045, "semantic": 0.004}
"""The probability the best hit of a search needs by default (``Settings.search_min_score``
unset), per mode; when it falls short the search returns nothing. Chosen from the
out-of-fold curve of ``bench/train_ranker.py`` as the lowest floor (in steps of 0.0005) at
which at least 95 % of searches about subjects a conversation never touches return nothing:
95.5 % in hybrid mode, 95.9 % in semantic mode. Questions in a conversation's own words about
a thing it never mentions (another pet's name, a trip never taken) are harder: 52.2 % /
60.2 % of them return nothing at these floors (docs/benchmarks.md). A ranker with an answer
gate (:class:`Gate`: the shipped hybrid one) decides by it instead, which returns nothing for
53.8 % of those in hybrid mode. A floor the caller sets applies to every hit instead. These are
the default model's: a ranker trained for another embedder names its own floor where that
model's probabilities need another (:attr:`LearnedRanker.floor`)."""
BEST_SHARE: dict[str, float] = {"hybrid": 0.02, "semantic": 0.05}
"""... and by default, the other hits need at least this share of the best hit's probability
(or a rare query word of their own, or nearly the query's words, and the floor), and
:data:`HIT_FLOOR`: it keeps the filler beside a clear fact out. Semantic: chosen out of fold as
the smallest share (in steps of 0.01) whose matched hits are at least as precise, and no more
numerous, as with the floor on every hit. Hybrid: the share (in steps of 0.01) with the most
recall at the default whose matched hits stay at least as precise as those of the ranker
shipped before it (12.4 % of LoCoMo's first ten hits); its ranker is surer of its best hit,
so a smaller share keeps as much out (docs/benchmarks.md)."""
HIT_FLOOR = 0.003
"""The probability every hit needs under the default floor: a search whose best hit barely
reaches :data:`LEARNED_FLOOR` would otherwise let through whatever is within a share of it.
At 0.001, short filler beside a fact (``了解。``, at 0.002, after an allergy the query asks
about: tests/test_ranking_cases.py) came back as a match."""
FUSION_FLOOR = 0.2
"""The similarity a hit needs by default under the hand-tuned fusion."""


GATE_TOP = 5
"""How many of a search's best hits the answer gate reads the closest cosine of."""


JUDGE_COLUMNS = tuple(FEATURES.index(name) for name in JUDGE_FEATURES)
"""The columns of a hybrid search's features that its answer gate's judge reads."""


@dataclass(frozen=True)
class Gate:
    """Whether a search has an answer, by default: the best hit's log-odds plus
    ``per_cosine`` times the highest ``feature`` (a cosine of the query with the message)
    among the best ``top`` hits must reach ``offset``. Put another way, the probability the
    best hit needs, :meth:`floor`, is lower when a hit near the top is close to the query in
    meaning, and higher when none is: a question in a conversation's own words about a thing
    it never mentions finds probable messages about the same kind of thing, but none as close
    as an answer. Fitted and chosen by ``bench/train_ranker.py`` (docs/benchmarks.md).

    With a ``judge``, the log-odds are the judge's (the highest among the best ``top``
    hits), not the ranker's: a model over the features of a message's own evidence only
    (:data:`JUDGE_FEATURES`), which never compares a message with the others searched. The
    ranker that orders the hits compares them (the best of a search stands out even when
    the search has no answer), so it says which hit is best, and the judge whether the best
    are answers at all.

    ``more`` weighs further features the same way, each read as its highest among the best
    ``top`` hits: how much of the query's words a hit holds (``cov_scope``) and whether it
    holds a rare one (``rare_own``). A line of recent dialogue about a thing a memory
    records ("any ideas for the kids this weekend?") may be no closer to that memory in
    meaning than an unrelated question is to something, but it shares its words."""

    offset: float
    per_cosine: float
    feature: str = "ccos_own"
    top: int = GATE_TOP
    judge: LearnedRanker | None = field(default=None, compare=False, repr=False)
    """(Left out of ``==``: its weights are arrays; compare :meth:`to_json` instead.)"""
    more: tuple[tuple[str, float], ...] = ()
    """``(feature, weight)`` pairs: each adds its weight times the feature's highest value
    among the best ``top`` hits to the best log-odds."""

    @property
    def features(self) -> tuple[str, ...]:
        """The features the gate reads of the best hits, besides the log-odds: ``feature``
        first, then those of ``more``."""
        return (self.feature, *(name for name, _ in self.more))

    def answers(self, best_logit: float, cosine: float, more: tuple[float, ...] = ()) -> bool:
        """Whether a search whose best hit has log-odds ``best_logit``, whose closest of the
        best ``top`` hits has ``cosine``, and whose best hits' highest values of the ``more``
        features are ``more`` (0 each where not given), has an answer."""
        return best_logit + self.per_cosine * cosine + self._more(more) >= self.offset

    def floor(self, cosine: float, more: tuple[float, ...] = ()) -> float:
        """The probability the best hit needs when the closest cosine is ``cosine`` (and the
        ``more`` features' highest values are ``more``: 0 each where not given)."""
        return probability_of(self.offset - self.per_cosine * cosine - self._more(more))

    def _more(self, values: tuple[float, ...]) -> float:
        if len(values) > len(self.more):
            raise ValueError(f"the answer gate reads {len(self.more)} more features, "
                             f"not {len(values)}")
        return sum(weight * value for (_, weight), value in zip(self.more, values, strict=False))

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"offset": self.offset, "per_cosine": self.per_cosine,
                                "feature": self.feature, "top": self.top}
        if self.more:
            body["more"] = [[name, weight] for name, weight in self.more]
        if self.judge is not None:
            body["judge"] = self.judge.to_json()
        return body

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Gate:
        judge = LearnedRanker.from_json(raw["judge"]) if "judge" in raw else None
        return cls(offset=float(raw["offset"]), per_cosine=float(raw["per_cosine"]),
                   feature=str(raw["feature"]), top=int(raw["top"]), judge=judge,
                   more=tuple((str(name), float(weight))
                              for name, weight in raw.get("more", ())))


_Logits = TypeVar("_Logits", npt.NDArray[np.float32], npt.NDArray[np.float64])


def bent(logits: _Logits, bends: tuple[tuple[float, float], ...]) -> _Logits:
    """``logits`` with :attr:`LearnedRanker.bends` applied, in their own precision (a search's
    are single, the training's double): each adds its ``change`` times the excess of the
    (unbent) log-odds over its ``knot``."""
    kind = logits.dtype.type
    out = logits.copy()
    for knot, change in bends:
        out += kind(change) * np.maximum(logits - kind(knot), kind(0.0))
    return out


def log_odds(probability: float) -> float:
    """The log-odds of a probability (clipped away from 0 and 1)."""
    p = min(max(probability, 1e-12), 1.0 - 1e-12)
    return math.log(p / (1.0 - p))


def probability_of(logit: float) -> float:
    """The probability of log-odds, clipped to +-30 as :meth:`LearnedRanker.probability`
    clips them."""
    return 1.0 / (1.0 + math.exp(-min(max(logit, -30.0), 30.0)))


@dataclass(frozen=True)
class Trees:
    """Boosted regression trees over standardised features, added to the logistic score:
    complete binary trees of one depth, node ``i``'s children at ``2i + 1`` (feature at or
    below the threshold) and ``2i + 2`` (above)."""

    features: npt.NDArray[np.int16]  # (trees, 2^depth - 1)
    thresholds: FloatArray  # (trees, 2^depth - 1)
    leaves: FloatArray  # (trees, 2^depth)

    def __post_init__(self) -> None:
        count, inner = self.features.shape
        if (self.thresholds.shape != (count, inner)
                or self.leaves.shape != (count, inner + 1)
                or (inner + 1) & inner):
            raise ValueError("the ranker's trees are malformed: "
                             f"{self.features.shape}, {self.thresholds.shape}, "
                             f"{self.leaves.shape}")

    def __call__(self, z: FloatArray) -> FloatArray:
        """The trees' sum for each row of ``z``."""
        count, inner = self.features.shape
        n = z.shape[0]
        if not n or not count:
            return np.zeros(n, dtype=np.float32)
        rows = np.arange(n)[:, None]
        cols = np.arange(count)[None, :]
        node = np.zeros((n, count), dtype=np.intp)
        for _ in range(inner.bit_length()):
            go = z[rows, self.features[cols, node]] > self.thresholds[cols, node]
            node = 2 * node + 1 + go
        out: FloatArray = self.leaves[cols, node - inner].sum(axis=1, dtype=np.float32)
        return out

    def scaled(self, by: float) -> Trees:
        return Trees(self.features, self.thresholds,
                     np.round(self.leaves * by, 5).astype(np.float32))

    def to_json(self) -> dict[str, Any]:
        return {"features": self.features.tolist(),
                "thresholds": [[float(v) for v in row] for row in self.thresholds],
                "leaves": [[float(v) for v in row] for row in self.leaves]}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Trees:
        return cls(np.asarray(raw["features"], dtype=np.int16),
                   np.asarray(raw["thresholds"], dtype=np.float32),
                   np.asarray(raw["leaves"], dtype=np.float32))


@dataclass(frozen=True)
class LearnedRanker:
    """``p = sigmoid(bends(bias + z @ weights + tanh(z @ hidden + hidden_bias) @ out +
    trees(z)))`` per message, where ``z = (x - mean) / scale`` are its standardised features:
    a logistic model with, optionally, one small hidden layer or boosted trees beside it, and
    a calibration that bends above its knots (:attr:`bends`)."""

    mode: str
    features: tuple[str, ...]
    mean: FloatArray
    scale: FloatArray
    weights: FloatArray
    bias: float
    hidden: FloatArray | None = None
    hidden_bias: FloatArray | None = None
    out: FloatArray | None = None
    trees: Trees | None = None
    centre: FloatArray | None = None
    """The embedder's mean vector over the training messages, which the centred cosines
    take from the query's and the messages' vectors (hybrid only; ``None``: the zero vector,
    so they are the plain cosines)."""
    gate: Gate | None = None
    """Whether a search has an answer under the default floor (``None``: its best hit needs
    :attr:`best_floor`)."""
    floor: float | None = None
    """The probability the best hit needs by default, chosen for this ranker's embedder
    (``None``: :data:`LEARNED_FLOOR` of its mode). A model whose best hit of a search about
    nothing said sits surer needs a floor of its own to stop as many such searches."""
    bends: tuple[tuple[float, float], ...] = ()
    """The calibration's bends: ``(knot, change)`` pairs, knots rising, each adding ``change``
    times the log-odds' excess over ``knot`` (:meth:`logits`). One straight calibration
    fitted over every message of a search is right where nearly all of them are (the
    improbable ones) and over-sure at the top, where the best of each search is; the bends
    flatten the map above their knots so that a probability of 0.7 is right about 7 times in
    10 there too. Below the first knot nothing moves. Every slope stays positive, so the
    order of the hits is kept."""

    def __post_init__(self) -> None:
        expected = {"semantic": SEMANTIC_FEATURES, "judge": JUDGE_FEATURES}.get(self.mode,
                                                                               FEATURES)
        if self.features != expected:
            raise ValueError(f"the {self.mode} ranker's features do not match this version: "
                             f"{self.features} != {expected}")
        if self.floor is not None and not 0.0 < self.floor < 1.0:
            raise ValueError(f"the {self.mode} ranker's floor must be a probability between "
                             f"0 and 1, not {self.floor}")
        knots = [knot for knot, _ in self.bends]
        slopes = np.cumsum([1.0] + [change for _, change in self.bends])
        if knots != sorted(set(knots)) or bool((slopes <= 0.0).any()):
            raise ValueError(f"the {self.mode} ranker's bends must have rising knots and keep "
                             f"every slope positive: {self.bends}")
        unknown = [] if self.gate is None else [
            name for name in self.gate.features if name not in self.features]
        if unknown:
            raise ValueError(f"the {self.mode} ranker's answer gate reads an unknown feature: "
                             f"{unknown[0]!r}")
        if self.gate is not None and self.gate.judge is not None and (
                self.mode != "hybrid" or self.gate.judge.mode != "judge"):
            raise ValueError(f"the {self.mode} ranker's answer gate has a judge of mode "
                             f"{self.gate.judge.mode!r}: only a hybrid ranker's gate has one, "
                             "of mode 'judge'")

    @property
    def best_floor(self) -> float:
        """The probability the best hit needs by default: where there is an answer gate,
        the one a hit holding a rare query word needs."""
        return LEARNED_FLOOR[self.mode] if self.floor is None else self.floor

    def judged(self, x: FloatArray) -> FloatArray | None:
        """The answer gate's judge's log-odds for each row of ``x`` (this ranker's features),
        or ``None`` when the gate has no judge."""
        if self.gate is None or self.gate.judge is None:
            return None
        return self.gate.judge.logits(np.ascontiguousarray(x[:, JUDGE_COLUMNS]))

    @functools.cached_property
    def _folded(self) -> tuple[FloatArray, np.float32]:
        """The linear part with the standardisation folded in: ``x @ w + b``."""
        w = (self.weights.astype(np.float64) / self.scale.astype(np.float64))
        b = float(self.bias) - float(self.mean.astype(np.float64) @ w)
        return w.astype(np.float32), np.float32(b)

    def linear(self, x: FloatArray) -> FloatArray:
        """The linear part of the log-odds for each row of ``x``."""
        w, b = self._folded
        out: FloatArray = (x @ w + b).astype(np.float32, copy=False)
        return out

    def logits(self, x: FloatArray, refine: int | None = None, *,
               linear: FloatArray | None = None) -> FloatArray:
        """The model's log-odds for each row of ``x``. With ``refine``, the trees (when the
        model has any) are added to the ``refine`` rows the linear part ranks highest only:
        the others keep the linear log-odds (a search reads only the best few). ``linear``:
        :meth:`linear` of ``x``, when the caller has it already (the rest is added to it in
        place)."""
        out = self.linear(x) if linear is None else linear
        if (self.hidden is not None and self.hidden_bias is not None
                and self.out is not None):
            z = (x - self.mean) / self.scale
            out += (np.tanh(z @ self.hidden + self.hidden_bias) @ self.out).astype(np.float32)
        if self.trees is not None:
            if refine is None or refine >= out.shape[0]:
                out += self.trees((x - self.mean) / self.scale)
            elif refine > 0:
                rows = np.argpartition(-out, refine - 1)[:refine]
                out[rows] += self.trees((x[rows] - self.mean) / self.scale)
        if self.bends:
            out[:] = bent(out, self.bends)
        return out

    def probability(self, x: FloatArray, refine: int | None = None, *,
                    linear: FloatArray | None = None) -> FloatArray:
        z = np.clip(self.logits(x, refine, linear=linear), -30.0, 30.0)
        out: FloatArray = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        return out

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "mode": self.mode, "features": list(self.features),
            "mean": [float(v) for v in self.mean], "scale": [float(v) for v in self.scale],
            "weights": [float(v) for v in self.weights], "bias": float(self.bias)}
        if self.hidden is not None and self.hidden_bias is not None and self.out is not None:
            body["hidden"] = [[float(v) for v in row] for row in self.hidden]
            body["hidden_bias"] = [float(v) for v in self.hidden_bias]
            body["out"] = [float(v) for v in self.out]
        if self.trees is not None:
            body["trees"] = self.trees.to_json()
        if self.centre is not None:
            body["centre"] = [float(v) for v in self.centre]
        if self.gate is not None:
            body["gate"] = self.gate.to_json()
        if self.floor is not None:
            body["floor"] = self.floor
        if self.bends:
            body["bends"] = [[knot, change] for knot, change in self.bends]
        return body

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> LearnedRanker:
        def array(name: str) -> FloatArray | None:
            return None if name not in raw else np.asarray(raw[name], dtype=np.float32)

        if raw["mode"] == "hybrid" and "ccos_own" in raw["features"] and "centre" not in raw:
            raise ValueError("the hybrid ranker's centred cosines need its centre vector")

        return cls(mode=str(raw["mode"]), features=tuple(raw["features"]),
                   mean=np.asarray(raw["mean"], dtype=np.float32),
                   scale=np.asarray(raw["scale"], dtype=np.float32),
                   weights=np.asarray(raw["weights"], dtype=np.float32),
                   bias=float(raw["bias"]), hidden=array("hidden"),
                   hidden_bias=array("hidden_bias"), out=array("out"),
                   trees=Trees.from_json(raw["trees"]) if "trees" in raw else None,
                   centre=array("centre"),
                   gate=Gate.from_json(raw["gate"]) if "gate" in raw else None,
                   floor=float(raw["floor"]) if "floor" in raw else None,
                   bends=tuple((float(knot), float(change))
                               for knot, change in raw.get("bends", ())))


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
