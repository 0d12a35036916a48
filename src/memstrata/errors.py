"""The exception tree of memstrata.

::

    MemstrataError                 every error memstrata raises on purpose
    ├── InvalidInput (ValueError)  bad arguments, records or settings; nothing was changed
    │   └── KeyConflict            an idempotency key already names a different message
    ├── NotFound (LookupError)     the session, message or record does not exist
    ├── StoreError                 the database failed (raised from the driver's error)
    │   ├── DiskFull               no space left for a write; nothing of it was stored
    │   ├── DatabaseCorrupt        the database file is damaged (``memstrata check``)
    │   └── DatabaseUnavailable    the database server cannot be reached for now
    ├── ProviderError              an LLM or embedding provider failed after its retries
    │   ├── InvalidSummary         the model replied, but not with a usable summary
    │   └── SummaryFailed          a summary chunk failed; earlier chunks stay saved
    ├── FlushTimeout (TimeoutError) flush(timeout=…) ran out of time; nothing was lost
    └── Closed                     the Memory was used after close()

Every error carries a message that says what was wrong and what is allowed.
"""

from __future__ import annotations

from .types import SummaryResult

__all__ = [
    "Closed",
    "DatabaseCorrupt",
    "DatabaseUnavailable",
    "DiskFull",
    "FlushTimeout",
    "InvalidInput",
    "InvalidSummary",
    "KeyConflict",
    "MemstrataError",
    "NotFound",
    "ProviderError",
    "StoreError",
    "SummaryFailed",
]


class MemstrataError(Exception):
    """Base class of every error memstrata raises on purpose."""


class InvalidInput(MemstrataError, ValueError):
    """An argument, record or setting is not acceptable; nothing was written.

    ``field`` names the offending argument (``"role"``, ``"line 3: content"``, …).
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.reason = message
        super().__init__(f"{field}: {message}")


class KeyConflict(InvalidInput):
    """An idempotency key already names a message with another role or text in the
    session: a retry must send the same message. Nothing was written."""


class NotFound(MemstrataError, LookupError):
    """The session, message or record asked for does not exist."""


class StoreError(MemstrataError):
    """The database failed; the original driver error is the ``__cause__``."""


class DiskFull(StoreError):
    """The disk (file system) holding the database has no space left for a write. The write
    that raised stored nothing; what was acknowledged before stays, and writes work again
    once space is freed (no reopening needed)."""


class DatabaseCorrupt(StoreError):
    """The database file is damaged: SQLite found a page or record it cannot read. Nothing
    is guessed; ``memstrata check`` names what is damaged and ``memstrata salvage`` copies
    what can still be read into a new file."""


class DatabaseUnavailable(StoreError):
    """The database server cannot be reached (PostgreSQL stopped, restarting, or the network
    down). A call that could not get a connection did nothing; one whose connection was cut
    under it may or may not have stored a write whose commit was under way (an idempotency
    key makes the retry safe). Later calls work again once the server is back, without
    reopening."""


class ProviderError(MemstrataError):
    """An LLM or embedding provider failed (after retrying transient failures)."""


class Closed(MemstrataError, RuntimeError):
    """The Memory (or an adapter over it) was used after ``close()``; also a
    ``RuntimeError``, as using a closed object is in Python's own libraries."""


class FlushTimeout(MemstrataError, TimeoutError):
    """``flush(timeout=…)`` ran out of time with messages still waiting to be indexed."""


class InvalidSummary(ProviderError):
    """The model replied, but not with a usable summary (no JSON object, or fewer than two of
    the three summary keys)."""


class SummaryFailed(ProviderError):
    """A chunk failed or its reply did not parse. Earlier chunks are saved (``result``);
    later ones were not sent. The cause is the provider's error or :class:`InvalidSummary`."""

    def __init__(self, message: str, result: SummaryResult) -> None:
        super().__init__(message)
        self.result = result
