"""A tenant's search index saved beside its SQLite database and read back at the next start
(file I/O only; what to trust is checked here and by the caller).

Without it a process that just started reads and tokenises every hot message of a tenant
before its first search (a minute at a million messages). The saved index is one
uncompressed numpy archive per tenant and vector model, ``<database>.index/<digest>.npz``:
the index's arrays and a JSON header (format, the store's lineage, tenant, model, and the
index's vocabulary, senders and sessions with the vector version each was read at). Zip keeps
a CRC-32 of every member and checks it as the member is read, so a truncated or damaged file
fails to load. A file is written under a temporary name and renamed, so a reader sees a whole
file or the previous one.

Nothing in it is trusted blindly: :func:`load` returns ``None`` (the index is then read from
the store) for a file of another format, tenant, model or dimension, of another database
(its lineage differs: :meth:`memstrata.store.VectorStore.lineage`), or one that does not read
back whole and consistent; the caller drops every session whose vector version moved since
the save, so those are read afresh from the store.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ._tenant import TenantIndex

__all__ = ["FORMAT", "load", "path_for", "save"]

log = logging.getLogger("memstrata")

FORMAT = 1


def path_for(directory: str | Path, tenant: str, model: str) -> Path:
    digest = hashlib.sha256(f"{tenant}\x1f{model}".encode()).hexdigest()[:32]
    return Path(directory) / f"{digest}.npz"


def save(directory: str | Path, tenant: str, model: str, lineage: str,
         arrays: dict[str, npt.NDArray[Any]], facts: dict[str, Any]) -> Path:
    """Write the index :meth:`TenantIndex.state` described; returns the file."""
    target = path_for(directory, tenant, model)
    target.parent.mkdir(parents=True, exist_ok=True)
    header = {"format": FORMAT, "lineage": lineage, "tenant": tenant, "model": model, **facts}
    fd, temp = tempfile.mkstemp(prefix=".saving-", suffix=".npz", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            members: dict[str, Any] = {
                "header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), **arrays}
            np.savez(f, **members)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


def load(directory: str | Path, tenant: str, model: str, dim: int,
         lineage: str) -> TenantIndex | None:
    """The index saved for ``tenant`` and ``model``, or ``None`` when there is none or it
    cannot be trusted (says why in the log)."""
    source = path_for(directory, tenant, model)
    if not source.exists():
        return None
    try:
        with open(source, "rb") as f, np.load(f, allow_pickle=False) as archive:
            header = json.loads(archive["header"].tobytes())
            if not isinstance(header, dict):
                raise ValueError("no header")
            expected = {"format": FORMAT, "lineage": lineage, "tenant": tenant,
                        "model": model, "dim": dim}
            wrong = [k for k, v in expected.items() if header.get(k) != v]
            if wrong:
                log.info("saved search index %s ignored: its %s differ from the store's",
                         source, ", ".join(wrong))
                return None
            arrays = {name: archive[name] for name in archive.files if name != "header"}
        return TenantIndex.restore(arrays, header)
    except (OSError, ValueError, KeyError, IndexError, TypeError, EOFError, zipfile.BadZipFile,
            json.JSONDecodeError) as exc:
        log.warning("saved search index %s ignored: it does not read back whole (%s)",
                    source, exc)
        return None
