"""The tenant index's selection kept between searches: after appends (and vectors that came
or went) it is extended by the new rows instead of worked out again, and the extension equals
a selection worked out afresh, field by field, with the neighbour-key offsets and the keyword
reads of every query term; a removal works it out afresh."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from memstrata.search._tenant import Selection, TenantIndex

DIM = 16
WORDS = "kite paris ocean night tree river garden music paint bake story coffee".split()


def _append(index: TenantIndex, rng: np.random.Generator, sessions: list[str],
            next_id: list[int], embedded: float = 1.0) -> None:
    n = len(sessions)
    ids = list(range(next_id[0], next_id[0] + n))
    next_id[0] += n
    texts = [" ".join(rng.choice(WORDS, int(rng.integers(1, 6))).tolist()) for _ in range(n)]
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    # A batch names each message's session, a session's messages together.
    order = sorted(range(n), key=lambda i: sessions[i])
    index.append([sessions[i] for i in order], ids, [texts[i] for i in order],
                 ["ann" if i % 2 else None for i in order], ids, v, v,
                 rng.random(n) < embedded)


def _equal(a: Selection, b: Selection) -> None:
    for field in dataclasses.fields(Selection):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if field.name == "links":
            assert all(np.array_equal(p, q) for p, q in zip(x, y, strict=True)), field.name
        elif field.name == "info":
            for part in dataclasses.fields(x):
                assert np.array_equal(getattr(x, part.name), getattr(y, part.name)), part.name
        else:
            assert x.dtype == y.dtype, field.name
            assert np.array_equal(x, y), field.name


def _keyword(index: TenantIndex, selection: Selection) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for key in (False, True):
        k = index.keyword(selection, WORDS, key=key)
        assert k.tf is not None and k.lengths is not None
        out.append((k.vocab, k.indptr.tolist(), k.docs.tolist(), k.tf.tolist(),
                    k.lengths.tolist()))
    return out


@pytest.mark.parametrize("scope", [None, ["a"], ["a", "c"], ["a", "b", "c"]])
def test_extended_selection_equals_a_fresh_one(scope: list[str] | None) -> None:
    rng = np.random.default_rng(7)
    index = TenantIndex(DIM)
    next_id = [1]
    _append(index, rng, ["a"] * 9 + ["b"] * 4 + ["c"] * 6, next_id)
    held = index.select(scope)
    index.keyword(held, WORDS, key=True)  # the key offsets are held with it
    for batch in (["a"], ["b", "b"], ["a", "c", "c", "d"], ["d"] * 3, ["c"], ["a"] * 5):
        _append(index, rng, batch, next_id, embedded=0.5)
        if rng.random() < 0.5:  # a waiting message's vector comes, or one goes
            waiting = np.flatnonzero(~index.present[:index.size])
            if waiting.shape[0]:
                index.set_vectors([int(waiting[0])], np.ones((1, DIM), np.float32),
                                  np.ones((1, DIM), np.float32))
        else:
            index.clear_vectors([int(index.size) - 1])
        extended = index.select(scope)
        assert extended is not held  # worked out for the new generation
        fresh = index._select(scope)
        _equal(extended, fresh)
        keyed = index._keyed_at(extended)
        index._keyed = None
        again = index._keyed_at(fresh)
        for (w1, d1), (w2, d2) in zip(keyed, again, strict=True):
            assert w1 == w2 and np.array_equal(d1, d2)
        assert _keyword(index, extended) == _keyword(index, fresh)
        held = extended


def test_a_removal_works_the_selection_out_afresh() -> None:
    rng = np.random.default_rng(8)
    index = TenantIndex(DIM)
    next_id = [1]
    _append(index, rng, ["a"] * 8 + ["b"] * 3, next_id)
    index.select(["a"])
    index.remove([2, 3])
    _append(index, rng, ["a", "a"], next_id)
    after = index.select(["a"])
    _equal(after, index._select(["a"]))
    assert 2 not in after.rows.tolist() and after.rows.shape[0] == 8
