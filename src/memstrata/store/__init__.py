"""The storage seam and its backends. All SQL of memstrata lives in this package.

:func:`open_store` picks the backend from the target: a file path, ``sqlite:///path``, or
``:memory:`` open the SQLite backend.
"""

from ._open import check_target, open_store
from ._protocols import ErrorStore, MessageStore, RunStore, Store, VectorStore

__all__ = [
    "ErrorStore",
    "MessageStore",
    "RunStore",
    "Store",
    "VectorStore",
    "check_target",
    "open_store",
]
