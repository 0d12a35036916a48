"""Validated drafts held compactly until they are written: what an import keeps meanwhile.

An import is all or nothing, so every message of it is validated before the one transaction
that writes them, and is held until then. As ``Draft`` objects a message of 600 characters
took about 1 KB (the object, the content, the key, the role and size as objects of their
own, and the allocator's overhead of each); several large imports at once multiplied that.
Here the text of every draft (content, key, metadata) is one UTF-8 byte string appended to
one buffer, the numbers are in one array of machine integers, the role is a bit and the
sender an index into the distinct senders. A draft is made again, the same one, when it is
read (``drafts[i]``, iteration or a slice), so the store writes them a chunk at a time.
"""

from __future__ import annotations

from array import array
from collections.abc import Container, Iterator, Sequence
from typing import overload

from ._ingest import ROLES, new_draft
from .types import Draft

__all__ = ["PackedDrafts", "PackedInts"]

# The integers of one draft, in this order: where its text starts in the buffer, the UTF-8
# lengths of its content, key and metadata (-1: none), its time, and its role and sender
# (``2 * (sender index + 1) + role``: sender 0 is none).
_START, _CONTENT, _KEY, _META, _AT, _WHO = range(6)
_WIDTH = 6
_NONE = -1


class PackedDrafts(Sequence[Draft]):
    """Drafts in the order they were added; ``drafts[i]`` is the ``i``-th, made again."""

    __slots__ = ("_fields", "_sender_ids", "_senders", "_text")

    def __init__(self) -> None:
        self._text = bytearray()
        self._fields = array("q")
        self._senders: list[str] = []
        self._sender_ids: dict[str, int] = {}

    def append(self, d: Draft) -> None:
        content = d.content.encode("utf-8")
        key = b"" if d.key is None else d.key.encode("utf-8")
        meta = b"" if d.meta_json is None else d.meta_json.encode("utf-8")
        who = ROLES.index(d.role)
        if d.sender is not None:
            index = self._sender_ids.get(d.sender)
            if index is None:
                index = self._sender_ids[d.sender] = len(self._senders)
                self._senders.append(d.sender)
            who += 2 * (index + 1)
        self._fields.extend((len(self._text), len(content),
                             _NONE if d.key is None else len(key),
                             _NONE if d.meta_json is None else len(meta), d.at, who))
        self._text += content
        self._text += key
        self._text += meta

    def __len__(self) -> int:
        return len(self._fields) // _WIDTH

    @overload
    def __getitem__(self, index: int) -> Draft: ...

    @overload
    def __getitem__(self, index: slice) -> list[Draft]: ...

    def __getitem__(self, index: int | slice) -> Draft | list[Draft]:
        if isinstance(index, slice):
            return [self._draft(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if not -n <= index < n:
            raise IndexError("draft index out of range")
        return self._draft(index % n if index < 0 else index)

    def __iter__(self) -> Iterator[Draft]:
        for i in range(len(self)):
            yield self._draft(i)

    def _draft(self, i: int) -> Draft:
        start, content_len, key_len, meta_len, at, who = \
            self._fields[i * _WIDTH:(i + 1) * _WIDTH]
        text = self._text
        end = start + content_len
        content = text[start:end].decode("utf-8")
        key = None
        if key_len != _NONE:
            key = text[end:end + key_len].decode("utf-8")
            end += key_len
        meta_json = None if meta_len == _NONE else text[end:end + meta_len].decode("utf-8")
        sender = self._senders[(who >> 1) - 1] if who >> 1 else None
        return new_draft(ROLES[who & 1], content, at, sender, meta_json, key, content_len)

    def replace_key(self, i: int, key: str) -> None:
        """Give draft ``i`` another key of the same UTF-8 length as the one it has (a derived
        key for another: ``x:`` and 32 hex digits)."""
        start, content_len, key_len = self._fields[i * _WIDTH:i * _WIDTH + 3]
        encoded = key.encode("utf-8")
        if len(encoded) != key_len:
            raise ValueError(f"a key of {len(encoded)} bytes cannot replace one of {key_len}")
        at = start + content_len
        self._text[at:at + key_len] = encoded

    def without(self, positions: Container[int]) -> Sequence[Draft]:
        """The drafts whose position is not in ``positions``, in order (a view)."""
        return _Subset(self, array("q", (i for i in range(len(self)) if i not in positions)))


class _Subset(Sequence[Draft]):
    """Some drafts of a ``PackedDrafts``, by position, without copying them."""

    __slots__ = ("_all", "_positions")

    def __init__(self, drafts: PackedDrafts, positions: array[int]) -> None:
        self._all = drafts
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> Draft: ...

    @overload
    def __getitem__(self, index: slice) -> list[Draft]: ...

    def __getitem__(self, index: int | slice) -> Draft | list[Draft]:
        if isinstance(index, slice):
            return [self._all[i] for i in self._positions[index]]
        return self._all[self._positions[index]]

    def __iter__(self) -> Iterator[Draft]:
        for i in self._positions:
            yield self._all[i]


# Not an integer a record can carry as its id here: it stands for "none"; an id that does
# not fit a machine integer (or is this one) is kept aside.
_NO_INT = -(2**63)


class PackedInts(Sequence[int | None]):
    """Integers or ``None`` in the order added (the ids records carried in their file), in
    one array of machine integers."""

    __slots__ = ("_other", "_values")

    def __init__(self) -> None:
        self._values = array("q")
        self._other: dict[int, int] = {}

    def append(self, value: int | None) -> None:
        if value is not None and _NO_INT < value < 2**63:
            self._values.append(value)
            return
        if value is not None:
            self._other[len(self._values)] = value
        self._values.append(_NO_INT)

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> int | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[int | None]: ...

    def __getitem__(self, index: int | slice) -> int | list[int | None] | None:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if not -n <= index < n:
            raise IndexError("index out of range")
        i = index % n if index < 0 else index
        value = self._values[i]
        return value if value != _NO_INT else self._other.get(i)

    def __iter__(self) -> Iterator[int | None]:
        for i, value in enumerate(self._values):
            yield value if value != _NO_INT else self._other.get(i)

    def present(self) -> Iterator[tuple[int, int]]:
        """The positions that hold an integer, with it."""
        for i, value in enumerate(self._values):
            if value != _NO_INT:
                yield i, value
            elif i in self._other:
                yield i, self._other[i]
