"""The background indexer: embeds queued messages in batches, off the write path.

``add`` only queues a message (in its own transaction); this module claims batches, embeds them
with the configured embedder and stores the vectors. A failing embedder is retried with
back-off and never blocks or loses writes; ``drain`` (behind ``Memory.flush``) raises instead
of hanging when the embedder keeps failing or a timeout passes.

A batch claimed by an indexer that died (killed, out of memory) comes back when its claim goes
stale after two minutes, or at once when the indexer can prove the dead one was a process of
this machine (:func:`memstrata._liveness.is_dead`): when nothing is left to claim, it looks at
who holds the remaining claims and gives back those of the dead (:meth:`Indexer.take_over_dead`).

Messages written while no embedder was configured were not queued. Before indexing, on every
idle poll and before counting the backlog, the indexer queues the hot messages above the
tenant's mark that have no vector (:meth:`Indexer.catch_up`): a scan of the ids written since
the last look, in spans, so ``add`` never pays for it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

import numpy as np

from .._background import worker_id
from .._liveness import is_dead
from ..errors import DiskFull, FlushTimeout, MemstrataError, ProviderError
from ..providers import Embedder, background
from ..store import VectorStore
from ..types import Claimed, Vectors
from ._fusion import embedding_keys, vector_dim, vector_model

__all__ = ["Indexer", "embed_texts"]

log = logging.getLogger("memstrata")

_STALE_CLAIM_S = 120
# A message given back this many times (its indexer died holding it, or its embedding
# failed) is no longer taken over at once: if it is what kills the process, the next one
# waits for the stale claim instead of dying in a fast loop.
_TAKEOVER_ATTEMPTS = 3
# A batch is sized to take about this long (from the embedding rate of the last ones; the two
# batches of a turn run side by side), so a turn of one tenant ends within a few seconds
# however slow the model or the machine: another tenant's new message waits for that, not for
# 256 messages of embedding.
_BATCH_TARGET_S = 2.0
_MIN_BATCH = 4
# A batch is embedded in pieces of about this share of the target at the last batches' rate
# (a remote model fast enough gets the batch in one call), and stops between pieces once it
# has run this many times the target: searches that start sharing the cores after the batch
# was sized can make it several times slower than its rate said.
_PIECE_SHARE = 0.25
_MIN_PIECE = 16
_BATCH_LIMIT = 1.25
_CLAIMED_POLL_S = 0.05
_MAX_BACKOFF_S = 60.0
# Ids looked at per catch-up transaction: bounds how long one holds the write lock.
_CATCH_UP_SPAN = 50_000
# Key schemes of earlier releases (see ``_fusion.KEY_SCHEME``). Vectors the same embedder
# made under one of them are re-made once, on their own: the model is the same, only what it
# was given changed. A change of model still waits for ``reindex()``.
_OLDER_SCHEMES = ("prev1",)


def embed_texts(c: Claimed) -> tuple[str, str]:
    """The texts embedded for a message: its own text, and ``sender: text`` after the message
    it follows; their vectors are stored side by side."""
    return embedding_keys(c.message.content, c.message.sender, c.previous, c.previous_sender)


class Indexer:
    """Claims, embeds and stores batches for one tenant (``None``: every tenant), each
    sized to take about ``batch_seconds`` at the rate of the last ones."""

    def __init__(self, vectors: VectorStore, embedder: Embedder, *, tenant: str | None,
                 batch_size: int = 128, clock: Callable[[], int] = time.time_ns,
                 batch_seconds: float = _BATCH_TARGET_S) -> None:
        self._vectors = vectors
        self._embedder = embedder
        self._tenant = tenant
        self._batch = batch_size
        self._seconds = batch_seconds
        self._clock = clock
        self.worker = worker_id()
        self.wake = asyncio.Event()
        """Set when the tenant has new work (a write, a re-index)."""
        self.bell: asyncio.Event | None = None
        """Also set on new work: the wake-up of the loop serving this indexer in turns."""
        self.retry_at = 0.0
        """``time.monotonic()`` before which a failing embedder is not tried again."""
        self._delay = 1.0
        self._rate: float | None = None  # messages a second of a batch, smoothed
        self.last_error: str | None = None
        self.indexed = 0
        self._steps = 0
        self._scan_due = True
        self._schemes_checked = False
        self._held: set[str] = set()

    async def step(self) -> int:
        """Index one batch; returns how many messages it stored (0: nothing was queued)."""
        for held in list(self._held):
            await self._vectors.release(held)
            self._held.discard(held)
        now = self._clock()
        # A claim token per batch: the background loop and a flush() of the same process may
        # step at once, and each must see only its own batch.
        self._steps += 1
        token = f"{self.worker}#{self._steps}"
        claimed = await self._vectors.claim(token, tenant=self._tenant, limit=self.batch_limit,
                                            now=now, stale_before=now - _STALE_CLAIM_S * 10**9)
        if not claimed:
            return 0
        started = time.monotonic()
        try:
            with background():  # searches go first (providers._lane)
                matrix = await self._embed(claimed, started)
        except asyncio.CancelledError:
            # Closing mid-batch: hand the batch back now rather than leaving it claimed until
            # the claim goes stale.
            await self._vectors.release(token)
            raise
        except Exception as exc:
            await self._vectors.release(token)
            self.last_error = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, ProviderError):
                raise
            raise ProviderError(f"the embedder {self._embedder.model_id!r} failed: "
                                f"{exc}") from exc
        done = claimed[:matrix.shape[0] // 2]
        items = [(c.message.id, matrix[2 * i:2 * i + 2].astype("float32").tobytes())
                 for i, c in enumerate(done)]
        try:
            # A batch cut short hands the rest back untried, for the tenant's next turn.
            stored = await self._vectors.put(token, vector_model(self._embedder.model_id),
                                             vector_dim(self._embedder.dim), items,
                                             tried=len(done) == len(claimed))
        except BaseException:
            # The store refused (a full disk): the batch is still claimed. Hand it back before
            # the next claim, not when the claim goes stale minutes later.
            self._held.add(token)
            raise
        self.last_error = None
        self.indexed += stored
        self._learn(len(done), time.monotonic() - started)
        return max(stored, 1)

    async def _embed(self, claimed: Sequence[Claimed], started: float) -> Vectors:
        """The vectors of the batch's texts (two a message), embedded a piece at a time (the
        first batch, whose rate is not known yet, in one). A batch that has run past
        :data:`_BATCH_LIMIT` times its target stops after the piece in progress (the machine
        got busier than the rate it was sized by), so another tenant's turn still comes
        within a few seconds. Fewer vectors than texts mean the batch was cut short there."""
        piece = len(claimed) if self._rate is None else max(
            _MIN_PIECE, int(self._rate * self._seconds * _PIECE_SHARE))
        parts: list[Vectors] = []
        for at in range(0, len(claimed), piece):
            if parts and time.monotonic() - started > self._seconds * _BATCH_LIMIT:
                break
            texts = [t for c in claimed[at:at + piece] for t in embed_texts(c)]
            parts.append(await self._embedder.embed(texts))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    @property
    def batch_limit(self) -> int:
        """How many messages the next batch claims: ``batch_size``, or fewer when the last
        batches show it would take longer than about two seconds."""
        if self._rate is None:
            return self._batch
        return max(_MIN_BATCH, min(self._batch, int(self._rate * self._seconds)))

    def _learn(self, messages: int, seconds: float) -> None:
        rate = messages / max(seconds, 1e-3)
        self._rate = rate if self._rate is None else 0.5 * self._rate + 0.5 * rate

    async def take_over_dead(self) -> int:
        """Give back the tenant's messages claimed by indexers that provably died on this
        machine, instead of waiting for their claims to go stale; returns how many."""
        freed = 0
        for token in await self._vectors.claimants(self._tenant):
            if is_dead(token):
                freed += await self._vectors.unclaim(self._tenant, token,
                                                     below_attempts=_TAKEOVER_ATTEMPTS)
                log.info("indexing: took over the batch of %s, which is no longer running",
                         token)
        return freed

    async def catch_up(self) -> int:
        """Queue the hot messages that have neither a vector nor a place in the queue (written
        while no embedder was configured, by this process or another); returns how many."""
        queued = 0
        while True:
            n, done = await self._vectors.queue_unindexed(self._tenant, span=_CATCH_UP_SPAN)
            queued += n
            if done:
                break
        self._scan_due = False
        return queued

    async def upgrade_older_schemes(self) -> bool:
        """Re-queue the tenant's hot messages once when its vectors were made by this embedder
        under an earlier key scheme (a database indexed by an earlier memstrata); returns
        whether it did."""
        self._schemes_checked = True
        if self._tenant is None:
            return False
        # The usual answer, no vector of another model, costs one count.
        others = await self._vectors.other_model_count(self._tenant,
                                                       vector_model(self._embedder.model_id))
        if not others:
            return False
        # No vector's model is named "": this counts every vector of the tenant.
        every = await self._vectors.other_model_count(self._tenant, "")
        for scheme in _OLDER_SCHEMES:
            older = f"{self._embedder.model_id}+{scheme}"
            if every > await self._vectors.other_model_count(self._tenant, older):
                await self._vectors.requeue(self._tenant)
                return True
        return False

    async def drain(self, timeout: float | None = None) -> None:
        """Index until the tenant's queue is empty; raise on embedder failure or timeout.

        Batches claimed by another indexer (the background task, another process) count as
        not done yet: this waits for them, and takes them over once their claim goes stale,
        or at once when their indexer is known to have died (``take_over_dead``).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        self._scan_due = True  # everything written so far, with or without an embedder
        while True:
            if deadline is not None and time.monotonic() > deadline:
                left = await self._backlog()
                raise FlushTimeout(f"flush timed out with {left} message(s) still queued")
            if await self.steps() == 0:
                if await self._backlog() == 0:
                    return
                if await self.take_over_dead():
                    continue
                await asyncio.sleep(_CLAIMED_POLL_S)

    async def steps(self) -> int:
        """Two batches in flight: one is embedded while the other is claimed or stored, so the
        database work hides behind the model's (measured about 9 % faster than one at a time).
        Returns how many messages they stored; raises the first failure."""
        if not self._schemes_checked:
            await self.upgrade_older_schemes()
        if self._scan_due:
            await self.catch_up()
        done = await asyncio.gather(self.step(), self.step(), return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome
        return sum(d for d in done if isinstance(d, int))

    async def _backlog(self) -> int:
        if self._tenant is None:
            return await self._vectors.backlog_all()
        return await self._vectors.backlog(self._tenant)

    async def backlog(self, session: str | None = None) -> int:
        """Messages of the tenant (or of one session) still waiting to be embedded, those
        written while no embedder was configured included."""
        assert self._tenant is not None, "an indexer of every tenant has no tenant backlog"
        try:
            await self.catch_up()
        except DiskFull:
            # A read must work on a full disk: the count leaves out what was not queued yet.
            log.warning("indexing: the disk is full; the backlog counts queued messages only")
        return await self._vectors.backlog(self._tenant, session)

    async def requeue(self) -> int:
        """Drop the tenant's vectors and queue every hot message again; returns the backlog."""
        assert self._tenant is not None, "re-indexing is done one tenant at a time"
        queued = await self._vectors.requeue(self._tenant)
        self.nudge()
        return queued

    def nudge(self) -> None:
        """Say there is new work (written by this process)."""
        self.wake.set()
        if self.bell is not None:
            self.bell.set()

    @property
    def tenant(self) -> str | None:
        return self._tenant

    async def other_model_vectors(self) -> int:
        """The tenant's vectors made by another model than this indexer's (to re-index)."""
        assert self._tenant is not None
        return await self._vectors.other_model_count(self._tenant,
                                                     vector_model(self._embedder.model_id))

    async def turn(self) -> int:
        """One turn of background indexing: up to two batches; returns how many messages
        they stored (0: nothing to do, or a failure, after which ``retry_at`` is set)."""
        try:
            done = await self.steps()
            if done == 0 and await self.take_over_dead():
                done = 1  # a dead indexer's batches came back: index them now
            self._delay = 1.0
        except ProviderError:
            self.retry_at = time.monotonic() + self._delay
            self._delay = min(self._delay * 2, _MAX_BACKOFF_S)
            return 0
        except MemstrataError:
            done = 0  # a busy or closing database: try again on the next tick
        if done == 0:
            self.wake.clear()
            self._scan_due = True  # look for unqueued messages again on the next turn
        return done
