"""A memstrata server's memory, used from Python with the same calls as a local ``Memory``.

    async with RemoteMemory.open("http://127.0.0.1:8765", key) as mem:
        await mem.add("trip", "user", "Let's take the train.")
        ctx = await mem.context("trip")

Replies are the same values (``Message``, ``Hit``, ``Context`` …) and failures the same
``memstrata.errors`` exceptions as in-process (a full disk on the server is ``DiskFull``, its
database failing ``StoreError``); what only a server can fail with is a :class:`ServerError`
carrying the status, the service's kind of error, ``Retry-After`` and ``X-Request-Id``:
:class:`Unauthorized` (401), :class:`Forbidden` (403), :class:`RateLimited` (429),
:class:`Unavailable` (503), :class:`Unreachable` (no answer). :class:`MemoryAPI` is the
surface both share.
"""

from ._api import ErrorsAPI, MemoryAPI
from ._errormem import RemoteErrors
from ._keys import RemoteKeys
from ._remote import FLUSH_TIMEOUT_S, RemoteMemory
from ._wire import Forbidden, RateLimited, ServerError, Unauthorized, Unavailable, Unreachable

__all__ = ["FLUSH_TIMEOUT_S", "ErrorsAPI", "Forbidden", "MemoryAPI", "RateLimited",
           "RemoteErrors", "RemoteKeys", "RemoteMemory", "ServerError", "Unauthorized",
           "Unavailable", "Unreachable"]
