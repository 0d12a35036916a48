"""The embedding child process: ``python -m memstrata.providers._child MODEL``.

It loads one of the packaged local models and embeds the batches its parent sends, one at a
time, so background indexing runs on cores and an interpreter lock of its own (see
:mod:`._process` for the parent's side and why). It runs at a lower priority (nice +5): a
search in the parent gets the cores first.

The conversation is on stdin and stdout, each message a frame: a 4-byte big-endian length,
then that many bytes. A request is one JSON frame, ``{"texts": [...]}``. The answer is a JSON
frame, ``{"ok": true, "rows": n, "dim": d}`` followed by a frame of ``n * d`` float32 values
(native byte order: parent and child are the same machine), or ``{"ok": false, "error": ...}``
when the model failed on that batch. The child says ``{"ok": true, "ready": true}`` once the
model is loaded. When stdin ends (the parent closed it, or died) the child exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import IO, Any

import numpy as np

from ._frames import read_frame, write_frame

__all__ = ["main"]

NICE = 5
"""How much lower than its parent's the child's scheduling priority is."""


def _answer(out: IO[bytes], header: dict[str, Any], data: bytes | None = None) -> None:
    write_frame(out, json.dumps(header).encode())
    if data is not None:
        write_frame(out, data)
    out.flush()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    # Keep the answers' channel to this module: anything a library prints goes to stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    source = sys.stdin.buffer
    with contextlib.suppress(OSError):  # a lower priority is a preference, not a need
        os.nice(NICE)
    from ._local import LOCAL_MODELS
    from ._threads import blas_threads

    spec = LOCAL_MODELS.get(args[0] if args else "")
    if spec is None:
        _answer(out, {"ok": False, "error": f"unknown local model {args[:1]!r}"})
        return 2
    threads = min(4, os.cpu_count() or 1)
    try:
        encode = spec.load(threads)
    except Exception as exc:
        _answer(out, {"ok": False, "error": f"cannot load the model: {exc}"})
        return 1
    _answer(out, {"ok": True, "ready": True, "pid": os.getpid()})
    while True:
        frame = read_frame(source)
        if frame is None:
            return 0  # the parent closed stdin or died
        try:
            texts = json.loads(frame)["texts"]
            with blas_threads(threads):
                matrix = np.ascontiguousarray(encode(list(texts)), dtype=np.float32)
            if matrix.ndim != 2:
                raise ValueError(f"the model returned an array of shape {matrix.shape}")
        except Exception as exc:
            _answer(out, {"ok": False, "error": f"{type(exc).__name__}: {exc}"})
            continue
        _answer(out, {"ok": True, "rows": matrix.shape[0], "dim": matrix.shape[1]},
                matrix.tobytes())


if __name__ == "__main__":
    raise SystemExit(main())
