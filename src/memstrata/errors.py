"""The exception tree of memstrata.

::

    MemstrataError                 every error memstrata raises on purpose
    ├── InvalidInput (ValueError)  bad arguments, records or settings; nothing was changed
    ├── NotFound (LookupError)     the session, message or record does not exist
    ├── StoreError                 the database failed (raised from the driver's error)
    ├── ProviderError              an LLM or embedding provider failed after its retries
    ├── FlushTimeout (TimeoutError) flush(timeout=…) ran out of time; nothing was lost
    └── Closed                     the Memory was used after close()

Every error carries a message that says what was wrong and what is allowed.
"""

from __future__ import annotations

__all__ = [
    "Closed",
    "FlushTimeout",
    "InvalidInput",
    "MemstrataError",
    "NotFound",
    "ProviderError",
    "StoreError",
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


class NotFound(MemstrataError, LookupError):
    """The session, message or record asked for does not exist."""


class StoreError(MemstrataError):
    """The database failed; the original driver error is the ``__cause__``."""


class ProviderError(MemstrataError):
    """An LLM or embedding provider failed (after retrying transient failures)."""


class Closed(MemstrataError):
    """The Memory was used after ``close()``."""


class FlushTimeout(MemstrataError, TimeoutError):
    """``flush(timeout=…)`` ran out of time with messages still waiting to be indexed."""
