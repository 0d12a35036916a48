"""What the messages say: plain words, no Python on the command line, a BOM accepted, the
model shown nothing of other tenants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import cli, ok

from memstrata import Memory
from memstrata.errors import InvalidInput


async def test_a_bad_match_mode_is_named_without_python(mem: Memory) -> None:
    with pytest.raises(InvalidInput) as err:
        await mem.search("s", "train", match="semntic")  # type: ignore[arg-type]
    assert err.value.field == "match" and "None" not in err.value.reason
    assert err.value.reason == ("must be one of keyword, semantic, hybrid, or left out for the "
                                "default; got 'semntic'")


async def test_the_tool_names_no_tenant_and_says_which_field(mem: Memory) -> None:
    answer = await mem.tools("s").execute("chat_history", {"mode": "read", "id": 999999})
    assert answer == "Error: id: message 999999 is not in this conversation."


async def test_a_byte_order_mark_before_the_first_line_is_accepted(mem: Memory) -> None:
    line = json.dumps({"type": "message", "role": "user", "content": "hello"})
    assert await mem.import_("a", ["\ufeff" + line, line.replace("hello", "again")]) == 2
    assert await mem.import_("b", [b"\xef\xbb\xbf" + line.encode()]) == 1
    history = "\ufeff" + json.dumps([{"role": "user", "content": "hi", "sendAt": 1}])
    assert await mem.import_history("c", history) == 1
    with pytest.raises(InvalidInput, match="line 2"):  # only a file's first line may carry one
        await mem.import_("d", [line, "\ufeff" + line])


def test_the_command_line_counts_and_names_the_range(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    source = tmp_path / "one.jsonl"
    source.write_bytes(b"\xef\xbb\xbf" + json.dumps(
        {"type": "message", "role": "user", "content": "the train to Hualien"}).encode())
    assert ok(cli(db, "import", "trip", str(source))).stdout.strip() == \
        "imported 1 message into trip (jsonl)"
    array = tmp_path / "history.json"
    array.write_bytes(b"\xef\xbb\xbf" + json.dumps([{"role": "user", "content": "hi"}]).encode())
    assert ok(cli(db, "import", "other", str(array))).stdout.strip() == \
        "imported 1 message into other (history array)"
    shown = ok(cli(db, "search", "trip", "ferry", "--time-range", "7d")).stdout
    assert " ".join(shown.split()) == \
        "no messages match 'ferry' in the last 7 days (--time-range 7d)"
    assert " ".join(ok(cli(db, "search", "trip", "ferry")).stdout.split()) == \
        "no messages match 'ferry'"
