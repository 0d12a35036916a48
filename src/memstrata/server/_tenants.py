"""Tenants of one service: one store and one set of models, a ``Memory`` per tenant.

The service opens the database once and builds the embedder and LLMs once (the local model
loads on its first use, for every tenant at once). Each tenant gets its own ``Memory``, a
``sibling`` of the first that shares the store, the models and the search cache and runs its
own background work (indexer, sweeper, summary scheduler). Tenants are made on first use, and
at start for every tenant that holds a valid key, so a backlog left by the last run is indexed
and summarised without waiting for a request.
"""

from __future__ import annotations

import asyncio
import logging
import time

from .._keys import ApiKeys
from .._opening import UNSET, Unset, choose_models
from ..config import Settings
from ..errors import InvalidInput
from ..memory import Clock, Memory
from ..providers import LLM, Embedder
from ..store import Store, check_target, open_store
from ._errors import NotReady

__all__ = ["Tenants"]

log = logging.getLogger("memstrata.server")

# The tenant of the Memory that owns the store; it only makes siblings and serves no requests.
_ROOT_TENANT = "default"


class Tenants:
    """The Memories of one service, by tenant. Open with ``await Tenants.open(target, …)``;
    ``close()`` stops every tenant's background work, then closes the store."""

    def __init__(self, store: Store, root: Memory, *, background: bool) -> None:
        self.store = store
        self.keys = ApiKeys(store.api_keys)
        """The service's API keys."""
        self._root = root
        self._background = background
        self._memories: dict[str, Memory] = {}
        self._closed = False

    @classmethod
    async def open(cls, target: str, *, settings: Settings | None = None,
                   embedder: Embedder | Unset | None = UNSET, llm: LLM | Unset | None = UNSET,
                   decision_llm: LLM | Unset | None = UNSET, background: bool = True,
                   clock: Clock | None = None) -> Tenants:
        """Open the database ``target`` names (creating it if needed) and build the models
        the settings name (or those passed in; ``None``: none). With ``background``, every
        tenant's indexer, sweeper and scheduler run until ``close()``."""
        chosen = settings if settings is not None else Settings()
        if not isinstance(chosen, Settings):
            raise InvalidInput("settings", "must be a memstrata.Settings")
        target = check_target(str(target))
        models = choose_models(chosen, embedder, llm, decision_llm)
        store = await open_store(target, durability=chosen.durability)
        root = Memory(store, chosen, tenant=_ROOT_TENANT, clock=clock or time.time_ns,
                      embedder=models[0], llm=models[1], decision_llm=models[2],
                      owns_store=False)
        tenants = cls(store, root, background=background)
        try:
            for key in await tenants.keys.list():
                # A prefix key's tenants are made as requests name them.
                if key.revoked_at is None and not key.is_prefix:
                    tenants.get(key.tenant)
        except BaseException:
            await tenants.close()
            raise
        return tenants

    @property
    def ready(self) -> bool:
        """Whether requests are served (open, not closing)."""
        return not self._closed

    @property
    def tenants(self) -> list[str]:
        """The tenants with a Memory so far."""
        return sorted(self._memories)

    def get(self, tenant: str) -> Memory:
        """The tenant's Memory (made, with its background work, on first use)."""
        if self._closed:
            raise NotReady("the service is shutting down")
        mem = self._memories.get(tenant)
        if mem is None:
            mem = self._root.sibling(tenant, background=self._background)
            self._memories[tenant] = mem
        return mem

    async def close(self) -> None:
        """Stop every tenant's background work (each within its bound), then close the
        store; safe to call twice. Everything acknowledged is committed already."""
        if self._closed:
            return
        self._closed = True
        memories, self._memories = list(self._memories.values()), {}
        try:
            await asyncio.gather(*(m.close() for m in memories), return_exceptions=True)
            await self._root.close()
        finally:
            await self.store.close()
