"""A tenant's search index saved beside its SQLite database and read back at the next start
(file I/O only; what to trust is checked here and by the caller).

Without it a process that just started reads and tokenises every hot message of a tenant
before its first search (a minute at a million messages). The saved index is one file per
tenant and vector model, ``<database>.index/<digest>.idx``: a fixed prefix (a magic string,
the header's length and its CRC-32), a JSON header (format, the store's lineage, tenant,
model, the index's vocabulary, senders and sessions with the vector version each was read
at, and each array's type, shape, place and CRC-32), then the index's arrays, each raw and
starting on a 64-byte boundary. A file is written under a temporary name and renamed, so a
reader sees a whole file or the previous one.

The arrays are not read into memory: the file is mapped copy-on-write and each array is a
view of its part of the map, so pages come from the operating system's cache as a search
first touches them, and only the rows the index later changes become the process's own.
Reading 1.3 GB into fresh memory took 0.9-4.8 s on a 2-core machine, mapping it and checking
every CRC 0.4 s. Every array's CRC-32 is checked before it is used, so a truncated or damaged
file fails to load.

Nothing in it is trusted blindly: :func:`load` returns ``None`` (the index is then read from
the store) for a file of another format, tenant, model or dimension, of another database
(its lineage differs: :meth:`memstrata.store.VectorStore.lineage`), or one that does not read
back whole and consistent; the caller drops every session whose vector version moved since
the save, so those are read afresh from the store. The file is only ever replaced, never
written in place, so a map of it stays valid until the index lets it go.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import mmap
import os
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ._tenant import TenantIndex

__all__ = ["FORMAT", "load", "path_for", "save"]

log = logging.getLogger("memstrata")

FORMAT = 2
_MAGIC = b"MSIDX\x00\x02\x00"
_PREFIX = struct.Struct("<8sQI")  # magic, the header's length, the header's CRC-32
_ALIGN = 64
# The suffix of the format before (an uncompressed numpy archive, read into memory): a save
# removes such a file, which the next start no longer reads.
_OLD_SUFFIX = ".npz"


def path_for(directory: str | Path, tenant: str, model: str) -> Path:
    digest = hashlib.sha256(f"{tenant}\x1f{model}".encode()).hexdigest()[:32]
    return Path(directory) / f"{digest}.idx"


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def save(directory: str | Path, tenant: str, model: str, lineage: str,
         arrays: dict[str, npt.NDArray[Any]], facts: dict[str, Any]) -> Path:
    """Write the index :meth:`TenantIndex.state` described; returns the file."""
    target = path_for(directory, tenant, model)
    target.parent.mkdir(parents=True, exist_ok=True)
    parts = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    offsets, at = [], 0
    for a in parts.values():
        offsets.append(at)
        at = _aligned(at + a.nbytes)
    places = [[name, a.dtype.str, list(a.shape), offset, a.nbytes, zlib.crc32(_bytes(a))]
              for (name, a), offset in zip(parts.items(), offsets, strict=True)]
    header = json.dumps({"format": FORMAT, "lineage": lineage, "tenant": tenant,
                         "model": model, **facts, "arrays": places}).encode()
    fd, temp = tempfile.mkstemp(prefix=".saving-", suffix=".idx", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_PREFIX.pack(_MAGIC, len(header), zlib.crc32(header)))
            f.write(header)
            start = _aligned(_PREFIX.size + len(header))
            for offset, a in zip(offsets, parts.values(), strict=True):
                f.write(b"\x00" * (start + offset - f.tell()))
                f.write(_bytes(a))
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    target.with_suffix(_OLD_SUFFIX).unlink(missing_ok=True)
    return target


def _bytes(a: npt.NDArray[Any]) -> memoryview:
    """A contiguous array's bytes, without a copy."""
    return a.reshape(-1).view(np.uint8).data


def load(directory: str | Path, tenant: str, model: str, dim: int,
         lineage: str) -> TenantIndex | None:
    """The index saved for ``tenant`` and ``model``, or ``None`` when there is none or it
    cannot be trusted (says why in the log)."""
    source = path_for(directory, tenant, model)
    if not source.exists():
        return None
    try:
        with open(source, "rb") as f:
            magic, length, crc = _PREFIX.unpack(f.read(_PREFIX.size).ljust(_PREFIX.size))
            if magic != _MAGIC:
                raise ValueError("not a saved index of this format")
            raw = f.read(length)
            if len(raw) != length or zlib.crc32(raw) != crc:
                raise ValueError("its header fails its CRC-32")
            header = json.loads(raw)
            if not isinstance(header, dict):
                raise ValueError("no header")
            expected = {"format": FORMAT, "lineage": lineage, "tenant": tenant,
                        "model": model, "dim": dim}
            wrong = [k for k, v in expected.items() if header.get(k) != v]
            if wrong:
                log.info("saved search index %s ignored: its %s differ from the store's",
                         source, ", ".join(wrong))
                return None
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        arrays = _arrays(mapped, _aligned(_PREFIX.size + length), header.pop("arrays"))
        return TenantIndex.restore(arrays, header)
    except (OSError, ValueError, KeyError, IndexError, TypeError, struct.error) as exc:
        log.warning("saved search index %s ignored: it does not read back whole (%s)",
                    source, exc)
        return None


def _arrays(mapped: mmap.mmap, start: int, places: Any) -> dict[str, npt.NDArray[Any]]:
    """Each array the header places, as a writable view of the copy-on-write map, once its
    bytes pass their CRC-32."""
    if not isinstance(places, list):
        raise ValueError("the arrays are not listed")
    view = memoryview(mapped)
    out: dict[str, npt.NDArray[Any]] = {}
    for name, kind, shape, offset, size, crc in places:
        dtype = np.dtype(str(kind))
        shape = tuple(int(n) for n in shape)
        count = math.prod(shape)
        if dtype.hasobject or count * dtype.itemsize != size or offset < 0 \
                or start + offset + size > len(view):
            raise ValueError(f"array {name} does not fit in the file")
        part = view[start + offset:start + offset + size]
        if zlib.crc32(part) != crc:
            raise ValueError(f"array {name} fails its CRC-32")
        out[str(name)] = np.frombuffer(mapped, dtype=dtype, count=count,
                                       offset=start + offset).reshape(shape)
    return out
