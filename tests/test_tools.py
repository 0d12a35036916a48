"""The chat_history tool: schemas in both formats and the text a model sees."""

from __future__ import annotations

import json

import memstrata
from memstrata import Memory


async def test_schemas(mem: Memory) -> None:
    tools = mem.tools("s")
    openai, *errors = tools.openai()
    assert [e["function"]["name"] for e in errors] == ["error_history", "write_error"]
    assert openai["type"] == "function" and openai["function"]["name"] == "chat_history"
    params = tools.definitions()[0]["parameters"]
    assert openai["function"].get("parameters") == params
    assert params["properties"]["mode"]["enum"] == ["search", "list", "read"]
    # Without an embedder, only literal matching is offered.
    assert params["properties"]["match"]["enum"] == ["keyword"]
    assert params["properties"]["limit"]["maximum"] == 32
    anthropic, *_ = tools.anthropic()
    assert anthropic["input_schema"] == params and anthropic["name"] == "chat_history"
    json.dumps(tools.openai())


async def test_execute_modes(mem: Memory) -> None:
    ms = await mem.add_many("s", [
        {"role": "user", "content": "Book the flight to Tokyo", "sender": "Mia"},
        {"role": "assistant", "content": "Booked: 東京 on Friday"},
        {"role": "user", "content": "Thanks"},
    ])
    await mem.add("elsewhere", "user", "Tokyo is also mentioned here")
    tools = mem.tools("s")
    found = await tools.execute("chat_history", {"mode": "search", "keyword": "tokyo"})
    assert f"#{ms[0].id}" in found and "Mia" in found and "elsewhere" not in found
    assert "Tokyo is also" not in found
    zh = await tools.execute("chat_history", json.dumps({"mode": "search", "keyword": "東京"}))
    assert f"#{ms[1].id}" in zh
    listed = await tools.execute("chat_history", {"mode": "list", "limit": 2})
    assert listed.index(f"#{ms[2].id}") < listed.index(f"#{ms[1].id}")
    assert f"before_id={ms[1].id}" in listed
    read = await tools.execute("chat_history", {"mode": "read", "id": ms[1].id})
    assert f"> #{ms[1].id}" in read and f"#{ms[0].id}" in read
    none = await tools.execute("chat_history", {"mode": "search", "keyword": "paris"})
    assert none.startswith("No messages match")


async def test_bad_arguments_come_back_as_text(mem: Memory) -> None:
    other = await mem.add("elsewhere", "user", "private")
    tools = mem.tools("s")
    cases = [
        ("chat_history", "{not json"),
        ("chat_history", {"mode": "dance"}),
        ("chat_history", {"mode": "search"}),
        ("chat_history", {"mode": "search", "keyword": "x", "time_range": "forever"}),
        ("chat_history", {"mode": "search", "keyword": "x", "match": "semantic"}),
        ("chat_history", {"mode": "search", "keyword": "x", "limit": "many"}),
        ("chat_history", {"mode": "read", "id": "abc"}),
        ("chat_history", {"mode": "read", "id": 999_999}),
        ("chat_history", {"mode": "read", "id": other.id}),
        ("chat_history", [1, 2]),
        ("no_such_tool", {}),
    ]
    for name, args in cases:
        text = await tools.execute(name, args)  # type: ignore[arg-type]
        assert text.startswith("Error:"), (args, text)
    assert "private" not in await tools.execute("chat_history", {"mode": "read", "id": other.id})


async def test_limit_is_clamped(mem: Memory) -> None:
    await mem.add_many("s", [{"role": "user", "content": f"note {i}"} for i in range(40)])
    text = await mem.tools("s").execute("chat_history", {"mode": "search", "keyword": "note",
                                                         "limit": 500})
    assert text.count("\n") + 1 == 32


def test_public_surface_is_sorted_and_importable() -> None:
    names = memstrata.__all__
    assert list(names) == sorted(names)
    for name in names:
        assert hasattr(memstrata, name), name


async def test_error_tools_share_the_tenant_memory(mem: Memory) -> None:
    tools = mem.tools("s1")
    written = await tools.execute("write_error", {
        "tool_name": "web_fetch", "keywords": ["timeout"], "symptom": "fetch timed out after 30s",
        "action": "retried with a 60s timeout", "outcome": "resolved"})
    assert not written.startswith("Error"), written
    found = await mem.tools("s2").execute("error_history", {"mode": "search",
                                                            "keyword": "timeout"})
    assert "retried with a 60s timeout" in found
    assert (await mem.errors.search("timeout"))[0].tool_name == "web_fetch"
