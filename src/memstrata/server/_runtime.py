"""The interpreter tuned for serving: short thread switches and few full collections.

Three settings, applied by ``memstrata serve`` once the app has started (the database and
models open), and put back when it stops:

- ``sys.setswitchinterval``: a thread holding the GIL (the database thread writing an import's
  rows, a worker parsing its body) gives it up after 1 ms instead of 5, so the event loop
  answers a waiting request after a millisecond of someone else's work, not several;
- ``gc.freeze``: what start-up made (modules, models, settings) moves to a generation the
  collector never walks again, so a full collection costs what requests allocate, not what
  the process holds;
- ``gc.set_threshold``: the youngest generation is collected after 2,000 allocations instead
  of 700, so an import allocating millions of small objects triggers a third as many
  collections, each of which stops every thread. Not more: garbage with cycles waits for the
  collector, and at 20,000 a steady service held about 60 MB more (the soak, ``bench/soak.py``)
  with no gain in the import-stall figures (``bench/import_stall.py``).
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["SWITCH_INTERVAL_S", "THRESHOLDS", "serving_runtime"]

SWITCH_INTERVAL_S = 0.001
THRESHOLDS = (2_000, 10, 10)


@contextlib.asynccontextmanager
async def serving_runtime(_app: Any = None) -> AsyncIterator[None]:
    """A lifespan hook (``app.state.lifespan_hooks``): the settings above while the app
    serves, the interpreter's previous ones after."""
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        sys.setswitchinterval(interval)
