"""The storage seam and its backends. All SQL of memstrata lives in this package.

:func:`open_store` picks the backend from the target: a file path, ``sqlite:///path``, or
``:memory:`` open the SQLite backend; ``postgresql://…`` (or ``postgres://…``) the PostgreSQL
backend, imported only then (it needs the ``postgres`` extra). :func:`check_file` and
:func:`salvage` read a SQLite database file without opening it as a store, to name what is
damaged and copy out what can be read. :func:`migrate` copies a SQLite database into a
PostgreSQL one, keeping ids.
"""

from ._migrate import migrate
from ._open import check_file, check_target, open_store, salvage
from ._protocols import ErrorStore, KeyStore, MessageStore, RunStore, Store, VectorStore

__all__ = [
    "ErrorStore",
    "KeyStore",
    "MessageStore",
    "RunStore",
    "Store",
    "VectorStore",
    "check_file",
    "check_target",
    "migrate",
    "open_store",
    "salvage",
]
