"""Large imports: drafts held packed, written a chunk at a time in one transaction.

The packed drafts must give back exactly the drafts that went in, and an import larger than
a chunk must store what one ``append`` of all its messages stores: a key repeated across
chunks once, a conflicting key refused in the same words (with nothing stored), the summary's
cursor mapped onto the new ids, and the session's counters counted once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from helpers import T0, ManualClock

from memstrata import KeyConflict, Memory, Settings
from memstrata._ingest import draft
from memstrata._packed import PackedDrafts, PackedInts
from memstrata._transfer import derived_key, parse_history, parse_records
from memstrata.store._batch import IMPORT_CHUNK

PLAIN = Settings(embedder=None, summary_cron=None)
N = 2 * IMPORT_CHUNK + 7  # three chunks, the last a short one


def test_packed_drafts_give_back_the_drafts_packed() -> None:
    made = [
        draft("user", "plain", now=T0, max_chars=1000),
        draft("assistant", "記得，三萬元。🙂", sender="小明", at=T0 - 5, now=T0, max_chars=1000),
        draft("user", "with meta", sender="Bo", meta={"n": 1, "é": [1, 2]}, key="k-1",
              now=T0, max_chars=1000),
        draft("assistant", "again", sender="Bo", key="κλειδί", at=0, now=T0, max_chars=1000),
        draft("user", " \n spaced \n", sender="小明", now=T0, max_chars=1000),
    ]
    packed = PackedDrafts()
    for d in made:
        packed.append(d)
    assert len(packed) == len(made)
    assert list(packed) == made
    assert [packed[i] for i in range(len(made))] == made
    assert packed[-1] == made[-1] and packed[-len(made)] == made[0]
    assert packed[1:4] == made[1:4] and packed[::2] == made[::2]
    with pytest.raises(IndexError):
        packed[len(made)]
    with pytest.raises(IndexError):
        packed[-len(made) - 1]
    rest = packed.without({0, 3})
    assert len(rest) == 3 and list(rest) == [made[1], made[2], made[4]]
    assert rest[0] == made[1] and rest[-1] == made[4] and rest[1:] == [made[2], made[4]]


def test_packed_ints_keep_any_integer_and_none() -> None:
    values: list[int | None] = [None, 0, 1, -1, 2**63 - 1, -(2**63), -(2**63) + 1, 2**70,
                                -(2**70), None, 42]
    packed = PackedInts()
    for v in values:
        packed.append(v)
    assert len(packed) == len(values)
    assert list(packed) == values
    assert [packed[i] for i in range(len(values))] == values
    assert packed[-1] == 42 and packed[2:5] == values[2:5]
    assert list(packed.present()) == [(i, v) for i, v in enumerate(values) if v is not None]


def test_keyless_records_are_numbered_by_occurrence() -> None:
    """Equal records without key or id get the keys they always got: the n-th occurrence of
    the same message is told apart by n, whatever lies between them."""
    line = json.dumps({"type": "message", "role": "user", "content": "same"})
    other = json.dumps({"type": "message", "role": "user", "content": "same", "sender": "A"})
    parsed = parse_records("s", [line, other, line, line], now=T0, max_chars=100)
    keys = [d.key for d in parsed.drafts]
    assert keys == [derived_key("user", "same", None, None, "n:1"),
                    derived_key("user", "same", "A", None, "n:1"),
                    derived_key("user", "same", None, None, "n:2"),
                    derived_key("user", "same", None, None, "n:3")]
    again = parse_records("s", [line, line, other, line], now=T0, max_chars=100)
    assert [d.key for d in again.drafts] == [keys[0], keys[2], keys[1], keys[3]]
    # A history array's entries likewise, by role, content, sender and time.
    entry = {"role": "user", "content": "same", "sendAt": T0}
    history = parse_history([entry, {**entry, "sendAt": T0 + 1}, entry], now=T0,
                            max_chars=100)
    assert [d.key for d in history] == [derived_key("user", "same", None, T0, "n:1"),
                                        derived_key("user", "same", None, T0 + 1, "n:1"),
                                        derived_key("user", "same", None, T0, "n:2")]


@pytest.fixture
async def mem(db_path: str, clock: ManualClock) -> AsyncIterator[Memory]:
    async with Memory.open(db_path, settings=PLAIN, background=False, clock=clock) as m:
        yield m


def _records(n: int, *, ids: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        r: dict[str, Any] = {"type": "message", "role": "user" if i % 2 == 0 else "assistant",
                             "content": f"message {i} 訊息", "at": T0 - (n - i) * 1000}
        if i % 3 == 0:
            r["sender"] = f"person {i % 5}"
        if i % 7 == 0:
            r["meta"] = {"i": i}
        if ids:
            r["id"] = 1000 + i
        out.append(r)
    return out


async def _import_in_chunks(mem: Memory) -> None:
    records = _records(N)
    # A key used in the first chunk comes back in the last, with the same message.
    records[5]["key"] = records[N - 2]["key"] = "twice"
    records[N - 2] |= {"role": records[5]["role"], "content": records[5]["content"]}
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    assert await mem.import_("big", lines) == N - 1
    stored = [r async for r in mem.export("big")]
    assert len(stored) == N - 1
    want = [r for i, r in enumerate(records) if i != N - 2]
    assert [(r["role"], r["content"], r.get("sender"), r["at"], r.get("meta"))
            for r in stored] == [(r["role"], r["content"], r.get("sender"), r["at"],
                                  r.get("meta")) for r in want]
    assert [r["id"] for r in stored] == sorted(r["id"] for r in stored)
    # The counters are those of one append of the same messages.
    await mem.add_many("same", [{k: v for k, v in r.items() if k != "type"} for r in want])
    got, expected = await mem.stats("big"), await mem.stats("same")
    assert (got.messages, got.hot_messages, got.hot_bytes) == (
        expected.messages, expected.hot_messages, expected.hot_bytes)
    # Importing the file again adds nothing.
    assert await mem.import_("big", lines) == 0


async def _conflict_in_last_chunk(mem: Memory) -> None:
    records = _records(N)
    records[3]["key"] = records[N - 1]["key"] = "clash"
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    with pytest.raises(KeyConflict) as err:
        await mem.import_("clash", lines)
    # The words of one batch with the same clash.
    with pytest.raises(KeyConflict) as same:
        await mem.add_many("other", [{k: v for k, v in r.items() if k != "type"}
                                     for r in records])
    assert (err.value.field, err.value.reason) == (same.value.field, same.value.reason)
    # Nothing of the import was stored, not even its first two chunks.
    assert [s.id for s in await mem.sessions()] == []
    assert [r async for r in mem.export("clash")] == []


async def _summary_cursor_and_restore(mem: Memory) -> None:
    records = _records(N, ids=True)
    cursor_at = IMPORT_CHUNK + 10  # in the second chunk
    summary = {"type": "summary", "kind": "digest", "body": {"text": "so far"},
               "cursor": records[cursor_at]["id"]}
    lines = [json.dumps(r, ensure_ascii=False) for r in [*records, summary]]
    assert await mem.import_("s", lines) == N
    stored = [r async for r in mem.export("s")]
    assert stored[-1]["type"] == "summary"
    assert stored[-1]["cursor"] == stored[cursor_at]["id"]
    # Messages written without a key, exported and restored into their own session with
    # new records after them: only the new ones are added, and the summary's cursor names
    # the same message as before.
    await mem.add_many("r", [{k: v for k, v in r.items() if k not in ("type", "id")}
                             for r in records])
    kept = [r async for r in mem.export("r")]
    more = _records(IMPORT_CHUNK + 3)
    for r in more:
        r["content"] = "new " + r["content"]
        r["at"] += 10**9
    summary["cursor"] = kept[cursor_at]["id"]
    again = [json.dumps(r, ensure_ascii=False) for r in [*kept, *more, summary]]
    assert await mem.import_("r", again) == len(more)
    after = [r async for r in mem.export("r")]
    assert len(after) == N + len(more) + 1
    assert after[:N] == kept
    assert [r["content"] for r in after[N:-1]] == [r["content"] for r in more]
    assert after[-1]["cursor"] == kept[cursor_at]["id"]


async def test_an_import_larger_than_a_chunk(mem: Memory) -> None:
    await _import_in_chunks(mem)


async def test_a_conflicting_key_in_a_later_chunk_stores_nothing(mem: Memory) -> None:
    await _conflict_in_last_chunk(mem)


async def test_summary_cursor_and_restore_across_chunks(mem: Memory) -> None:
    await _summary_cursor_and_restore(mem)


@pytest.fixture
async def pg_mem(pg_url: str, clock: ManualClock,
                 request: pytest.FixtureRequest) -> AsyncIterator[Memory]:
    tenant = request.node.name.removeprefix("test_")[:60]
    async with Memory.open(pg_url, settings=PLAIN, tenant=tenant, background=False,
                           clock=clock) as m:
        yield m


async def test_postgres_import_larger_than_a_chunk(pg_mem: Memory) -> None:
    await _import_in_chunks(pg_mem)


async def test_postgres_conflicting_key_in_a_later_chunk_stores_nothing(
        pg_mem: Memory) -> None:
    await _conflict_in_last_chunk(pg_mem)


async def test_postgres_summary_cursor_and_restore_across_chunks(pg_mem: Memory) -> None:
    await _summary_cursor_and_restore(pg_mem)
