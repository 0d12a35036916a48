"""How many BLAS threads a numpy computation may use (``threadpoolctl``).

NumPy's BLAS (OpenBLAS in the wheels) starts one worker thread per core and lets them spin
while they wait for work. A single query is far too small to gain from them, and when another
process keeps every core busy the spinning workers and that process take turns: embedding one
query went from ~4 ms to 100-300 ms. So a query runs on one thread (``blas_threads(1)``) and
only batches (indexing) fan out.

The limit is process-wide (BLAS has no per-thread setting): a batch embedded in a worker thread
while a query holds the limit runs on one thread for those few milliseconds. Each caller sets
the limit it wants on entry, so nothing depends on what the previous caller left behind.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["QUERY_BATCH", "blas_threads"]

QUERY_BATCH = 4
"""Batches of at most this many texts are embedded on one BLAS thread (queries, not indexing)."""

_lock = threading.Lock()
_controller: Any = None
_unavailable = False


def _get_controller() -> Any:
    """The process's ``ThreadpoolController`` (found once: it scans the loaded libraries)."""
    global _controller, _unavailable
    if _controller is None and not _unavailable:
        with _lock:
            if _controller is None and not _unavailable:
                try:
                    from threadpoolctl import ThreadpoolController
                    _controller = ThreadpoolController()
                except Exception:  # no threadpoolctl, or a BLAS it cannot drive
                    _unavailable = True
    return _controller


@contextlib.contextmanager
def blas_threads(limit: int | None) -> Iterator[None]:
    """Run the block with at most ``limit`` BLAS threads (``None``: leave the setting)."""
    controller = _get_controller() if limit is not None else None
    if controller is None:
        yield
        return
    with controller.limit(limits=limit, user_api="blas"):
        yield
