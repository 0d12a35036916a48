"""Reading rows straight from the pages of a damaged SQLite file, without SQLite's b-trees.

When an interior page of a b-tree is damaged (or cut off by a truncation), the leaf pages below
it are intact, but SQLite can no longer reach them. :func:`scan` reads every page of the file
instead (the newest committed copy of a page in the ``-wal`` file wins, as SQLite would read
it), skips the pages on the freelist, and yields the records of every b-tree cell it can decode,
following overflow chains. A cell that does not decode exactly (bad varints, a record whose
sizes do not add up, text that is not valid in the file's encoding, a missing overflow page) is
skipped, so damaged bytes produce no rows rather than wrong ones. The file format is
https://www.sqlite.org/fileformat2.html; nothing here writes.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

__all__ = ["RawRecord", "scan"]

_HEADER = b"SQLite format 3\x00"
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_LEAF_TABLE, _LEAF_INDEX, _INTERIOR_INDEX = 13, 10, 2
_INT_SIZES = (1, 2, 3, 4, 6, 8)
_ENCODINGS = {1: "utf-8", 2: "utf-16-le", 3: "utf-16-be"}


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One decoded b-tree cell: a table row (``rowid`` set) or an index entry, which for a
    ``WITHOUT ROWID`` table is the whole row (``rowid`` is ``None``)."""

    page: int
    rowid: int | None
    values: tuple[object, ...]


class _Bad(Exception):
    """A cell that does not decode; it is skipped."""


def scan(path: str) -> Iterator[RawRecord]:
    """Every record on the file's live b-tree pages (table leaves, index leaves and index
    interiors), page by page. Never raises for damaged content; ``OSError`` if the file cannot
    be read at all."""
    with contextlib.ExitStack() as stack:
        f = stack.enter_context(open(path, "rb"))
        wal, wal_pages = _wal_frames(path + "-wal", _page_size(f))
        wal_file = stack.enter_context(open(path + "-wal", "rb")) if wal else None
        pages = _Pages(f, wal_file, wal, wal_pages)
        free = pages.freelist()
        lock_page = (1 << 30) // pages.size + 1  # the lock-byte page holds no b-tree
        for number in range(1, pages.count + 1):
            if number in free or number == lock_page:
                continue
            data = pages.get(number)
            if data is not None:
                yield from _cells(pages, number, data)


class _Pages:
    """The pages of a database file, overlaid with the committed frames of its WAL."""

    def __init__(self, f: BinaryIO, wal_file: BinaryIO | None, wal: dict[int, int],
                 wal_pages: int) -> None:
        self._f = f
        self._wal_file = wal_file
        self._wal = wal
        f.seek(0)
        head = f.read(100)
        self._valid_header = _page_size(f) != 0
        self.size = _page_size(f) or 4096
        self.usable = self.size - (head[20] if self._valid_header else 0)
        self.encoding = (_ENCODINGS.get(struct.unpack(">I", head[56:60])[0], "utf-8")
                         if self._valid_header else "utf-8")
        # A partial last page (a truncation off a page boundary) is read zero-padded: the
        # cells on its surviving part still decode.
        self.count = wal_pages or -(-os.fstat(f.fileno()).st_size // self.size)

    def get(self, number: int) -> bytes | None:
        """Page ``number`` (1-based), or ``None`` when it is beyond the end of the file (a
        partial page comes zero-padded)."""
        if number < 1:
            return None
        offset = self._wal.get(number)
        if offset is not None and self._wal_file is not None:
            self._wal_file.seek(offset)
            data = self._wal_file.read(self.size)
        else:
            self._f.seek((number - 1) * self.size)
            data = self._f.read(self.size)
        return data.ljust(self.size, b"\x00") if data else None

    def freelist(self) -> set[int]:
        """The pages on the freelist (their content is deleted data, never salvaged). Empty
        when the header or a trunk page is unreadable."""
        first = self.get(1)
        if first is None or not self._valid_header:
            return set()
        trunk, total = struct.unpack(">II", first[32:40])
        free: set[int] = set()
        per_trunk = self.usable // 4 - 2
        while trunk and trunk not in free and len(free) <= total:
            data = self.get(trunk)
            if data is None:
                break
            free.add(trunk)
            nxt, count = struct.unpack(">II", data[:8])
            if count > per_trunk:
                break
            free.update(struct.unpack(f">{count}I", data[8:8 + 4 * count]))
            trunk = nxt
        return free


def _page_size(f: BinaryIO) -> int:
    """The page size the header names, or 0 when the header is not a valid one."""
    f.seek(0)
    head = f.read(100)
    if len(head) < 100 or head[:16] != _HEADER:
        return 0
    raw = struct.unpack(">H", head[16:18])[0]
    size = 65536 if raw == 1 else raw
    return size if size >= 512 and not size & (size - 1) else 0


def _wal_frames(path: str, page_size: int) -> tuple[dict[int, int], int]:
    """The offset of the newest committed frame of each page in the WAL at ``path``, and the
    database size in pages after the last commit (0: no usable WAL). Frames after the first
    one whose salt or cumulative checksum is wrong are not part of the log."""
    try:
        f = open(path, "rb")  # noqa: SIM115
    except OSError:
        return {}, 0
    with f:
        head = f.read(32)
        if len(head) < 32:
            return {}, 0
        magic, _version, size, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", head)
        big = magic == _WAL_MAGIC[1]
        if magic not in _WAL_MAGIC or size != page_size or _checksum(head[:24], (0, 0), big) \
                != (c1, c2):
            return {}, 0
        sums = (c1, c2)
        committed: dict[int, int] = {}
        pending: dict[int, int] = {}
        db_pages = 0
        offset = 32
        while True:
            frame = f.read(24 + page_size)
            if len(frame) < 24 + page_size:
                break
            page, commit, s1, s2, f1, f2 = struct.unpack(">6I", frame[:24])
            if (s1, s2) != (salt1, salt2):
                break
            sums = _checksum(frame[:8] + frame[24:], sums, big)
            if sums != (f1, f2):
                break
            pending[page] = offset + 24
            if commit:
                committed.update(pending)
                pending.clear()
                db_pages = commit
            offset += 24 + page_size
        return committed, db_pages


def _checksum(data: bytes, start: tuple[int, int], big: bool) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    s0, s1 = start
    for i in range(0, len(words) - 1, 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def _cells(pages: _Pages, number: int, data: bytes) -> Iterator[RawRecord]:
    base = 100 if number == 1 else 0
    kind = data[base]
    if kind not in (_LEAF_TABLE, _LEAF_INDEX, _INTERIOR_INDEX):
        return
    count = struct.unpack(">H", data[base + 3:base + 5])[0]
    pointers = base + (8 if kind != _INTERIOR_INDEX else 12)
    end = pointers + 2 * count
    if end > pages.usable:
        return
    for i in range(count):
        offset = struct.unpack(">H", data[pointers + 2 * i:pointers + 2 * i + 2])[0]
        if not end <= offset < pages.usable:
            continue
        try:
            yield _cell(pages, number, data, kind, offset)
        except (_Bad, struct.error, IndexError):
            continue


def _cell(pages: _Pages, number: int, data: bytes, kind: int, offset: int) -> RawRecord:
    pos = offset + (4 if kind == _INTERIOR_INDEX else 0)
    total, pos = _varint(data, pos)
    rowid: int | None = None
    if kind == _LEAF_TABLE:
        rowid, pos = _varint(data, pos)
        if rowid >= 1 << 63:
            rowid -= 1 << 64
    payload = _payload(pages, data, pos, total, table=kind == _LEAF_TABLE)
    return RawRecord(page=number, rowid=rowid, values=_record(payload, pages.encoding))


def _payload(pages: _Pages, data: bytes, pos: int, total: int, *, table: bool) -> bytes:
    """The cell's payload: the part on the page, then its overflow chain."""
    u = pages.usable
    most = u - 35 if table else (u - 12) * 64 // 255 - 23
    if total <= most:
        local = total
    else:
        least = (u - 12) * 32 // 255 - 23
        k = least + (total - least) % (u - 4)
        local = k if k <= most else least
    if pos + local > u:
        raise _Bad
    parts = [data[pos:pos + local]]
    have = local
    if have < total:
        nxt = struct.unpack(">I", data[pos + local:pos + local + 4])[0]
        seen: set[int] = set()
        while have < total:
            page = pages.get(nxt) if nxt not in seen else None
            if page is None:
                raise _Bad
            seen.add(nxt)
            chunk = page[4:u][:total - have]
            parts.append(chunk)
            have += len(chunk)
            nxt = struct.unpack(">I", page[:4])[0]
    return b"".join(parts)


def _record(payload: bytes, encoding: str) -> tuple[object, ...]:
    """The values of a record; the header and the body must account for every byte."""
    header_size, pos = _varint(payload, 0)
    if not pos <= header_size <= len(payload):
        raise _Bad
    types = []
    while pos < header_size:
        serial, pos = _varint(payload, pos)
        types.append(serial)
    if pos != header_size:
        raise _Bad
    values: list[object] = []
    for serial in types:
        value: object
        if serial == 0:
            value = None
        elif serial <= 6:
            n = _INT_SIZES[serial - 1]
            if pos + n > len(payload):
                raise _Bad
            value = int.from_bytes(payload[pos:pos + n], "big", signed=True)
            pos += n
        elif serial == 7:
            value = struct.unpack(">d", payload[pos:pos + 8])[0]
            pos += 8
        elif serial in (8, 9):
            value = serial - 8
        elif serial >= 12:
            n = (serial - 12) // 2
            raw = payload[pos:pos + n]
            if len(raw) != n:
                raise _Bad
            pos += n
            if serial % 2:
                try:
                    value = raw.decode(encoding)
                except UnicodeDecodeError as exc:
                    raise _Bad from exc
            else:
                value = raw
        else:
            raise _Bad
        values.append(value)
    if pos != len(payload):
        raise _Bad
    return tuple(values)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = 0
    for k in range(8):
        byte = data[pos + k]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + k + 1
    return (value << 8) | data[pos + 8], pos + 9
