"""The conformance suite every Store backend must pass.

Each check is an ``async def check_…(store)`` that receives a fresh, empty store and raises
``AssertionError`` on a violation. A backend's test module runs them all, e.g. with pytest::

    @pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
    async def test_conformance(check, make_store):
        store = await make_store()
        try:
            await check(store)
        finally:
            await store.close()

The checks cover the whole seam: messages, sessions and summaries (``MessageStore``), message
ids as numbers within a tenant, the indexer's queue and the hot tier's vectors
(``store.vectors``), summary runs with their leases and back-off (``store.runs``), what a
worker needs to take over a dead one's claims and lease, the error memory's records
(``store.errors``) and the HTTP service's API keys (``store.api_keys``). Each check
is named for the property it proves; its docstring says what that property is.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._common import Check
from ._errors import ERROR_CHECKS
from ._keys import KEY_CHECKS
from ._messages import MESSAGE_CHECKS
from ._numbers import NUMBER_CHECKS
from ._runs import RUN_CHECKS
from ._takeover import TAKEOVER_CHECKS
from ._vectors import VECTOR_CHECKS

__all__ = ["CHECKS", "Check"]

CHECKS: Sequence[Check] = (*MESSAGE_CHECKS, *NUMBER_CHECKS, *VECTOR_CHECKS, *RUN_CHECKS,
                          *TAKEOVER_CHECKS, *ERROR_CHECKS, *KEY_CHECKS)
"""Every check, in a stable order: messages, ids as numbers within a tenant, vectors, summary
runs, taking over a dead worker's claims and leases, error records, keys."""
