"""Error-memory keyword search ranks within the tenant: another tenant writing thousands of
records that use the same words changes neither which of a tenant's records a search returns
nor their order, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_server import PgServer

from memstrata import Memory, Settings
from memstrata.errormem import ErrorMemory

SETTINGS = Settings(embedder=None, summary_cron=None)

# In tenant A, "alpha" is rare (one record) and "beta" common (three), and every record has the
# same length: by A's own figures the alpha record ranks first for "alpha beta". Tenant B then
# makes "alpha" common in the database as a whole, which by the whole database's figures puts
# A's beta records first.
A_SYMPTOMS = (
    "alpha one two three",
    "beta one two three",
    "beta four five six",
    "beta seven eight nine",
    "nothing to see here",
)
QUERIES = ("alpha beta", "beta", "alpha", "one alpha", "gamma", "nothing beta")
FOREIGN = 2_000


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "memory.db")
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("error_isolation")


async def answers(errors: ErrorMemory) -> dict[tuple[str, str | None], list[str]]:
    return {(q, tool): [r.id for r in await errors.search(q, tool=tool, limit=10)]
            for q in QUERIES for tool in (None, "fetch")}


async def test_another_tenants_records_never_move_a_tenants_error_search(target: str) -> None:
    async with Memory.open(target, settings=SETTINGS, tenant="a", background=False) as a, \
            Memory.open(target, settings=SETTINGS, tenant="b", background=False) as b:
        written = [await a.errors.write(tool_name="fetch" if i % 2 else "shell",
                                        keywords=["k"], symptom=s, action="retry")
                   for i, s in enumerate(A_SYMPTOMS)]
        before = await answers(a.errors)
        if not target.startswith("postgresql"):
            # A's own figures put the rare word's record first (PostgreSQL's ts_rank weighs no
            # word by its frequency, so there the order is by length, then newest).
            assert before[("alpha beta", None)][0] == written[0].id
        assert before[("gamma", None)] == []
        for i in range(FOREIGN):
            await b.errors.write(tool_name="fetch", keywords=["alpha"],
                                 symptom=f"alpha alpha gamma {i}", action="retry")
        after = await answers(a.errors)
        await b.errors.sweep()  # and merging the index's segments changes no answer
        assert await answers(a.errors) == after
        assert [r.id for r in await b.errors.search("alpha", limit=3)]
    assert after == before
