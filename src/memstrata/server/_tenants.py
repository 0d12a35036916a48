"""Tenants of one service: one store and one set of models, a ``Memory`` per tenant.

The service opens the database once and builds the embedder and LLMs once (the local model
loads on its first use, for every tenant at once). Each tenant gets its own ``Memory``, a
``sibling`` of the first that shares the store, the models and the search cache and runs its
own background work (indexer, sweeper, summary scheduler). Tenants are made on first use, and
at start for every tenant that holds a valid key, so a backlog left by the last run is indexed
and summarised without waiting for a request.

At most ``Settings.max_open_tenants`` Memories stay open (a key for a tenant prefix reaches
any number of tenants): past it the least recently used one that no request holds is closed,
and made again on its next use. A request holds its tenant's Memory with :meth:`lease` for as
long as it runs, so nothing is closed under it; what the closed one left to index or
summarise is picked up when it opens again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator

from .._keys import ApiKeys
from .._opening import UNSET, Unset, choose_models
from ..config import Settings
from ..errors import InvalidInput
from ..memory import Clock, Memory, stop_children
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
        self._limit = root.settings.max_open_tenants
        self._memories: OrderedDict[str, Memory] = OrderedDict()  # least recently used first
        self._held: Counter[str] = Counter()
        self._closing: set[asyncio.Task[None]] = set()
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
                if (key.revoked_at is None and not key.is_prefix
                        and len(tenants.tenants) < tenants._limit):
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
        """The tenants with an open Memory."""
        return sorted(self._memories)

    def get(self, tenant: str) -> Memory:
        """The tenant's Memory (made, with its background work, on first use). For a use
        that awaits, :meth:`lease` keeps it from being closed meanwhile."""
        if self._closed:
            raise NotReady("the service is shutting down")
        mem = self._memories.get(tenant)
        if mem is None:
            mem = self._root.sibling(tenant, background=self._background)
            self._memories[tenant] = mem
            self._trim(keep=tenant)
        else:
            self._memories.move_to_end(tenant)
        return mem

    def peek(self, tenant: str) -> Memory | None:
        """The tenant's Memory if it is open, without making it or counting it as a use."""
        return self._memories.get(tenant)

    @contextlib.contextmanager
    def lease(self, tenant: str) -> Iterator[Memory]:
        """The tenant's Memory, kept open until the ``with`` block ends."""
        mem = self.get(tenant)
        self._held[tenant] += 1
        try:
            yield mem
        finally:
            self._held[tenant] -= 1
            if not self._held[tenant]:
                del self._held[tenant]
                self._trim()

    def _trim(self, keep: str | None = None) -> None:
        """Close the least recently used Memories no request holds (nor ``keep``, about to
        be used), down to the limit; a held one stays, past it, until its last request
        ends."""
        excess = len(self._memories) - self._limit
        if excess <= 0 or self._closed:
            return
        idle = [t for t in self._memories if not self._held[t] and t != keep][:excess]
        for tenant in idle:
            mem = self._memories.pop(tenant)
            task = asyncio.get_running_loop().create_task(mem.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        if idle:
            log.debug("closed %d idle tenant(s) past max_open_tenants=%d", len(idle),
                      self._limit)

    async def close(self) -> None:
        """Stop every tenant's background work (each within its bound), then close the
        store; safe to call twice. Everything acknowledged is committed already."""
        if self._closed:
            return
        self._closed = True
        memories, self._memories = list(self._memories.values()), OrderedDict()
        try:
            await asyncio.gather(*(m.close() for m in memories), *self._closing,
                                 return_exceptions=True)
            await self._root.close()
        finally:
            try:
                await stop_children(self._root.embedder)
            finally:
                await self.store.close()
