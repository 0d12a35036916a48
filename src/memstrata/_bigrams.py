"""The indexed text of many messages at once: ``bigram_text`` over a batch, in numpy.

Every stored message is indexed with its CJK runs rewritten as overlapping 2-character pairs
(see ``text``). For one message that is a regex split and a ``map`` per run, about 18 µs for a
typical Chinese message of 125 characters, which was the largest Python cost of ``add_many``.
A batch instead goes through numpy as one array of code points: every position decides what
it writes, so the work per character is done in C once for the whole batch.

What a position writes (the same strings as ``bigram_text``, which the tests check):

* a character outside CJK: itself;
* a CJK character followed by one in the same run: a space, itself, the next character;
* the last character of a longer run: a space;
* a run of one character: a space, itself, a space.

A run "ABCD" so becomes " AB BC CD " and "A" becomes " A ", and everything else is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .text import CJK_RANGES, bigram_text

__all__ = ["bigram_texts"]

# Below this many non-ASCII texts numpy's fixed cost per call is more than it saves.
_MIN_BATCH = 4
# Texts per array: an import of a whole long session in one batch must not build arrays of
# hundreds of megabytes (a 400-character text takes about 20 KB across the arrays).
_CHUNK = 1024

_IS_CJK = np.zeros(0x10000, dtype=np.bool_)
for _lo, _hi in CJK_RANGES:
    _IS_CJK[_lo:_hi + 1] = True
_SPACE = np.uint32(0x20)
_NOTHING = np.uint32(0xFFFFFFFF)  # not a code point: marks a slot that writes nothing


def bigram_texts(texts: Sequence[str]) -> list[str]:
    """``[bigram_text(t) for t in texts]``, made for the whole batch at once."""
    out = list(texts)
    wide = [i for i, t in enumerate(texts) if not t.isascii()]
    if len(wide) < _MIN_BATCH:
        for i in wide:
            out[i] = bigram_text(texts[i])
        return out
    for lo in range(0, len(wide), _CHUNK):
        part = wide[lo:lo + _CHUNK]
        chosen = [texts[i] for i in part]
        try:
            made = _batch(chosen)
        except UnicodeEncodeError:  # a lone surrogate: let the one-text path say what it does
            made = [bigram_text(t) for t in chosen]
        for i, text in zip(part, made, strict=True):
            out[i] = text
    return out


def _batch(texts: list[str]) -> list[str]:
    """The prepared texts of non-empty ``texts`` (one array for all of them)."""
    code = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(lengths)
    cjk = _IS_CJK[np.minimum(code, 0xFFFF)]
    # has_next[i]: characters i and i+1 are CJK and belong to the same text.
    n = len(code)
    has_next = np.zeros(n, dtype=np.bool_)
    np.logical_and(cjk[:-1], cjk[1:], out=has_next[:-1])
    has_next[ends[:-1] - 1] = False
    has_prev = np.zeros(n, dtype=np.bool_)
    has_prev[1:] = has_next[:-1]
    writes_self = has_next | (cjk & ~has_prev)   # pair starts and one-character runs
    slots = np.empty((n, 3), dtype=np.uint32)
    slots[:, 0] = np.where(cjk, _SPACE, code)
    slots[:, 1] = np.where(writes_self, code, _NOTHING)
    slots[:, 2] = np.where(writes_self, _SPACE, _NOTHING)
    slots[:-1, 2][has_next[:-1]] = code[1:][has_next[:-1]]
    flat = slots.ravel()
    joined = flat[flat != _NOTHING].tobytes().decode("utf-32-le")
    # Characters written per position: 3 where it writes itself, else 1; summed per text.
    written = np.add.reduceat(1 + 2 * writes_self.astype(np.int64), ends - lengths)
    bounds = np.cumsum(written).tolist()
    starts = [0, *bounds[:-1]]
    return [joined[a:b] for a, b in zip(starts, bounds, strict=True)]
