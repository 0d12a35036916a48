"""Keyword search means what a person expects: whole words (stemmed as the index stems them),
identifiers as typed, Chinese and Japanese by 2-character pairs, and no search at all for a
query of stop words only. Each property holds for hot messages and for messages behind the
compaction cutoff, on SQLite and on PostgreSQL (the real server of ``pg_server``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from pg_server import PgServer
from server_helpers import auth, make_key, running_server
from typer.testing import CliRunner

from memstrata import Memory, Settings
from memstrata.cli import app
from memstrata.errors import InvalidInput
from memstrata.text import contains_phrase, only_stop_words, query_literals, query_terms

CORPUS = (
    "We need to concatenate the files.",
    "The cathedral was beautiful.",
    "Let's start the party at eight.",
    "The cat sat on the mat.",
    "I love modern art.",
    "I run every morning.",
    "got ERR_42 again",
    "I am 42 years old",
    "edit src/app.py now",
    "the guide is at https://example.com/guide/setup today",
    "我妹妹想去花蓮看太魯閣。",
    *["weather weather report"] * 8,
    "What is the weather like in Hualien?",
)
# The turns policy keeps the newest 20 of 40 hot messages: 40 later messages move every
# message of CORPUS behind the cutoff (into the archive only).
SETTINGS = Settings(embedder=None, summary_cron=None, compact_turns=True, max_turns=40,
                    keep_turns=20)
PADDING = [{"role": "user" if i % 2 == 0 else "assistant",
            "content": "a later line that pushes older ones out"} for i in range(40)]

@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "memory.db")
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("keyword")


@pytest.fixture(params=["hot", "archive"])
async def mem(request: pytest.FixtureRequest, target: str) -> AsyncIterator[Memory]:
    """CORPUS in session ``s``: the newest (hot) messages, or all behind the cutoff."""
    async with Memory.open(target, settings=SETTINGS, background=False) as m:
        added = await m.add_many("s", [{"role": "user", "content": c} for c in CORPUS])
        if request.param == "archive":
            await m.add_many("s", PADDING)
            assert (await m.stats("s")).cutoff >= added[-1].id
        yield m


async def found(mem: Memory, query: str, session: str | None = "s") -> set[str]:
    hits = await mem.search(session, query, match="keyword", limit=32)
    return {h.message.content for h in hits if h.matched}


async def test_a_word_matches_whole_words_only(mem: Memory) -> None:
    assert await found(mem, "cat") == {"The cat sat on the mat."}
    assert await found(mem, "cat", session=None) == {"The cat sat on the mat."}
    assert await found(mem, "art") == {"I love modern art."}
    assert await found(mem, "Art?") == {"I love modern art."}
    assert await found(mem, "mat cathedral") == {"The cat sat on the mat.",
                                                  "The cathedral was beautiful."}
    assert await found(mem, "concat") == set()


async def test_a_word_is_stemmed_as_the_index_stems_it(mem: Memory) -> None:
    assert await found(mem, "cats") == {"The cat sat on the mat."}
    assert await found(mem, "running") == {"I run every morning."}
    assert await found(mem, "Cathedrals") == {"The cathedral was beautiful."}


async def test_an_identifier_finds_the_message_that_holds_it(mem: Memory) -> None:
    assert await found(mem, "ERR_42") == {"got ERR_42 again"}
    assert await found(mem, "err_42", session=None) == {"got ERR_42 again"}
    assert await found(mem, "src/app.py") == {"edit src/app.py now"}
    assert await found(mem, "https://example.com/guide/setup") == {
        "the guide is at https://example.com/guide/setup today"}
    assert await found(mem, "42") == {"got ERR_42 again", "I am 42 years old"}


async def test_chinese_is_found_by_two_characters_or_more(mem: Memory) -> None:
    assert await found(mem, "花蓮") == {"我妹妹想去花蓮看太魯閣。"}
    assert await found(mem, "太魯閣") == {"我妹妹想去花蓮看太魯閣。"}
    assert await found(mem, "花蓮 cat") == {"我妹妹想去花蓮看太魯閣。", "The cat sat on the mat."}


async def test_the_query_as_written_leads_however_many_match_a_term_better(
        mem: Memory) -> None:
    hits = await mem.search("s", "what is the weather", match="keyword", limit=3)
    best = min(hits, key=lambda h: h.rank or 99)
    assert best.message.content == "What is the weather like in Hualien?" and best.rank == 1


@pytest.mark.parametrize("query", ["the", "and the", "The AND", "what is it?", '"OR" ('])
async def test_a_keyword_query_of_stop_words_only_is_refused(mem: Memory, query: str) -> None:
    with pytest.raises(InvalidInput) as err:
        await mem.search("s", query, match="keyword")
    assert err.value.field == "query" and "stop words" in err.value.reason
    with pytest.raises(InvalidInput):
        await mem.search(None, query)  # no embedder: keyword is the default


async def test_semantic_and_hybrid_take_a_query_of_stop_words(tmp_path: Path) -> None:
    settings = Settings(embedder="hash:64", summary_cron=None, search_min_score=-1)
    async with Memory.open(str(tmp_path / "m.db"), settings=settings,
                           background=False) as mem:
        await mem.add_many("s", [{"role": "user", "content": c} for c in CORPUS])
        await mem.flush()
        for match in ("semantic", "hybrid"):
            assert isinstance(await mem.search("s", "the", match=match,
                                               exclude_window=False), list)


# -- the rule, as pure functions -----------------------------------------------------------

@pytest.mark.parametrize(("query", "terms", "literals"), [
    ("cat", ["cat"], []),
    ("(cats?)", ["cats"], []),
    ("What did we decide about the database?", ["decide", "database"], []),
    ("don't panic", ["panic"], []),
    ("3pm 4th 1990s", ["3pm", "4th", "1990s"], []),
    ("ERR_42", ["err 42"], ["ERR_42"]),
    ("src/app.py.", ["src app py"], ["src/app.py"]),
    ("https://example.com/a", ["https example com a"], ["https://example.com/a"]),
    ("os.path 10:30 C++ well-known", ["os path", "10 30", "c", "well known"],
     ["os.path", "10:30", "C++", "well-known"]),
    ("mp3 9a7b3c", ["mp3", "9a7b3c"], ["mp3", "9a7b3c"]),
    ("花蓮 太魯閣", ["花蓮", "太魯", "魯閣"], []),
    ("花蓮trip", ["花蓮", "trip"], []),
    ("花", ["花"], ["花"]),
    ("花 cat", ["花", "cat"], []),
    ("***", [], ["***"]),
    ("cat -- *", ["cat"], []),
    ("the", ["the"], []),
])
def test_how_a_keyword_query_is_read(query: str, terms: list[str], literals: list[str]) -> None:
    assert query_terms(query) == terms
    assert query_literals(query) == literals


def test_only_stop_words() -> None:
    for query in ("the", "and the", "The AND", "what is it?", '"OR" (', "don't"):
        assert only_stop_words(query), query
    for query in ("the cat", "the ERR_42", "是 的", "***", "(((", "the 花蓮"):
        assert not only_stop_words(query), query


def test_contains_phrase_respects_word_edges() -> None:
    assert contains_phrase("the cat sat", "cat")
    assert not contains_phrase("concatenate", "cat")
    assert contains_phrase("concatenate the cat", "cat")
    assert contains_phrase("got err_42 again", "err_42")
    assert not contains_phrase("xerr_42", "err_42")
    assert contains_phrase("去花蓮看", "花蓮")
    assert contains_phrase("ok *** done", "***")


# -- every surface answers a refused query as bad input -----------------------------------

def test_http_answers_422_naming_q(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    key = make_key(db, "acme")
    with running_server(db, settings=Settings(summary_cron=None)) as url, \
            httpx.Client(base_url=url, headers=auth(key), timeout=30) as api:
        assert api.post("/v1/sessions/s/messages",
                        json={"role": "user", "content": "The cat sat."}).status_code == 201
        for path in ("/v1/sessions/s/search", "/v1/search"):
            bad = api.get(path, params={"q": "the", "match": "keyword"})
            assert bad.status_code == 422, bad.text
            error = bad.json()["error"]
            assert error["type"] == "invalid_input" and error["field"] == "q"  # as sent
            assert "stop words" in error["message"]
        assert api.get("/v1/sessions/s/search",
                       params={"q": "the", "match": "hybrid"}).status_code == 200


def test_cli_exits_2_naming_query(tmp_path: Path) -> None:
    env = {"COLUMNS": "200", "NO_COLOR": "1", "MEMSTRATA_EMBEDDER": "none"}
    db = str(tmp_path / "memory.db")
    runner = CliRunner()
    added = runner.invoke(app, ["--db", db, "add", "s", "user", "The cat sat."], env=env)
    assert added.exit_code == 0, added.output
    for args in (["search", "s", "the"], ["search", "--all", "and the"]):
        result = runner.invoke(app, ["--db", db, *args], env=env)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: query") and "stop words" in result.stderr
        assert result.stdout == ""


async def test_the_tool_answers_an_error_naming_keyword(tmp_path: Path) -> None:
    async with Memory.open(str(tmp_path / "m.db"), settings=SETTINGS,
                           background=False) as mem:
        await mem.add("s", "user", "The cat sat.")
        answer = await mem.tools("s").execute("chat_history", {
            "mode": "search", "keyword": "the", "match": "keyword"})
        assert answer.startswith("Error: keyword:") and "stop words" in answer
