"""langchain-tests' standard retriever suite, run against MemstrataRetriever.

The suite builds retrievers from constructor parameters and counts what ``invoke`` and
``ainvoke`` return (``k`` in the constructor and per call); here each retriever opens, on
first use, a real database file filled once for the module. Nothing needs a network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from memstrata import Settings, SyncMemory
from memstrata.adapters.langchain import MemstrataRetriever

SETTINGS = Settings(embedder=None, summary_cron=None)
NOTES = [f"Note {i}: the train to Hualien leaves at {8 + i}:00." for i in range(6)] + [
    "The hotel is near the station.", "Breakfast is included."]


@pytest.fixture(scope="module")
def filled_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("standard") / "memory.db")
    with SyncMemory.open(db, settings=SETTINGS) as mem:
        mem.add_many("trip", [{"role": "user", "content": text} for text in NOTES])
    return db


class TestMemstrataRetrieverStandard(RetrieversIntegrationTests):
    db = ""

    @pytest.fixture(autouse=True)
    def _database(self, filled_db: str) -> None:
        type(self).db = filled_db

    @property
    def retriever_constructor(self) -> type[MemstrataRetriever]:
        return MemstrataRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        assert Path(self.db).exists()
        return {"db": self.db, "session": "trip", "settings": SETTINGS}

    @property
    def retriever_query_example(self) -> str:
        return "train to Hualien"
