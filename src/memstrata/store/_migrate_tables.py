"""What a migration between backends copies: the tables, in copy order, each with its key and
the order of the columns in which a row travels from the source's reader to the target's
writer. Pure data, shared by both sides so their row tuples agree.

Left out on purpose: ``summary_runs`` (leases and failure back-off belong to the workers of
the old database) and the full-text indexes (each backend derives its own from the text).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TABLES", "Table", "by_name"]


@dataclass(frozen=True, slots=True)
class Table:
    """One table as a migration sees it."""

    name: str
    key: tuple[str, ...]
    """The columns that name a row, in the order rows are read (and resumed)."""
    columns: tuple[str, ...]
    """Every column copied, key columns included, in the order of a row tuple."""

    def key_of(self, row: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(row[self.columns.index(k)] for k in self.key)


# Sessions before messages (their counters and cutoffs come along as they are), messages
# before what refers to them (vectors and queue entries have foreign keys in PostgreSQL).
TABLES: tuple[Table, ...] = (
    Table("sessions", ("tenant", "id"),
          ("tenant", "id", "message_count", "hot_count", "hot_bytes", "cutoff", "first_at",
           "last_at", "active_at", "summary_due")),
    # Each tenant's next message number (the higher of the two sides wins, as for marks),
    # before the messages: a target used after an interruption never gives out a number the
    # source holds.
    Table("tenants", ("tenant",), ("tenant", "next_seq")),
    Table("messages", ("id",),
          ("id", "tenant", "session", "role", "content", "sender", "at", "meta", "size",
           "idem_key", "seq")),
    Table("summaries", ("tenant", "session"),
          ("tenant", "session", "kind", "body", "cursor", "created_at", "tokens_in",
           "tokens_out")),
    Table("vectors", ("message_id",),
          ("message_id", "tenant", "session", "model", "dim", "vec")),
    Table("index_queue", ("message_id",),
          ("message_id", "tenant", "session")),
    Table("index_marks", ("tenant",), ("tenant", "upto")),
    Table("error_records", ("seq",),
          ("seq", "tenant", "id", "tool_name", "keywords", "symptom", "cause", "action",
           "outcome", "created_at", "expires_at", "hits", "search_text", "embedding",
           "embed_model", "embed_dim")),
    Table("api_keys", ("id",),
          ("id", "tenant", "name", "secret_hash", "created_at", "revoked_at", "scopes",
           "expires_at", "rate_per_second", "messages_per_day", "stored_bytes")),
)


def by_name(name: str) -> Table:
    return next(t for t in TABLES if t.name == name)
