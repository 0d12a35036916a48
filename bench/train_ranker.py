"""Train the learned ranker, cross-validated by conversation, and write its shipped weights.

    python bench/train_ranker.py                  # measure (5 folds by conversation) and write
                                                  # src/memstrata/data/ranker.json
    python bench/train_ranker.py --check          # measure, and fail unless the file written
                                                  # would equal the shipped one
    python bench/train_ranker.py --embedder e5-small   # the same for local:e5-small (each
                                                  # embedder's entry is written beside the
                                                  # others'; --check checks the one trained)
    python bench/train_ranker.py --held-out       # ... and report the shipped model's recall
                                                  # on the held-out set (never trained on)
    python bench/train_ranker.py --without ccos_own,ccos_key --no-write   # an ablation

The data: LoCoMo dev6 and its observations (``../shared/bench-data``, read at run time), the
sets under ``bench/data/`` and the training half of ``_offtopic.py`` (queries with no relevant
message). The near-topic questions of ``_offtopic_near.py`` (a conversation's own words about
a thing it never mentions) are measured beside them; ``--off-topic near`` or ``both`` trains
on their training half too (measured: better recall, but short personal queries lose
probability and filler becomes a hit in the ranking tests, so the shipped model does not).
Every figure printed is out of fold: each conversation is scored by a model trained on the
other folds only; the shipped model is then trained on everything. The same conversations
kept session by session (``_sets.LAYOUTS``: ``--layouts``) are scored the same way, by the
models of their conversation's fold, and never trained on.

The model is a logistic regression over ``memstrata.search._features``, one for hybrid search
and one for semantic search, fitted by damped Newton's method (deterministic) on a pointwise
log loss (absolute scores) plus :data:`LISTWISE` times a listwise softmax loss per question
(the ranking within a question); every set weighs the same, and within a set every question.
Negatives are subsampled with a fixed seed. For hybrid search :data:`TREES` regression trees
(``_boost.py``) are then boosted on the same loss from the logistic scores. A last
one-dimensional logistic fit on the out-of-fold scores (every message of every question,
unweighted) makes the output a calibrated probability, and is folded into the shipped weights
and leaves; above two fixed knots the calibration then bends (:func:`fit_bends`, the same rows),
where a straight one is over-sure (the judge of the answer gate keeps it straight: the gate's
offset is fitted on its log-odds). A ranker without an answer gate (semantic search) gets the
floor on its best hit chosen for its embedder (:func:`chosen_floor`). Beside recall, it reports
the precision of the matched hits at the default floor.
``--hidden N`` adds N tanh units beside the linear part (measured: no better, so the shipped
model has none).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import pickle
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from _boost import BoostParams, boost
from _offtopic import OFF_TOPIC_EVAL, OFF_TOPIC_TRAIN
from _offtopic_near import near_topic_for
from _rankdata import EmbedCache, Query, centre_of, prepare
from _sets import LAYOUTS, SETS, Conv, load_held_out, load_sets
from threadpoolctl import threadpool_info, threadpool_limits

from memstrata.providers import LocalEmbedder
from memstrata.search._features import FEATURES, JUDGE_FEATURES, SEMANTIC_FEATURES
from memstrata.search._fusion import vector_model
from memstrata.search._ranker import (
    BEST_SHARE,
    GATE_TOP,
    HIT_FLOOR,
    JUDGE_COLUMNS,
    LEARNED_FLOOR,
    RANKER_FILE,
    Gate,
    LearnedRanker,
    Trees,
    bent,
    log_odds,
)

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "src" / "memstrata" / "data" / RANKER_FILE
FOLDS = 5
KS = (1, 5, 10)
L2 = 1.0
HIDDEN = 0
TREES = 100
# Boosted trees of the answer gate's judge, apart from the ranker's: ``--trees`` then tries
# another ranker without moving whether a search answers.
JUDGE_TREES = 100
DEPTH = 3
# Boosted trees of the semantic ranker: none. 40 lifted every set's out-of-fold R@5 to or
# above plain cosine, but at the default floor the held-out set's semantic R@5 fell from 76.1
# to 60.9 (docs/benchmarks.md, "Trees for semantic search").
SEMANTIC_TREES = 0
LISTWISE = 3.0
SEED = 20261202
KEEP = 0.25
EPOCHS = 6
BATCH = 4096
LEARNING_RATE = 3e-3
L2_HIDDEN = 1e-4
OFF_TOPIC_SHARE = 1.0
"""The far off-topic training queries of a set weigh this share of its questions together
(measured: a full share, against a quarter, lifts recall both with the floor and without it,
and abstention at the floor)."""
NEAR_SHARE = 0.25
OFF_TOPIC_TRAINING: tuple[str, ...] = ("train",)
"""The off-topic splits the ranker is trained on (``--off-topic``): far (``_offtopic.py``)
and near (``_offtopic_near.py``); their eval halves are only measured."""
GATE_FEATURE = "ccos_own"
"""What the answer gate reads of the best hits (hybrid search only). Measured: the plain
own-text cosine, in both modes, lowered the held-out set's R@5 at the gate (docs)."""
GATE_MORE: tuple[str, ...] = ("cov_scope", "rare_own")
"""... and further: how much of the query's words the best hits hold, weighed among all the
messages searched, and whether one holds a rare one (docs/benchmarks.md, "The answer gate
reads the query's words")."""
GATE_NEGATIVES: tuple[str, ...] = ("train", "near-train")
"""The off-topic splits the answer gate is fitted against: far and near. With words of the
best hits among its inputs, the far queries alone (which share no word with the
conversation) would teach it that any shared word is an answer."""
ANSWERS: dict[str, list[bool]] = {}
"""Per mode, whether each search answers under the out-of-fold answer gate (set by main)."""
FLOOR: dict[str, float] = dict(LEARNED_FLOOR)
"""Per mode, the probability the best hit needs by default for the embedder trained (set by
main: see :func:`chosen_floor`)."""
FLOOR_STEP = 0.0005
QUIET_SHARE = 0.95
"""The share of far off-topic evaluation searches the default floor must return nothing for."""
FLOORS = (0.002, 0.003, 0.0035, 0.004, 0.0045, 0.005, 0.006, 0.008, 0.01, 0.015, 0.02,
          0.03, 0.05, 0.1)
FloatArray = npt.NDArray[np.float64]
BLAS_KERNELS = "SkylakeX"
"""The OpenBLAS kernels the shipped weights were made with, which training pins
(``OPENBLAS_CORETYPE``) wherever the processor can run them. OpenBLAS picks its kernels by
the processor, and they round differently: on an AMD processor with AVX-512 it picks its
``Haswell`` ones, on an Intel one ``SkylakeX``, and the model's vector of a text then differs
in its last bits (1.2e-7 measured), the mean vector at its fifth decimal and every weight
with it. With the kernels pinned, both give the same bytes."""
_AVX512 = ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")
"""The processor flags the :data:`BLAS_KERNELS` need."""


def _can_run_pinned() -> bool:
    try:
        text = Path("/proc/cpuinfo").read_text("ascii", errors="replace")
    except OSError:
        return False
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("flags")), [])
    return all(f in flags for f in _AVX512)


def pin_blas_kernels() -> str:
    """Start this script again with :data:`BLAS_KERNELS` pinned, when it was not started so
    and the processor can run them; returns the kernels in use (a note on standard error when
    they are other ones: the weights written may then differ from the shipped ones in their
    last bits)."""
    if os.environ.get("OPENBLAS_CORETYPE") != BLAS_KERNELS and _can_run_pinned():
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv,
                  {**os.environ, "OPENBLAS_CORETYPE": BLAS_KERNELS})
    kernels = sorted({str(i.get("architecture")) for i in threadpool_info()
                      if i.get("internal_api") == "openblas"})
    if kernels != [BLAS_KERNELS]:
        print(f"note: BLAS kernels {', '.join(kernels) or 'unknown'}, not {BLAS_KERNELS}: the "
              "weights may differ from the shipped ones in their last bits", file=sys.stderr)
    return "-".join(kernels) or "unknown"


def folds_of(convs: Sequence[Conv]) -> list[int]:
    """A fold per conversation: within each set, conversations in id order dealt in turn."""
    seen: dict[str, int] = defaultdict(int)
    out = []
    for c in convs:
        out.append(seen[c.set_name] % FOLDS)
        seen[c.set_name] += 1
    return out


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    return out


def fit_logistic(x: FloatArray, y: FloatArray, w: FloatArray, l2: float,
                 iterations: int = 30) -> tuple[FloatArray, float]:
    """Weighted L2-regularised logistic regression by Newton's method (the bias is not
    regularised). Returns (weights, bias)."""
    n, d = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(iterations):
        p = _sigmoid(a @ beta)
        grad = a.T @ (w * (p - y)) + reg * beta
        h = (a * (w * p * (1 - p))[:, None]).T @ a + np.diag(reg) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(h, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return beta[:-1], float(beta[-1])


def fit_combined(x: FloatArray, y: FloatArray, w: FloatArray, starts: npt.NDArray[np.int64],
                 listwise: npt.NDArray[np.bool_], l2: float, weight: float,
                 row_weight: FloatArray, query_weight: FloatArray,
                 iterations: int = 15) -> tuple[FloatArray, float]:
    """Newton's method on the pointwise log loss (weights ``w``: absolute, calibratable
    scores) plus ``weight`` times a listwise loss: for each question that has evidence (its
    rows ``starts[q]:starts[q+1]``), minus the mean log-softmax of its evidence rows among
    its rows (ranking within a question). The bias is not regularised."""
    n, d = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    ends = np.append(starts[1:], n)
    qid = np.repeat(np.arange(len(starts)), ends - starts)
    pos_count = np.add.reduceat(y, starts)
    use = listwise & (pos_count > 0)
    weight_q = weight * np.asarray(query_weight, dtype=np.float64)
    qweight = np.where(use, weight_q / np.maximum(pos_count, 1), 0.0)  # per evidence row
    # Rows drawn with probability ``keep`` stand for 1/keep rows in the softmax too.
    rows_on = use[qid] * row_weight

    def loss(b: FloatArray) -> float:
        s = a @ b
        point = float(np.sum(w * (np.logaddexp(0, s) - y * s)))
        top = np.maximum.reduceat(s, starts)
        part = np.log(np.maximum(np.add.reduceat(np.exp(s - top[qid]) * rows_on, starts),
                                 1e-300)) + top
        pos = np.add.reduceat(s * y * qweight[qid], starts)
        listwise_loss = float(np.sum(np.where(use, weight_q * part, 0.0) - pos))
        return point + listwise_loss + 0.5 * float(np.sum(reg * b * b))

    current = loss(beta)
    for _ in range(iterations):
        s = a @ beta
        p = _sigmoid(s)
        grad = a.T @ (w * (p - y)) + reg * beta
        h = (a * (w * p * (1 - p))[:, None]).T @ a + np.diag(reg) + 1e-9 * np.eye(d + 1)
        # listwise part (the bias cancels in a softmax; its column is constant)
        top = np.maximum.reduceat(s, starts)
        e = np.exp(s - top[qid]) * rows_on
        total = np.add.reduceat(e, starts)
        soft = e / np.where(total > 0, total, 1.0)[qid]
        qw = (weight_q * use)[qid]
        mean_x = np.add.reduceat(a * soft[:, None], starts)  # per question
        pos_x = np.add.reduceat(a * (y * qweight[qid])[:, None], starts)
        grad += (weight_q * use)[:, None].T.dot(mean_x).ravel() - pos_x.sum(axis=0)
        h += (a * (soft * qw)[:, None]).T @ a - (mean_x * (weight_q * use)[:, None]).T @ mean_x
        step = np.linalg.solve(h, grad)
        # Damped: halve the step until the loss goes down (a softmax is no quadratic).
        for _ in range(30):
            trial = beta - step
            value = loss(trial)
            if value <= current:
                break
            step = step / 2
        else:
            break
        beta, current = trial, value
        if float(np.abs(step).max()) < 1e-9:
            break
    return beta[:-1], float(beta[-1])


def trains(q: Query) -> bool:
    """Whether ``q`` may be trained on: a question, or an off-topic query of a split in
    :data:`OFF_TOPIC_TRAINING`."""
    return not q.off_topic or q.off_topic in OFF_TOPIC_TRAINING


def query_weights(queries: Sequence[Query]) -> FloatArray:
    """Each question's weight in the fit: every set weighs the same, and within a set every
    question (whatever the length of its conversation); the far off-topic queries of a set
    weigh :data:`OFF_TOPIC_SHARE` of its questions together, the near ones
    :data:`NEAR_SHARE`."""
    questions: dict[str, int] = defaultdict(int)
    off: dict[tuple[str, str], int] = defaultdict(int)
    for q in queries:
        if q.off_topic:
            off[q.set_name, q.off_topic] += 1
        else:
            questions[q.set_name] += 1
    per_set = sum(questions.values()) / max(len(questions), 1)

    def share(q: Query) -> float:
        if not q.off_topic:
            return 1.0 / questions[q.set_name]
        whole = NEAR_SHARE if q.off_topic.startswith("near") else OFF_TOPIC_SHARE
        return whole / max(off[q.set_name, q.off_topic], 1)

    return np.asarray([per_set * share(q) for q in queries])


def _starts(queries: Sequence[Query]) -> npt.NDArray[np.int64]:
    sizes = [q.hybrid.shape[0] for q in queries]
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def matrix(q: Query, mode: str) -> npt.NDArray[np.float32]:
    """``q``'s feature rows as the ``mode`` model reads them: a hybrid search's, the answer
    gate's judge's (:data:`JUDGE_FEATURES`, columns of the hybrid ones) or a semantic
    search's."""
    if mode == "judge":
        return np.ascontiguousarray(q.hybrid[:, JUDGE_COLUMNS])
    return q.hybrid if mode == "hybrid" else q.semantic


def _stack(queries: Sequence[Query], mode: str) -> tuple[FloatArray, FloatArray, FloatArray]:
    xs = [np.asarray(matrix(q, mode), np.float64) for q in queries]
    ys = [q.labels.astype(np.float64) for q in queries]
    ws = [np.full(len(y), weight / max(len(y), 1)) for weight, y
          in zip(query_weights(queries), ys, strict=True)]
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)


def fit_hidden(z: FloatArray, y: FloatArray, w: FloatArray, coef: FloatArray, bias: float,
               ) -> tuple[FloatArray, float, FloatArray, FloatArray, FloatArray]:
    """The logistic model (started from ``coef``, ``bias``) with :data:`HIDDEN` tanh units
    beside it, fitted together by mini-batch Adam on the weighted log loss with L2.

    Deterministic: a fixed seed for the start and the batches, one BLAS thread. Negatives are
    subsampled (each kept with probability :data:`KEEP`, weighed up by its inverse) so a fit
    takes seconds; positives are all kept."""
    rng = np.random.default_rng(SEED)
    keep = (y > 0) | (rng.random(len(y)) < KEEP)
    z, y, w = z[keep], y[keep], np.where(y[keep] > 0, w[keep], w[keep] / KEEP)
    w = w / w.mean()
    d = z.shape[1]
    params = [coef.copy(), np.asarray([bias]), rng.normal(0, 0.1, (d, HIDDEN)),
              np.zeros(HIDDEN), np.zeros(HIDDEN)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(EPOCHS):
        order = rng.permutation(len(y))
        for start in range(0, len(y), BATCH):
            idx = order[start:start + BATCH]
            zb, yb, wb = z[idx], y[idx], w[idx]
            lin, b0, w1, b1, w2 = params
            h = np.tanh(zb @ w1 + b1)
            p = _sigmoid(zb @ lin + b0[0] + h @ w2)
            g = wb * (p - yb) / len(idx)
            gh = np.outer(g, w2) * (1 - h * h)
            grads = [zb.T @ g + L2_HIDDEN * lin, np.asarray([g.sum()]),
                     zb.T @ gh + L2_HIDDEN * w1, gh.sum(axis=0), h.T @ g + L2_HIDDEN * w2]
            step += 1
            for i, gr in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * gr
                v[i] = 0.999 * v[i] + 0.001 * gr * gr
                mh = m[i] / (1 - 0.9 ** step)
                vh = v[i] / (1 - 0.999 ** step)
                params[i] = params[i] - LEARNING_RATE * mh / (np.sqrt(vh) + 1e-8)
    lin, b0, w1, b1, w2 = params
    return lin, float(b0[0]), w1, b1, w2


CENTRE: npt.NDArray[np.float32] | None = None
"""The embedder's mean vector over the sets' messages (set by :func:`main`)."""


def train(queries: Sequence[Query], mode: str) -> LearnedRanker:
    """A ranker fitted on ``queries`` (uncalibrated: a calibration is applied afterwards)."""
    x, y, w = _stack(queries, mode)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    w = w * len(queries) / w.sum() * 1.0
    if LISTWISE:
        listwise = np.asarray([not q.off_topic for q in queries], dtype=np.bool_)
        # Negatives subsampled (each kept with probability KEEP, weighed up by its inverse)
        # so a fit takes seconds; evidence rows are all kept. Fixed seed: deterministic.
        rng = np.random.default_rng(SEED)
        keep = (y > 0) | (rng.random(len(y)) < KEEP)
        starts = _starts(queries)
        qid = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(y))))
        kept_q = qid[keep]
        new_starts = np.searchsorted(kept_q, np.arange(len(starts))).astype(np.int64)
        has_rows = np.bincount(kept_q, minlength=len(starts)) > 0
        rw = np.where(y[keep] > 0, 1.0, 1.0 / KEEP)
        sel = np.flatnonzero(has_rows)
        qweights = query_weights(queries)
        qweights = qweights * len(queries) / qweights.sum()
        coef, bias = fit_combined(z[keep], y[keep], w[keep] * rw, new_starts[sel],
                                  listwise[sel], L2, LISTWISE, rw, qweights[sel])
    else:
        coef, bias = fit_logistic(z, y, w, L2)
    names = {"hybrid": FEATURES, "judge": JUDGE_FEATURES}.get(mode, SEMANTIC_FEATURES)
    trees = None
    n_trees = {"hybrid": TREES, "judge": JUDGE_TREES}.get(mode, SEMANTIC_TREES)
    if n_trees and LISTWISE:
        zk = z[keep]
        base = zk @ coef + bias
        feats, thresholds, leaves = boost(zk, y[keep], w[keep] * rw, base, new_starts[sel],
                                          listwise[sel], qweights[sel], rw, LISTWISE,
                                          BoostParams(trees=n_trees, depth=DEPTH))
        trees = Trees(feats, thresholds.astype(np.float32), leaves)
    hidden = hidden_bias = out = None
    if HIDDEN:
        with threadpool_limits(1):
            coef, bias, w1, b1, w2 = fit_hidden(z, y, w, coef, bias)
        hidden, hidden_bias, out = (w1.astype(np.float32), b1.astype(np.float32),
                                    w2.astype(np.float32))
    return LearnedRanker(mode=mode, features=names, mean=mean.astype(np.float32),
                         scale=scale.astype(np.float32), weights=coef.astype(np.float32),
                         bias=bias, hidden=hidden, hidden_bias=hidden_bias, out=out,
                         trees=trees, centre=CENTRE if mode == "hybrid" else None)


def calibrate(logits: FloatArray, y: FloatArray) -> tuple[float, float]:
    """(a, b) of p = sigmoid(a * logit + b), fitted on held-out logits."""
    coef, bias = fit_logistic(logits[:, None], y, np.ones_like(y), 1e-6)
    return float(coef[0]), bias


KNOTS = (-1.0, 1.0)
"""Where the calibration of a ranker bends, in log-odds (probabilities 0.27 and 0.73): fixed
beforehand, not chosen on the data."""


def fit_bends(logits: FloatArray, y: FloatArray) -> tuple[tuple[float, float], ...]:
    """The :attr:`LearnedRanker.bends` at :data:`KNOTS` for calibrated ``logits`` with labels
    ``y``: the changes of slope ``c`` that make ``sigmoid(logit + sum c_k max(0, logit -
    knot_k))`` fit best (log loss, damped Newton's method: deterministic). Only the rows above
    the first knot move the fit, and only they move with it."""
    above = logits > KNOTS[0]
    hinge = np.stack([np.maximum(logits[above] - k, 0.0) for k in KNOTS], axis=1)
    base, labels = logits[above], y[above]
    c = np.zeros(len(KNOTS))
    for _ in range(100):
        p = _sigmoid(base + hinge @ c)
        grad = hinge.T @ (p - labels) + 1e-3 * c
        hess = (hinge * (p * (1.0 - p))[:, None]).T @ hinge + 1e-3 * np.eye(len(KNOTS))
        step = np.linalg.solve(hess, grad)
        c -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return tuple((k, round(float(v), 4)) for k, v in zip(KNOTS, c, strict=True))


def bend_all(queries: Sequence[Query], folds: Sequence[int], probs: list[FloatArray],
             measured_probs: list[FloatArray], measured_folds: Sequence[int]
             ) -> tuple[list[FloatArray], list[FloatArray], tuple[tuple[float, float], ...]]:
    """Out-of-fold probabilities bent by the bends fitted on the other folds' questions (those
    of the ``measured`` layouts by their fold's), and the bends fitted on every fold, which
    ship: the curve :func:`reliability` prints is then of bends that never saw the
    conversation either."""
    def fitted(rows: Sequence[int]) -> tuple[tuple[float, float], ...]:
        return fit_bends(np.concatenate([logits_of(probs[i]) for i in rows]),
                         np.concatenate([queries[i].labels for i in rows]).astype(np.float64))

    def apply(p: FloatArray, bends: tuple[tuple[float, float], ...]) -> FloatArray:
        return _sigmoid(bent(logits_of(p), bends))

    every = [i for i, q in enumerate(queries) if trains(q)]
    per_fold = [fitted([i for i in every if folds[queries[i].conv] != f])
                for f in range(FOLDS)]
    out = [apply(p, per_fold[folds[q.conv]]) for q, p in zip(queries, probs, strict=True)]
    out_measured = [apply(p, per_fold[f])
                    for p, f in zip(measured_probs, measured_folds, strict=True)]
    return out, out_measured, fitted(every)


def folded(ranker: LearnedRanker, a: float, b: float) -> LearnedRanker:
    """The ranker with its calibration folded in, rounded so the file is reproducible."""
    def r(x: npt.NDArray[np.float32] | None, by: float = 1.0) -> npt.NDArray[np.float32] | None:
        return None if x is None else np.round(x * by, 5).astype(np.float32)

    return LearnedRanker(mode=ranker.mode, features=ranker.features,
                         mean=np.round(ranker.mean, 5), scale=np.round(ranker.scale, 5),
                         weights=np.round(ranker.weights * a, 5).astype(np.float32),
                         bias=round(ranker.bias * a + b, 5), hidden=r(ranker.hidden),
                         hidden_bias=r(ranker.hidden_bias), out=r(ranker.out, a),
                         trees=None if ranker.trees is None else ranker.trees.scaled(a),
                         centre=ranker.centre)


GATE_STEP = 0.05
"""The gate's offset is chosen in steps of this many log-odds."""


def gate_inputs(q: Query, p: FloatArray, judged: FloatArray | None = None
                ) -> tuple[float, ...]:
    """What the answer gate reads of a hybrid search ranked by ``p``: the best hit's
    log-odds (with ``judged``, the judge's log-odds of every message: the highest among the
    best :data:`GATE_TOP` hits), the highest :data:`GATE_FEATURE` among those hits, and the
    highest of each of :data:`GATE_MORE` among them."""
    x = q.hybrid
    if not len(p):
        return (-30.0, -1.0, *(0.0 for _ in GATE_MORE))
    top = np.lexsort((-np.arange(len(p)), -p))[:GATE_TOP]
    logit = log_odds(float(p[top[0]])) if judged is None else float(np.max(judged[top]))
    return (logit, *(float(np.max(x[top, FEATURES.index(name)]))
                     for name in (GATE_FEATURE, *GATE_MORE)))


def gate_answers(gate: Gate, inputs: Sequence[float]) -> bool:
    """Whether ``gate`` answers a search of :func:`gate_inputs` ``inputs``."""
    return gate.answers(inputs[0], inputs[1], tuple(inputs[2:]))


def logits_of(p: FloatArray) -> FloatArray:
    """The log-odds of probabilities (clipped as :func:`log_odds` clips them)."""
    c = np.clip(p, 1e-12, 1.0 - 1e-12)
    out: FloatArray = np.log(c / (1.0 - c))
    return out


def fit_gate(queries: Sequence[Query], inputs: FloatArray, gains: FloatArray,
             rows: Sequence[int], eval_rows: Sequence[int]) -> Gate:
    """The answer gate from ``rows``: a logistic fit on :func:`gate_inputs` (``inputs``, of
    every query) of the questions (answered), each weighing its ``gains`` (the R@5 it has
    when answered: refusing a question whose answer is not among the best five costs
    nothing), against the off-topic training queries (not answered; far and near, the near
    ones weighing :data:`NEAR_SHARE` as in the ranker's fit), every set weighing the same,
    gives the trade between the log-odds and the other inputs; the offset is then the lowest
    (in steps of :data:`GATE_STEP`) at which at least 95 % of the far off-topic searches of
    ``eval_rows`` return nothing, as the floor before it was chosen."""
    chosen = [i for i in rows if not queries[i].off_topic
              or queries[i].off_topic in GATE_NEGATIVES]
    y = np.asarray([0.0 if queries[i].off_topic else 1.0 for i in chosen])
    w = query_weights([queries[i] for i in chosen]) * gains[chosen]
    x = inputs[chosen]
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    coef, _ = fit_logistic((x - mean) / scale, y, w, 1e-3)
    coef = coef / scale
    trade = [round(float(c / max(coef[0], 1e-6)), 3) for c in coef[1:]]
    far = inputs[[i for i in eval_rows if queries[i].off_topic == "eval"]]
    s = far[:, 0] + far[:, 1:] @ np.asarray(trade)
    offset = float(np.ceil(np.quantile(s, 0.95) / GATE_STEP) * GATE_STEP)
    while float(np.mean(s < offset)) < 0.95:
        offset += GATE_STEP
    return Gate(offset=round(offset, 2), per_cosine=trade[0], feature=GATE_FEATURE,
                top=GATE_TOP, more=tuple(zip(GATE_MORE, trade[1:], strict=True)))


def fold_gates(queries: Sequence[Query], inputs: FloatArray, gains: FloatArray,
               folds: Sequence[int]) -> list[Gate]:
    """Per fold, the gate fitted on the other folds (its offset chosen on every fold's
    evaluation searches, as the shipped one is)."""
    every = range(len(queries))
    return [fit_gate(queries, inputs, gains,
                     [i for i in every if folds[queries[i].conv] != f], every)
            for f in range(FOLDS)]


def home_folds(convs: Sequence[Conv], folds: Sequence[int], kept: Sequence[Conv],
               measured: Sequence[Query]) -> list[int]:
    """Per query of the ``kept`` layouts (:data:`LAYOUTS`, prepared as ``measured``), the
    fold of the conversation it was asked of in the set the layout comes from: the models
    that score it never saw that conversation."""
    home = {(c.set_name, c.id): f for c, f in zip(convs, folds, strict=True)}
    asked = [(c, question) for c in kept for question in c.questions]
    out = []
    for q, (c, question) in zip(measured, asked, strict=True):
        assert q.text == question.text
        out.append(home[LAYOUTS[c.set_name], question.source or c.id])
    return out


def cross_validate(queries: Sequence[Query], folds: Sequence[int], mode: str,
                   measured: Sequence[Query] = (), measured_folds: Sequence[int] = ()
                   ) -> tuple[list[FloatArray], tuple[float, float], list[FloatArray]]:
    """Out-of-fold calibrated probabilities per query, the calibration used, and those of
    the ``measured`` queries (never trained on), each scored by its fold's model
    (``measured_folds``: per measured query, :func:`home_folds`)."""
    logits: list[FloatArray | None] = [None] * len(queries)
    extra: list[FloatArray | None] = [None] * len(measured)
    for f in range(FOLDS):
        train_q = [q for q in queries if folds[q.conv] != f and trains(q)]
        if not train_q:
            continue
        model = train(train_q, mode)
        for i, q in enumerate(queries):
            if folds[q.conv] == f:
                logits[i] = model.logits(matrix(q, mode)).astype(np.float64)
        for i, q in enumerate(measured):
            if measured_folds[i] == f:
                extra[i] = model.logits(matrix(q, mode)).astype(np.float64)
    done = [lg if lg is not None else np.zeros(0) for lg in logits]
    fit = [i for i, q in enumerate(queries) if trains(q)]
    a, b = calibrate(np.concatenate([done[i] for i in fit]),
                     np.concatenate([queries[i].labels for i in fit]).astype(np.float64))
    return ([_sigmoid(a * lg + b) for lg in done], (a, b),
            [_sigmoid(a * (lg if lg is not None else np.zeros(0)) + b) for lg in extra])


def ranking(scores: FloatArray, floor: float | None = None, k: int = 50,
            ratio: float = 0.0, *, every: bool = False) -> list[int]:
    """Positions best first; ties go to the later message (as the search breaks them). With
    ``floor``, as the search's default applies it: nothing unless the best scores at least
    that, then those scoring at least ``ratio`` of the best and ``HIT_FLOOR``; ``every``:
    each position needs the floor instead (as a floor the caller sets)."""
    order = np.lexsort((-np.arange(len(scores)), -scores))[:k]
    if floor is not None and floor >= 0.0 and order.size:  # -1: no floor
        best = float(scores[order[0]])
        if best < floor:
            return []
        order = order[scores[order] >= max(floor if every else HIT_FLOOR, ratio * best)]
    return [int(i) for i in order]


def answered(p: FloatArray, answers: bool, k: int = 50, mode: str = "hybrid") -> list[int]:
    """A ranking as the search returns it once a gate has decided: nothing when it does not
    answer, else the share of the best hit and :data:`HIT_FLOOR`."""
    return ranking(p, 0.0 if answers else 2.0, k=k, ratio=BEST_SHARE[mode])


def default_ranking(i: int, p: FloatArray, mode: str, k: int = 50,
                    answers: dict[str, list[bool]] | None = None) -> list[int]:
    """Query ``i``'s ranking as a search with the default floor returns it: under the
    out-of-fold answer gate when one was fitted (``answers``, :data:`ANSWERS` unless given),
    else with the best hit's :data:`FLOOR`; then the share of the best hit and
    :data:`HIT_FLOOR`."""
    answers = ANSWERS if answers is None else answers
    if mode in answers:
        return answered(p, answers[mode][i], k=k, mode=mode)
    return ranking(p, FLOOR[mode], k=k, ratio=BEST_SHARE[mode])


def recall(evidence: frozenset[int], ranked: Sequence[int], k: int) -> float:
    return len(evidence & set(ranked[:k])) / len(evidence)


def _pct(values: Sequence[float]) -> float:
    return 100.0 * sum(values) / len(values) if values else float("nan")


def report(queries: Sequence[Query], probs: dict[str, list[FloatArray]],
           floor: float | None, answers: dict[str, list[bool]] | None = None
           ) -> dict[str, dict[str, dict[int, float]]]:
    """Recall per set and method (at the default, under ``answers``: :data:`ANSWERS` unless
    given); returns {set: {method: {k: R@k}}}."""
    answers = ANSWERS if answers is None else answers
    table: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    for i, q in enumerate(queries):
        if q.off_topic:
            continue
        methods = dict(q.baselines)
        for mode, p in probs.items():
            methods[f"learned {mode}"] = ranking(p[i])
            methods[f"learned {mode} @floor"] = (
                default_ranking(i, p[i], mode, answers=answers) if floor is None
                else ranking(p[i], floor, ratio=BEST_SHARE[mode]))
            if mode in answers and floor is None:
                methods[f"learned {mode} @{FLOOR[mode]}"] = ranking(
                    p[i], FLOOR[mode], ratio=BEST_SHARE[mode])
        for name, ranked in methods.items():
            for k in KS:
                table[q.set_name][name][k].append(recall(q.evidence, ranked, k))
    out: dict[str, dict[str, dict[int, float]]] = {}
    for set_name, methods_t in table.items():
        n = len(next(iter(methods_t.values()))[1])
        print(f"\n{set_name}: {n} questions, turn recall (out of fold)")
        print("  method".ljust(30) + "".join(f"R@{k}".rjust(8) for k in KS))
        out[set_name] = {}
        for name, by_k in methods_t.items():
            out[set_name][name] = {k: _pct(v) for k, v in by_k.items()}
            print(f"  {name}".ljust(30) + "".join(f"{_pct(by_k[k]):8.1f}" for k in KS))
    return out


def precision(queries: Sequence[Query], probs: FloatArray | list[FloatArray], mode: str,
              limit: int = 10) -> None:
    """Of the matched hits a search returns (``limit`` of them at most), the share that are
    evidence: the learned ranker at its default floor (and share of the best hit) beside the
    old fusion's ranking, whose hybrid floor let every one of its ``limit`` hits through."""
    print(f"\nprecision of matched hits ({mode}, limit {limit}, out of fold): evidence / hits")
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for i, (q, p) in enumerate(zip(queries, probs, strict=True)):
        if q.off_topic:
            continue
        old = q.baselines.get("old hybrid") if mode == "hybrid" else None
        rows = {"learned @floor": default_ranking(i, p, mode, k=limit)}
        if old is not None:
            rows["old fusion"] = old[:limit]
        for name, hits in rows.items():
            sums[q.set_name, name][0] += len(q.evidence & set(hits))
            sums[q.set_name, name][1] += len(hits)
    for (set_name, name), (good, total) in sorted(sums.items()):
        share = 100.0 * good / total if total else float("nan")
        print(f"  {set_name:16} {name:16} {share:6.1f} %  ({good} of {total} hits)")


def chosen_floor(queries: Sequence[Query], probs: list[FloatArray]) -> float:
    """The lowest floor (in steps of :data:`FLOOR_STEP`) on the best hit at which at least
    :data:`QUIET_SHARE` of the far off-topic evaluation searches return nothing."""
    best = np.sort([float(p.max(initial=0.0)) for q, p in zip(queries, probs, strict=True)
                    if q.off_topic == "eval"])
    steps = 1
    while steps * FLOOR_STEP < 1.0:
        floor = round(steps * FLOOR_STEP, 4)
        if np.searchsorted(best, floor, side="left") >= QUIET_SHARE * len(best):
            return floor
        steps += 1
    return 1.0 - FLOOR_STEP


def abstention(queries: Sequence[Query], probs: list[FloatArray], floors: Sequence[float],
               default: float, share: float) -> None:
    """Per floor: the share of the eval halves' off-topic searches (far and near) that return
    nothing, and R@5 over every set's questions with the floor (the mean over sets in
    brackets: each set weighing the same), with ``share`` of the best hit, the floor on the
    best hit or on every hit."""
    pairs = list(zip(queries, probs, strict=True))

    def abstained(floor: float, split: str, set_name: str | None = None) -> list[float]:
        return [float(p.max(initial=0.0) < floor) for q, p in pairs
                if q.off_topic == split and set_name in (None, q.set_name)]

    def r5(floor: float, ratio: float, every: bool) -> tuple[float, float]:
        by_set: dict[str, list[float]] = defaultdict(list)
        for q, p in pairs:
            if not q.off_topic:
                ranked = ranking(p, floor, ratio=ratio, every=every)
                by_set[q.set_name].append(recall(q.evidence, ranked, 5))
        all_sets = [v for values in by_set.values() for v in values]
        return _pct(all_sets), float(np.mean([_pct(v) for v in by_set.values()]))

    print("\nfloor   abstained: far eval  near eval   R@5 all (mean of sets) with "
          f"{share} of the best hit: the floor on the best hit (the default), on every hit")
    for floor in (-1.0, *floors):
        far, near = abstained(floor, "eval"), abstained(floor, "near-eval")
        best, each = r5(floor, share, False), r5(floor, share, True)
        print(f"{floor:7.4f} {_pct(far):6.1f} % of {len(far):5}  {_pct(near):6.1f} % of "
              f"{len(near):5}   {best[0]:5.1f} ({best[1]:5.1f})   "
              f"{each[0]:5.1f} ({each[1]:5.1f})")
    print(f"  at the default floor {default}, abstained per set (far / near eval):")
    for set_name in dict.fromkeys(q.set_name for q in queries):
        print(f"    {set_name:16} {_pct(abstained(default, 'eval', set_name)):6.1f} %"
              f"  {_pct(abstained(default, 'near-eval', set_name)):6.1f} %")


def gate_report(queries: Sequence[Query], probs: list[FloatArray], answers: list[bool]) -> None:
    """Under the out-of-fold answer gate: the off-topic searches (far and near evaluation
    halves) that return nothing, and R@5 over every set's questions, overall and per set."""
    by_set: dict[str, list[float]] = defaultdict(list)
    quiet: dict[tuple[str, str], list[float]] = defaultdict(list)
    for i, (q, p) in enumerate(zip(queries, probs, strict=True)):
        if q.off_topic in ("eval", "near-eval"):
            quiet[q.off_topic, q.set_name].append(float(not answers[i]))
            quiet[q.off_topic, ""].append(float(not answers[i]))
        elif not q.off_topic:
            ranked = answered(p, answers[i])
            by_set[q.set_name].append(recall(q.evidence, ranked, 5))
    every = [v for values in by_set.values() for v in values]
    print(f"\nanswer gate (out of fold): abstained far {_pct(quiet['eval', '']):.1f} %, near "
          f"{_pct(quiet['near-eval', '']):.1f} %; R@5 all {_pct(every):.1f} (mean of sets "
          f"{float(np.mean([_pct(v) for v in by_set.values()])):.1f})")
    for set_name, values in by_set.items():
        print(f"    {set_name:16} R@5 {_pct(values):5.1f}   abstained far "
              f"{_pct(quiet['eval', set_name]):5.1f} %  near "
              f"{_pct(quiet['near-eval', set_name]):5.1f} %")


def reliability(queries: Sequence[Query], probs: list[FloatArray], top: int = 10) -> float:
    """Reliability of the scores of each query's ``top`` messages; prints the curve and
    returns the expected calibration error."""
    p_all, y_all = [], []
    for q, p in zip(queries, probs, strict=True):
        if q.off_topic in ("train", "near-train"):
            continue
        best = ranking(p, None, top)
        p_all += [float(p[i]) for i in best]
        y_all += [float(i in q.evidence) for i in best]
    pa, ya = np.asarray(p_all), np.asarray(y_all)
    edges = np.asarray([0, .02, .05, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1.0001])
    ece = 0.0
    print(f"\nreliability of the top {top} hits of every question (out of fold)")
    print("  score bin      hits   mean score   share relevant")
    for lo, hi in itertools.pairwise(edges):
        m = (pa >= lo) & (pa < hi)
        if not m.any():
            continue
        ece += m.sum() / len(pa) * abs(pa[m].mean() - ya[m].mean())
        print(f"  {lo:4.2f}-{min(hi, 1):4.2f}  {int(m.sum()):8}   {pa[m].mean():10.3f}   "
              f"{ya[m].mean():14.3f}")
    print(f"  expected calibration error: {ece:.4f}")
    return ece


def without(queries: Sequence[Query], names: Sequence[str]) -> None:
    """Ablation: the named features set to 0 in every row (a constant column the fit cannot
    use), in the modes that have them."""
    for name in names:
        if name not in FEATURES and name not in SEMANTIC_FEATURES:
            raise SystemExit(f"--without: unknown feature {name!r}; known: "
                             f"{', '.join(dict.fromkeys(FEATURES + SEMANTIC_FEATURES))}")
    hybrid = [j for j, f in enumerate(FEATURES) if f in names]
    semantic = [j for j, f in enumerate(SEMANTIC_FEATURES) if f in names]
    for q in queries:
        q.hybrid[:, hybrid] = 0.0
        q.semantic[:, semantic] = 0.0


def held_out(queries: Sequence[Query], rankers: dict[str, LearnedRanker],
             floor: float | None) -> dict[str, dict[int, float]]:
    """R@5 and R@10 of the shipped models on the held-out set, at the default floor (with the
    share of the best hit, as the search applies them) and with the floor off, beside the
    plain rankings; nothing here is fitted on it. Returns {method: {k: R@k}}."""
    rows: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in queries:
        methods = dict(q.baselines)
        for mode, ranker in rankers.items():
            p = ranker.probability(np.asarray(q.hybrid if mode == "hybrid" else q.semantic,
                                              np.float32)).astype(np.float64)
            at = ranker.best_floor if floor is None else floor
            methods[f"learned {mode}"] = ranking(p)
            methods[f"learned {mode} @floor {at}"] = ranking(p, at, ratio=BEST_SHARE[mode])
            if ranker.gate is not None and floor is None:
                x = np.asarray(q.hybrid, np.float32)
                judged = ranker.judged(x)
                methods[f"learned {mode} @gate"] = answered(p, gate_answers(
                    ranker.gate, gate_inputs(q, p, None if judged is None
                                             else judged.astype(np.float64))))
        for name, ranked in methods.items():
            for k in (5, 10):
                rows[name][k].append(recall(q.evidence, ranked, k))
    print(f"\nheld-out set ({len(queries)} questions; measured only, never trained or tuned "
          "on): turn recall")
    print("  method".ljust(36) + "".join(f"R@{k}".rjust(8) for k in (5, 10)))
    out: dict[str, dict[int, float]] = {}
    for name, by_k in rows.items():
        out[name] = {k: _pct(v) for k, v in by_k.items()}
        print(f"  {name}".ljust(36) + "".join(f"{_pct(by_k[k]):8.1f}" for k in (5, 10)))
    return out


def _near(conv: Conv) -> dict[str, list[str]]:
    return near_topic_for([f"{m.sender}: {m.text}" for m in conv.messages],
                          [m.sender for m in conv.messages])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="use-multilingual-v3")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--layouts", default=",".join(LAYOUTS),
                        help="sets kept session by session to measure the ranker on, out of "
                             "fold, never trained on ('' for none)")
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "memstrata-bench-cache")
    parser.add_argument("--floor", type=float, default=None,
                        help="the floor of the @floor rows (with a share of the best hit "
                             "as the search applies it)")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--no-judge", action="store_true",
                        help="the answer gate reads the ranker's own log-odds of its best "
                             "hit, not a judge's")
    parser.add_argument("--no-gate", action="store_true",
                        help="no answer gate: the best hit needs the fixed default floor")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--hidden", type=int, default=None,
                        help="tanh units beside the logistic model (0: plain logistic)")
    parser.add_argument("--trees", type=int, default=None,
                        help="boosted trees added to the hybrid ranker's logistic model (0: "
                             "none; the answer gate's judge keeps JUDGE_TREES)")
    parser.add_argument("--depth", type=int, default=None,
                        help="depth of the boosted trees")
    parser.add_argument("--semantic-trees", type=int, default=None,
                        help="boosted trees added to the semantic model (0: none)")
    parser.add_argument("--listwise", type=float, default=None,
                        help="weight of the listwise loss beside the pointwise one")
    parser.add_argument("--off-topic", choices=("far", "near", "both"), default="far",
                        help="which off-topic training halves to train on: the far set of "
                             "_offtopic.py, the near-topic set of _offtopic_near.py, or both")
    parser.add_argument("--near-share", type=float, default=None,
                        help="weight of a set's near-topic training queries together, as a "
                             "share of its questions'")
    parser.add_argument("--modes", default="hybrid,semantic",
                        help="the modes to train and measure (writing needs both)")
    parser.add_argument("--prepared", type=Path, default=None,
                        help="keep the prepared features in this pickle between runs")
    parser.add_argument("--held-out", action="store_true",
                        help="also report the trained models' recall on the held-out set "
                             "(bench/data/recall_set.json), which nothing is fitted on")
    parser.add_argument("--without", default="",
                        help="features (comma-separated) to leave out, as an ablation "
                             "(implies --no-write)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the weights here instead of the shipped file")
    parser.add_argument("--off-topic-share", type=float, default=None,
                        help="weight of a set's far off-topic training queries together, as "
                             "a share of its questions'")
    parser.add_argument("--save-scores", type=Path, default=None,
                        help="save the out-of-fold probabilities (and each query's set, "
                             "split and evidence) in this pickle")
    args = parser.parse_args()
    kernels = pin_blas_kernels()
    global HIDDEN, LISTWISE, TREES, DEPTH, SEMANTIC_TREES, OFF_TOPIC_TRAINING, NEAR_SHARE, \
        OFF_TOPIC_SHARE, CENTRE
    if args.off_topic_share is not None:
        OFF_TOPIC_SHARE = args.off_topic_share
    dropped = [f for f in args.without.split(",") if f]
    if dropped:
        args.no_write = True
    if args.near_share is not None:
        NEAR_SHARE = args.near_share
    OFF_TOPIC_TRAINING = {"far": ("train",), "near": ("near-train",),
                          "both": ("train", "near-train")}[args.off_topic]
    if args.trees is not None:
        TREES = args.trees
    if args.depth is not None:
        DEPTH = args.depth
    if args.semantic_trees is not None:
        SEMANTIC_TREES = args.semantic_trees
    if args.hidden is not None:
        HIDDEN = args.hidden
    if args.listwise is not None:
        LISTWISE = args.listwise
    convs = load_sets(tuple(args.sets.split(",")))
    embedder = LocalEmbedder(args.embedder)
    cache = EmbedCache(embedder, args.cache, tag=kernels)
    CENTRE = await centre_of(convs, cache)
    # A layout's question is scored by the models of the fold its conversation is in, in the
    # set the layout comes from (which must be trained on here).
    layouts = tuple(n for n in args.layouts.split(",") if n)
    if unknown := [n for n in layouts if n not in LAYOUTS]:
        parser.error(f"--layouts: {', '.join(unknown)}: not one of {', '.join(LAYOUTS)}")
    layouts = tuple(n for n in layouts if LAYOUTS[n] in args.sets.split(","))
    kept = load_sets(layouts) if layouts else []
    if args.prepared is not None and args.prepared.exists():
        queries, measured = pickle.loads(args.prepared.read_bytes())
    else:
        queries = await prepare(convs, cache, {"train": OFF_TOPIC_TRAIN,
                                               "eval": OFF_TOPIC_EVAL}, near=_near,
                                centre=CENTRE)
        measured = await prepare(kept, cache, {}, centre=CENTRE)
        if args.prepared is not None:
            args.prepared.write_bytes(pickle.dumps((queries, measured)))
    without(queries, dropped)
    without(measured, dropped)
    print(f"{len(convs)} conversations, {sum(not q.off_topic for q in queries)} questions, "
          f"{sum(bool(q.off_topic) for q in queries)} off-topic queries; "
          f"{embedder.model_id}", file=sys.stderr)
    folds = folds_of(convs)
    kept_folds = home_folds(convs, folds, kept, measured)
    probs, shipped = {}, {}
    kept_probs: dict[str, list[FloatArray]] = {}
    kept_answers: dict[str, list[bool]] = {}
    modes = tuple(args.modes.split(","))
    if set(modes) != {"hybrid", "semantic"} and not args.no_write:
        parser.error("--modes: writing the shipped file needs both modes (add --no-write)")
    for mode in modes:
        oof, (a, b), kept_probs[mode] = cross_validate(queries, folds, mode, measured,
                                                       kept_folds)
        oof, kept_probs[mode], bends = bend_all(queries, folds, oof, kept_probs[mode],
                                                kept_folds)
        probs[mode] = oof
        final = train([q for q in queries if trains(q)], mode)
        shipped[mode] = replace(folded(final, a, b), bends=bends)
        print(f"{mode} calibration bends: {bends}", file=sys.stderr)
        if mode != "hybrid" or args.no_gate:
            # No answer gate: the floor on the best hit decides whether a search has an
            # answer, so it is chosen for this embedder; the file names it only where it
            # differs from the package's default for the mode.
            FLOOR[mode] = chosen_floor(queries, oof)
            if FLOOR[mode] != LEARNED_FLOOR[mode]:
                shipped[mode] = replace(shipped[mode], floor=FLOOR[mode])
            print(f"{mode} floor on the best hit: {FLOOR[mode]}", file=sys.stderr)
        if mode == "hybrid" and not args.no_gate:
            every = range(len(queries))
            judge = judged = kept_judged = None
            if not args.no_judge:
                # The gate's judge: the same training over the features of a message's own
                # evidence only; its out-of-fold log-odds stand for the shipped judge's.
                judge_oof, (ja, jb), judge_kept = cross_validate(queries, folds, "judge",
                                                                 measured, kept_folds)
                judge = folded(train([q for q in queries if trains(q)], "judge"), ja, jb)
                judged = [logits_of(j) for j in judge_oof]
                kept_judged = [logits_of(j) for j in judge_kept]
            inputs = np.asarray([gate_inputs(q, p, None if judged is None else judged[i])
                                 for i, (q, p) in enumerate(zip(queries, oof, strict=True))])
            gains = np.asarray([1.0 if q.off_topic else recall(q.evidence, answered(p, True), 5)
                                for q, p in zip(queries, oof, strict=True)])
            gates = fold_gates(queries, inputs, gains, folds)
            ANSWERS[mode] = [gate_answers(gates[folds[q.conv]], inputs[i])
                             for i, q in enumerate(queries)]
            kept_answers[mode] = [
                gate_answers(gates[kept_folds[i]], gate_inputs(
                    q, p, None if kept_judged is None else kept_judged[i]))
                for i, (q, p) in enumerate(zip(measured, kept_probs[mode], strict=True))]
            gate = replace(fit_gate(queries, inputs, gains, every, every), judge=judge)
            shipped[mode] = replace(shipped[mode], gate=gate)
            print(f"{mode} answer gate: offset {gate.offset}, per cosine {gate.per_cosine}, "
                  f"more {gate.more}, "
                  f"{'a judge' if judge is not None else 'no judge'}", file=sys.stderr)
    report(queries, probs, args.floor)
    if measured:
        print("\nthe same conversations kept session by session, searched tenant-wide "
              "(measured only: scored by the fold's models and gate, never trained on)")
        report(measured, kept_probs, args.floor, answers=kept_answers)
    if args.save_scores is not None:
        meta = [(q.set_name, q.off_topic, sorted(q.evidence)) for q in queries]
        args.save_scores.write_bytes(pickle.dumps({"queries": meta, "probs": probs}))
    for mode in probs:
        print(f"\n{mode}:")
        precision(queries, probs[mode], mode)
        abstention(queries, probs[mode], FLOORS, FLOOR[mode], BEST_SHARE[mode])
        if mode in ANSWERS:
            gate_report(queries, probs[mode], ANSWERS[mode])
        reliability(queries, probs[mode])
    if args.held_out:
        extra = await prepare(load_held_out(), cache, {}, centre=CENTRE)
        without(extra, dropped)
        held_out(extra, {m: r for m, r in shipped.items()}, args.floor)
    body: dict[str, Any] = {"trained_by": "bench/train_ranker.py",
            "models": {embedder.model_id: {m: r.to_json() for m, r in shipped.items()}}}
    old = json.loads(SHIPPED.read_text("utf-8")) if SHIPPED.exists() else {"models": {}}
    models: dict[str, Any] = dict(old["models"])
    models.update(body["models"])
    merged = {"trained_by": body["trained_by"], "models": models}
    text = json.dumps(merged, indent=1, sort_keys=True) + "\n"
    if args.check:
        same = SHIPPED.exists() and SHIPPED.read_text("utf-8") == text
        print(f"\nshipped weights reproduced: {'yes' if same else 'NO'}")
        if not same:
            other = Path(tempfile.gettempdir()) / f"retrained-{RANKER_FILE}"
            other.write_text(text, "utf-8")
            print(f"(the file it would write: {other})")
        raise SystemExit(0 if same else 1)
    if not args.no_write:
        target = SHIPPED if args.out is None else args.out
        target.write_text(text, "utf-8")
        print(f"\nwrote {target} ({vector_model(embedder.model_id)})")


if __name__ == "__main__":
    asyncio.run(main())
