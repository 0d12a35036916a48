"""int8 vectors with a per-vector scale (``search/_quant.py``) and the compact own-term
postings (``search/_postings.py``) of the tenant index: error bounds, exact merges, and the
bytes a message costs."""

from __future__ import annotations

import numpy as np

from memstrata.providers import make_embedder
from memstrata.search._postings import Postings
from memstrata.search._quant import dequantise, dot_error_bound, dots, quantise, query_dots
from memstrata.search._tenant import TenantIndex


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def test_each_component_within_half_a_step() -> None:
    rng = np.random.default_rng(1)
    v = _unit(rng, 200, 512) * rng.uniform(0.1, 10, (200, 1)).astype(np.float32)
    q, s = quantise(v)
    assert q.dtype == np.int8 and s.dtype == np.float32
    assert np.abs(q.astype(np.int32)).max() == 127  # the largest component uses the range
    err = np.abs(dequantise(q, s) - v)
    assert (err <= s[:, None] / 2 * (1 + 1e-5)).all()


def test_zero_vector_stays_zero() -> None:
    q, s = quantise(np.zeros((2, 8), dtype=np.float32))
    assert not q.any() and not s.any()
    assert dots(q, s, q[0], float(s[0])).tolist() == [0.0, 0.0]


async def test_cosines_within_the_bound_and_close_on_average() -> None:
    """Random unit vectors and the hashing embedder's: each int8 cosine is within the
    analytic bound of the float one, and 0.003 of it on average."""
    rng = np.random.default_rng(2)
    embedder = make_embedder("hash:512")
    texts = [f"message {i} about the {('river', 'train', 'garden')[i % 3]} at {i % 7}"
             for i in range(300)]
    for rows in (_unit(rng, 500, 512), np.asarray(await embedder.embed(texts))):
        query = rows[-1]
        mq, ms = quantise(rows)
        qq, qs = quantise(query)
        got = dots(mq, ms, qq[0], float(qs[0]))
        exact = rows @ query
        for a, g, e in zip(rows, got, exact, strict=True):
            assert abs(float(g) - float(e)) <= dot_error_bound(a, query) + 1e-6
        assert float(np.abs(got - exact).mean()) < 0.003


def test_postings_merge_keeps_every_pair() -> None:
    """Postings added in many pieces (merged and tail both) read back per term as added."""
    rng = np.random.default_rng(3)
    p = Postings()
    want: dict[int, list[tuple[int, float]]] = {}
    row = 0
    for _ in range(40):
        n = int(rng.integers(1, 4000))
        terms = rng.integers(0, 50 + row // 100, n).astype(np.int32)
        rows = np.arange(row, row + n, dtype=np.int32)
        counts = rng.integers(1, 5, n).astype(np.float32)
        row += n
        p.add(terms, rows, counts)
        for t, r, c in zip(terms.tolist(), rows.tolist(), counts.tolist(), strict=True):
            want.setdefault(t, []).append((r, c))
        for t in rng.integers(0, 60 + row // 100, 5).tolist():
            got_rows, got_counts = p.get(t)
            assert sorted(zip(got_rows.tolist(), got_counts.tolist(), strict=True)) \
                == sorted(want.get(t, []))
    assert p.size == row
    p.merge()
    for t, pairs in want.items():
        got_rows, got_counts = p.get(t)
        assert list(zip(got_rows.tolist(), got_counts.tolist(), strict=True)) == pairs


def test_bytes_per_message_bounded() -> None:
    """The index holds a 512-d message (two vectors, ~10 terms, a new term of its own) in
    under 1.5 KB, the eighth of room a growth leaves included: the int8 vectors are 1,032
    bytes of it."""
    rng = np.random.default_rng(4)
    index = TenantIndex(512)
    words = "budget trip dinner train hotel museum report meeting deadline garden".split()
    n, per = 20_000, 100
    texts = [" ".join(rng.choice(words, 8).tolist()) + f" #{i}" for i in range(n)]
    vectors = _unit(rng, n, 512)
    index.reserve(n)
    index.append([f"s{i // per}" for i in range(n)], list(range(1, n + 1)), texts,
                 ["ann"] * n, list(range(n)), vectors, vectors, np.ones(n, dtype=np.bool_))
    per_message = index.nbytes / index.alive_count
    assert 1032 * 1.125 < per_message < 1300 * 1.125 < 1536, per_message
    # Float32 vectors alone would be 4,096 bytes.
    own, keyed = index.vectors([0, 5])
    assert own.dtype == keyed.dtype == np.float32
    assert np.abs(own - vectors[[0, 5]]).max() < 0.01


def test_float_query_leaves_only_the_rows_rounding() -> None:
    """Against a float32 query only the rows' rounding moves a cosine: within half a row
    step times the query's L1 norm, and closer on average than with the query rounded too."""
    rng = np.random.default_rng(5)
    rows, query = _unit(rng, 2000, 512), _unit(rng, 1, 512)[0]
    mq, ms = quantise(rows)
    exact = rows @ query
    got = query_dots(mq, ms, query)
    bound = ms / 2 * float(np.abs(query).sum()) + 1e-5
    assert (np.abs(got - exact) <= bound).all()
    qq, qs = quantise(query)
    both = dots(mq, ms, qq[0], float(qs[0]))
    assert float(np.abs(got - exact).mean()) < 0.8 * float(np.abs(both - exact).mean())


def test_float_query_in_one_pass_equals_its_two_parts_multiplied_apart() -> None:
    """The query and what its rounding left are multiplied in one pass over the rows; the
    result is, bit for bit, the two products taken one after the other and summed."""
    rng = np.random.default_rng(6)
    query = _unit(rng, 1, 512)[0]
    q1, s1 = quantise(query)
    q2, s2 = quantise(query - dequantise(q1, s1)[0])
    for n in (0, 1, 3, 700):
        mq, ms = quantise(_unit(rng, n, 512)) if n else (
            np.zeros((0, 512), dtype=np.int8), np.zeros(0, dtype=np.float32))
        apart = (dots(mq, ms, q1[0], float(s1[0])).astype(np.float64)
                 + dots(mq, ms, q2[0], float(s2[0])).astype(np.float64)).astype(np.float32)
        got = query_dots(mq, ms, query)
        assert got.dtype == np.float32 and got.shape == (n,)
        assert np.array_equal(got, apart)
