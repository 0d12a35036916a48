"""What a summary costs with a real local model: ``bench/summary.py --llm local``.

SmolLM2-135M-Instruct on llama.cpp's own server (the ``xllamacpp`` wheel; see
``tests/local_llm.py``), one thread, on 127.0.0.1. The first ``--messages`` turns of a LoCoMo
conversation (the generated one when LoCoMo is not on the machine) go into a fresh database and
``summarize()`` runs once, for each ``summary_chunk_chars`` in ``--chunk-chars``, so the same
messages make more, smaller prompts or fewer, larger ones. Reported per size: chunks, seconds
per chunk (wall clock, and the server's own prompt and generation seconds), prompt and reply
tokens per chunk, tokens in and out per message summarised, and whether the run stored a
summary. Tokens are what the server reported (memstrata's ``stats()``).

The tiny model proves the plumbing and shows where the time goes; it says nothing about the
quality of summaries.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from _summary_data import Conversation, generated, locomo, locomo_path

from memstrata import Memory, Settings
from memstrata.errors import ProviderError
from memstrata.summary._run import chunk_messages

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from local_llm import MODEL_NAME, LocalModelServer

__all__ = ["LocalRow", "run_local"]

# A slow machine may need minutes for a reply the schema allows; a client that gave up would
# leave the server generating into the next row's figures.
_TIMEOUT_S = 1200.0
_METRICS = ("prompt_tokens_total", "prompt_seconds_total", "tokens_predicted_total",
            "tokens_predicted_seconds_total")


@dataclass
class LocalRow:
    """One ``summary_chunk_chars`` setting's run."""

    chunk_chars: int
    messages: int
    chunks: int
    seconds: float
    prompt_seconds: float
    generation_seconds: float
    tokens_in: int
    tokens_out: int
    processed_prompt: int  # prompt tokens the server evaluated (the rest came from its cache)
    stored: bool
    error: str = ""


def _metrics(url: str) -> dict[str, float]:
    text = httpx.get(url.removesuffix("/v1") + "/metrics", timeout=10).text
    out: dict[str, float] = {}
    for name in _METRICS:
        found = re.search(rf"^llamacpp:{name}\s+([0-9.e+-]+)$", text, re.MULTILINE)
        out[name] = float(found.group(1)) if found else 0.0
    return out


def _conversation(messages: int) -> Conversation:
    if locomo_path().exists():
        return locomo(limit=1)[0]
    return generated(max(messages, 20))


async def _one(server: LocalModelServer, conv: Conversation, messages: int, chunk_chars: int,
               work: Path) -> LocalRow:
    settings = Settings(embedder=None, summary_cron=None, summary_chunk_chars=chunk_chars,
                        summary_model=f"openai:{MODEL_NAME}", llm_base_url=server.openai_url,
                        llm_max_retries=0, llm_timeout=_TIMEOUT_S)
    turns = conv.turns[:messages]
    async with Memory.open(str(work / f"local-{chunk_chars}.db"), settings=settings,
                           background=False) as mem:
        stored = await mem.add_many("bench", [{"role": t.role, "content": t.content,
                                               "sender": t.sender, "at": t.at} for t in turns])
        chunks = len(chunk_messages(stored, chunk_chars))
        before = _metrics(server.openai_url)
        began = time.perf_counter()
        error = ""
        try:
            await mem.summarize("bench")
        except ProviderError as exc:
            error = str(exc)[:160]
        seconds = time.perf_counter() - began
        after = _metrics(server.openai_url)
        stats = await mem.stats("bench")
    delta = {k: after[k] - before[k] for k in _METRICS}
    return LocalRow(chunk_chars=chunk_chars, messages=len(turns), chunks=chunks,
                    seconds=seconds, prompt_seconds=delta["prompt_seconds_total"],
                    generation_seconds=delta["tokens_predicted_seconds_total"],
                    tokens_in=stats.summary_tokens_in, tokens_out=stats.summary_tokens_out,
                    processed_prompt=int(delta["prompt_tokens_total"]),
                    stored=stats.summary_kind == "llm" and not error, error=error)


def table(rows: Sequence[LocalRow]) -> list[str]:
    lines = ["| chunk chars | messages | chunks | s / chunk | prompt s / chunk | "
             "generation s / chunk | prompt tokens / chunk | reply tokens / chunk | "
             "prompt tokens / s | reply tokens / s | tokens in / message | "
             "tokens out / message | stored |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        n = max(r.chunks, 1)
        lines.append(
            f"| {r.chunk_chars:,} | {r.messages} | {r.chunks} | {r.seconds / n:.1f} | "
            f"{r.prompt_seconds / n:.1f} | {r.generation_seconds / n:.1f} | "
            f"{r.tokens_in / n:,.0f} | {r.tokens_out / n:,.0f} | "
            f"{r.processed_prompt / max(r.prompt_seconds, 1e-9):.0f} | "
            f"{r.tokens_out / max(r.generation_seconds, 1e-9):.1f} | "
            f"{r.tokens_in / r.messages:.1f} | {r.tokens_out / r.messages:.1f} | "
            f"{'yes' if r.stored else 'no: ' + r.error} |")
    return lines


def run_local(messages: int, chunk_chars: Sequence[int], threads: int) -> int:
    """Measure and print the table; returns the exit status (1 when a run stored nothing)."""
    conv = _conversation(messages)
    rows: list[LocalRow] = []
    began = time.perf_counter()
    with LocalModelServer(n_ctx=8192, threads=threads, cache_prompt=False) as server, \
            tempfile.TemporaryDirectory(prefix="memstrata-local-") as tmp:
        for size in chunk_chars:
            rows.append(asyncio.run(_one(server, conv, messages, size, Path(tmp))))
            print(f"measured summary_chunk_chars={size}", file=sys.stderr)
    print(f"model: SmolLM2-135M-Instruct Q4_1 on llama.cpp's server (xllamacpp), "
          f"{threads} thread(s), n_ctx 8192, greedy, repeat penalty 1.3, no prompt cache")
    print(f"conversation: {conv.name}, first {rows[0].messages if rows else 0} messages; "
          f"one summarize() per row, no decision model")
    print()
    print("\n".join(table(rows)))
    print(f"\nelapsed: {time.perf_counter() - began:.1f} s")
    return 0 if all(r.stored for r in rows) else 1
