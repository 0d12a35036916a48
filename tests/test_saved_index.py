"""The tenant index saved beside a SQLite database (``<file>.index/``) and read back by a
process that just started: used only when it belongs to this database and reads back whole,
and then equal to an index read from the store, through writes made after the save."""

from __future__ import annotations

import mmap
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_live_index import DIM, MODEL, QUERIES, RANKER, SETTINGS, _chat, _features

from memstrata import Memory
from memstrata.search import LiveIndexes, _follow
from memstrata.search._ranker import load_rankers, ranker_for
from memstrata.search._snapshot import path_for
from memstrata.search._tenant import TenantIndex
from memstrata.store import Store, open_store


async def _index(live: LiveIndexes, store: Store) -> TenantIndex:
    versions = await store.vectors.versions("default", None)
    return await live.current(store.vectors, "default", MODEL, DIM, versions, whole=True)


async def _equal_to_the_store(live: LiveIndexes, store: Store) -> TenantIndex:
    """The index ``live`` gives holds the messages, vectors and features of one read from
    the store."""
    index = await _index(live, store)
    fresh = await _index(LiveIndexes(2**30), store)
    scope = list(await store.vectors.versions("default", None))
    a, b = index.select(scope), fresh.select(scope)
    assert sorted(a.ids.tolist()) == sorted(b.ids.tolist())
    at = {i: r for i, r in zip(a.ids.tolist(), a.rows.tolist(), strict=True)}
    rows_a = [at[i] for i in b.ids.tolist()]
    for name in ("present", "own_q", "own_scale", "key_q", "key_scale", "times"):
        assert np.array_equal(getattr(index, name)[rows_a], getattr(fresh, name)[b.rows]), name
    for query in QUERIES:
        fa, fb = _features(index, query, scope), _features(fresh, query, scope)
        assert set(fa) == set(fb)
        for mid, row in fb.items():
            assert np.allclose(fa[mid], row, atol=1e-6), (query, mid)
    return index


async def _fill(mem: Memory) -> list[int]:
    """Four sessions; returns the ids of session b."""
    ids: list[int] = []
    for n, s in enumerate(("a", "b", "c", "d")):
        added = await mem.add_many(s, _chat(10 + 2 * n, start=13 * n))
        ids += [m.id for m in added] if s == "b" else []
    await mem.flush()
    return ids


@pytest.fixture(autouse=True)
def _save_early(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_follow, "SAVE_FROM", 20)


async def _saved(path: Path, store: Store) -> LiveIndexes:
    live = LiveIndexes(2**30, saved_in=f"{path}.index")
    await _index(live, store)
    await live.saved()
    return live


async def test_saved_index_read_back_without_the_store(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await _fill(mem)
    store = await open_store(str(path))
    try:
        first = await _saved(path, store)
        assert first.saves == 1 and first.loads == 0
        assert path_for(f"{path}.index", "default", MODEL).exists()
        again = LiveIndexes(2**30, saved_in=f"{path}.index")
        index = await _equal_to_the_store(again, store)
        assert again.loads == 1 and again.reloads == again.repairs == 0
        assert index.size == index.alive_count == 10 + 12 + 14 + 16  # nothing read twice
    finally:
        await store.close()


async def test_the_saved_index_is_mapped_and_a_file_of_the_format_before_removed(
        tmp_path: Path) -> None:
    """A start maps the saved file (its arrays are views of the map, writable copy-on-write,
    so the appends after the start never reach the file), and a save removes the numpy
    archive the format before wrote under the same name."""
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await _fill(mem)
    saved = path_for(f"{path}.index", "default", MODEL)
    old = saved.with_suffix(".npz")
    old.parent.mkdir(parents=True)
    old.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: the format before
    store = await open_store(str(path))
    try:
        await _saved(path, store)
        assert saved.exists() and not old.exists()
        written = saved.read_bytes()
        live = LiveIndexes(2**30, saved_in=f"{path}.index")
        index = await _index(live, store)
        assert live.loads == 1
        base = index.own_q.base
        while isinstance(base, np.ndarray | memoryview):
            base = base.base if isinstance(base, np.ndarray) else base.obj
        assert isinstance(base, mmap.mmap) and index.own_q.flags.writeable
    finally:
        await store.close()
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await mem.add_many("a", _chat(4, start=500))
        await mem.flush()
    store = await open_store(str(path))
    try:
        await _equal_to_the_store(live, store)
    finally:
        await store.close()
    assert saved.read_bytes() == written


async def test_sessions_written_after_the_save_are_read_afresh(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        b = await _fill(mem)
        store = await open_store(str(path))
        try:
            await _saved(path, store)
            await mem.add_many("a", _chat(3, start=90))
            await mem.forget(b[4])
            await mem.reset("c", "all")
            await mem.add_many("e", _chat(4, start=70))
            await mem.flush()
            again = LiveIndexes(2**30, saved_in=f"{path}.index")
            index = await _equal_to_the_store(again, store)
            assert again.loads == 1
            # Session d did not move: its rows came from the file, the others' again.
            assert index.sessions["d"].alive == 16
        finally:
            await store.close()


async def test_index_saved_for_another_database_is_ignored(tmp_path: Path) -> None:
    """Two databases with the very same messages: one's saved index beside the other is
    not used (their lineages differ)."""
    for name in ("one.db", "two.db"):
        async with Memory.open(str(tmp_path / name), settings=SETTINGS,
                               background=False) as mem:
            await _fill(mem)
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    store = await open_store(str(one))
    try:
        await _saved(one, store)
    finally:
        await store.close()
    shutil.copytree(f"{one}.index", f"{two}.index")
    store = await open_store(str(two))
    try:
        live = LiveIndexes(2**30, saved_in=f"{two}.index")
        await _equal_to_the_store(live, store)
        assert live.loads == 0
    finally:
        await store.close()


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty"])
async def test_damaged_saved_index_is_ignored(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await _fill(mem)
    store = await open_store(str(path))
    try:
        await _saved(path, store)
        saved = path_for(f"{path}.index", "default", MODEL)
        data = bytearray(saved.read_bytes())
        if damage == "truncated":
            data = data[:len(data) // 2]
        elif damage == "flipped":
            data[len(data) // 2] ^= 0xFF  # inside the vectors: only the CRC can tell
        else:
            data = bytearray()
        saved.write_bytes(bytes(data))
        live = LiveIndexes(2**30, saved_in=f"{path}.index")
        await _equal_to_the_store(live, store)
        assert live.loads == 0
    finally:
        await store.close()


async def test_saved_again_after_a_quarter_more(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await mem.add_many("a", _chat(24))
        await mem.flush()
        store = await open_store(str(path))
        try:
            live = await _saved(path, store)
            assert live.saves == 1
            await mem.add_many("a", _chat(5, start=30))  # 29 < 1.25 x 24
            await mem.flush()
            await _index(live, store)
            await live.saved()
            assert live.saves == 1
            await mem.add_many("a", _chat(2, start=40))  # 31 >= 30
            await mem.flush()
            await _index(live, store)
            await live.saved()
            assert live.saves == 2
            again = LiveIndexes(2**30, saved_in=f"{path}.index")
            index = await _equal_to_the_store(again, store)
            assert again.loads == 1 and index.size == 31
        finally:
            await store.close()


async def test_memory_saves_beside_its_file(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``Memory`` on a SQLite file saves its tenant index in ``<file>.index/``; a new
    ``Memory`` answers its first search from it."""
    for mode in ("hybrid", "semantic"):
        lent = ranker_for(RANKER, mode)
        assert lent is not None
        monkeypatch.setitem(load_rankers(), ("hash:512", mode), lent)
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await _fill(mem)
        await mem.search(None, "blue kite", match="semantic")
        await mem._live_indexes.saved()
    assert path_for(f"{path}.index", "default", MODEL).exists()
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        hits = await mem.search(None, "blue kite", match="semantic")
        assert hits
        assert mem._live_indexes.loads == 1
