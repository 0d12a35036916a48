"""mem0 (open source, ``mem0ai``) as a peer: raw messages with ``infer=False``.

Vector store: its ``qdrant`` provider in local mode (a folder, no server). Embedder: its
``langchain`` provider holding memstrata's embedder. mem0 builds an LLM client when it
starts even though ``infer=False`` never calls it: it is given an OpenAI-compatible
configuration pointing at a closed local port, so a call would fail loudly, and none is made.
Telemetry is turned off (``MEM0_TELEMETRY=False``) before mem0 is imported.

Reading the context: mem0 has no "last N messages"; the closest is ``get_all`` of the
session, sorted by ``created_at`` in the caller, keeping the last ``window``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from _peers_embed import SyncEmbedder, langchain_embeddings

NAME = "mem0"
CONTEXT_READ = "get_all(run_id) sorted by created_at, last 20 (no 'last N' read)"
SEARCH = "search(filters={run_id}, threshold=0): semantic (BM25 part off, see notes)"


def version() -> str:
    from importlib.metadata import version as v

    return f"mem0ai {v('mem0ai')}, qdrant-client {v('qdrant-client')}"


class Mem0Peer:
    name = NAME
    can_search = True

    def __init__(self, work: Path, sync: SyncEmbedder, window: int) -> None:
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ.setdefault("MEM0_DIR", str(work / "mem0-home"))
        from mem0 import Memory

        # mem0 logs a warning per call when its optional BM25/spaCy parts are absent.
        logging.getLogger("mem0").setLevel(logging.ERROR)
        self.window = window
        self.mem: Any = Memory.from_config({
            "vector_store": {"provider": "qdrant", "config": {
                "collection_name": "bench", "path": str(work / "mem0-qdrant"),
                "embedding_model_dims": sync.dim, "on_disk": True}},
            "embedder": {"provider": "langchain",
                         "config": {"model": langchain_embeddings(sync)}},
            "llm": {"provider": "openai", "config": {
                "model": "never-called", "api_key": "unused",
                "openai_base_url": "http://127.0.0.1:9/v1"}},
            "history_db_path": str(work / "mem0-history.db"),
        })

    def add(self, session: str, role: str, sender: str, text: str) -> None:
        self.mem.add([{"role": role, "content": text, "name": sender}], run_id=session,
                     infer=False)

    def add_many(self, session: str, items: list[tuple[str, str, str]]) -> list[str]:
        out = self.mem.add([{"role": r, "content": t, "name": s} for r, s, t in items],
                           run_id=session, infer=False)
        return [m["id"] for m in out["results"]]

    def context(self, session: str) -> list[str]:
        got = self.mem.get_all(filters={"run_id": session}, top_k=1_000_000)["results"]
        got.sort(key=lambda m: m["created_at"])
        return [m["memory"] for m in got[-self.window:]]

    def search(self, session: str, query: str, k: int) -> list[str]:
        hits = self.mem.search(query, filters={"run_id": session}, top_k=k, threshold=0.0)
        return [h["id"] for h in hits["results"]]

    def close(self) -> None:
        self.mem.close()
