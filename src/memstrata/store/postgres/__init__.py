"""The PostgreSQL backend: psycopg 3 with a connection pool, full-text search on a
``tsvector`` column, vectors in pgvector's type when the server has it.

Import it only when a PostgreSQL target is opened: it needs the ``postgres`` extra
(``psycopg[binary,pool]``, ``pgvector``), which SQLite users do not install.
"""

from ._store import PostgresStore

__all__ = ["PostgresStore"]
