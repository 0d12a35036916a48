"""``memstrata demo``: a bundled bilingual conversation, shown stratum by stratum.

The demo never calls an LLM (its summary is the offline digest), so it runs anywhere. With the
default local embedding model it also shows a semantic search in which an English question finds
a message written in Chinese; ``--no-embedder`` leaves that step out.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import typer
from rich.text import Text

from .._context import Context
from ..errors import InvalidInput
from ..memory import Memory
from ..types import Hit
from ._app import app, emit_json, fail, get_state, one_line, out, run_local
from ._render import context_json, hit_json, hits_table, kv_table, print_summary, print_window

__all__ = ["DEMO_QUERIES", "DEMO_SEMANTIC_QUERY", "DEMO_SESSION", "demo_records"]

DEMO_SESSION = "demo-taiwan-trip"
DEMO_QUERIES = ("train", "night market", "花蓮", '"NEAR" OR (')
DEMO_SEMANTIC_QUERY = "beef noodle soup for dinner"
# Why a search finds what it finds, where the result alone would puzzle.
_WHY = {'"NEAR" OR (': "Search syntax is not interpreted: quotes and brackets are dropped and "
                       "NEAR and OR are plain words (OR is a stop word), so this looks for "
                       "the word 'near'."}
# What the less obvious stats mean.
_STATS_LEGEND = (
    ("hot_messages, hot_bytes", "the messages after the cutoff: those semantic search covers"),
    ("cutoff", "the id up to which messages are in the archive only (0: none yet)"),
    ("cursor", "the id of the newest message the summary covers"),
    ("index_backlog", "messages still waiting to be embedded for semantic search"),
    ("tenant_backlog", "the same for every session of the tenant"),
)


@dataclasses.dataclass
class _DemoRun:
    loaded: int
    before: Context
    after: Context
    searches: list[tuple[str, str, list[Hit]]]
    stats: dict[str, Any]
    index_seconds: float | None


def demo_records() -> list[str]:
    """The bundled sample conversation, as JSONL lines in the export format."""
    text = resources.files("memstrata").joinpath("data/demo.jsonl").read_text("utf-8")
    return text.splitlines()


async def _demo_steps(mem: Memory) -> _DemoRun:
    # The demo owns its session: a re-run replaces it rather than doubling it.
    await mem.remove(DEMO_SESSION)
    loaded = await mem.import_(DEMO_SESSION, demo_records())
    before = await mem.context(DEMO_SESSION)
    await mem.summarize(DEMO_SESSION)
    after = await mem.context(DEMO_SESSION)
    searches = [(q, "keyword", await mem.search(DEMO_SESSION, q, match="keyword", limit=3))
                for q in DEMO_QUERIES]
    index_seconds = None
    if mem.embedder is not None:
        started = time.perf_counter()
        await mem.flush()  # the first embedding loads the local model
        index_seconds = time.perf_counter() - started
        # The whole conversation, window included: the demo shows what the model can find.
        hits = await mem.search(DEMO_SESSION, DEMO_SEMANTIC_QUERY, match="semantic", limit=2,
                                exclude_window=False)
        searches.append((DEMO_SEMANTIC_QUERY, "semantic", hits))
    stats_ = dataclasses.asdict(await mem.stats(DEMO_SESSION))
    return _DemoRun(loaded=loaded, before=before, after=after, searches=searches,
                    stats=stats_, index_seconds=index_seconds)


def _print_searches(run_: _DemoRun, tz: ZoneInfo) -> None:
    console = out()
    console.rule("[bold]3. Search (keyword: BM25 over the archive + CJK bigrams)")
    for query, mode, hits in run_.searches:
        if mode == "semantic":
            console.rule("[bold]4. Semantic search (local multilingual model, offline)")
            console.print(f"Indexed {run_.loaded} messages in {run_.index_seconds or 0:.1f} s "
                          "(the model loads on the first embedding). An English question "
                          "finds Chinese messages:", soft_wrap=True)
        console.print(Text(f"search {query!r} ({mode}): {_counted(hits)}", style="bold"))
        if query in _WHY:
            console.print(_WHY[query], soft_wrap=True)
        if hits:
            console.print(hits_table(hits, tz, show_session=False))


def _counted(hits: list[Hit]) -> str:
    """``3 hits``, or ``1 hit and 3 messages around it (·)`` when neighbours are shown."""
    ranked = sum(h.rank is not None for h in hits)
    around = len(hits) - ranked
    text = f"{ranked} hit{'' if ranked == 1 else 's'}"
    if around:
        text += (f" and {around} message{'' if around == 1 else 's'} around "
                 f"{'it' if ranked == 1 else 'them'} (·)")
    return text


def _print_demo(run_: _DemoRun, target: str, tz: ZoneInfo, *, saved: bool) -> None:
    console = out()
    console.rule("[bold]memstrata demo")
    console.print(f"Loaded {run_.loaded} messages (English and Traditional Chinese) into "
                  f"session {DEMO_SESSION!r} of {target}", soft_wrap=True)
    console.rule(f"[bold]1. Context window: the last {len(run_.before.messages)} messages")
    print_window(console, run_.before)
    console.rule("[bold]2. Summarize (no LLM configured: a digest of the older messages)")
    print_summary(console, _clipped(run_.after, 12))
    _print_searches(run_, tz)
    console.rule("[bold]Stats")
    console.print(kv_table(run_.stats.items()))
    for names, meaning in _STATS_LEGEND:
        console.print(f"{names}: {meaning}", soft_wrap=True)
    if saved:
        console.print(f"Try it yourself: memstrata --db {target} search {DEMO_SESSION} "
                      "'sister gets carsick'", soft_wrap=True)
    else:
        console.print("The database was temporary; run `memstrata --db demo.db demo` to keep "
                      "it and explore with the other commands.", soft_wrap=True)


def _clipped(ctx_: Context, lines: int) -> Context:
    """The context with its turn context cut to ``lines`` lines, for display only."""
    if ctx_.turn_context is None:
        return ctx_
    content = ctx_.turn_context["content"].splitlines()
    if len(content) <= lines:
        return ctx_
    shown = [*content[:lines], f"… ({len(content) - lines} more lines)"]
    return dataclasses.replace(ctx_, turn_context={**ctx_.turn_context,
                                                   "content": "\n".join(shown)})


def _demo_json(run_: _DemoRun, target: str, tz: ZoneInfo) -> dict[str, Any]:
    return {"db": target, "session": DEMO_SESSION, "loaded": run_.loaded,
            "context": context_json(run_.before, tz),
            "after_summarize": context_json(run_.after, tz),
            "searches": [{"query": q, "match": mode, "hits": [hit_json(h, tz) for h in hits]}
                         for q, mode, hits in run_.searches],
            "index_seconds": run_.index_seconds, "stats": run_.stats}


@app.command()
def demo(ctx: typer.Context) -> None:
    """Load a bundled bilingual conversation into a fresh database and show each stratum.

    Uses a temporary database unless --db is given (MEMSTRATA_DB is ignored here, so the
    demo never writes into your real memory by accident). No LLM is called: the summary is the
    offline digest. With an embedder (the default local model) it also shows a semantic search.
    """
    state = get_state(ctx)
    state.need_local()
    try:
        offline = state.settings().replace(summary_model=None, decision_model=None)
    except InvalidInput as exc:
        fail(one_line(exc))
    state = dataclasses.replace(state, _settings=offline)
    with tempfile.TemporaryDirectory(prefix="memstrata-demo-") as tmp:
        target = state.db or str(Path(tmp) / "demo.db")
        result = run_local(state, _demo_steps, target=target)
        if state.json:
            emit_json(_demo_json(result, target, state.tz()))
        else:
            _print_demo(result, target if state.db else "a temporary database", state.tz(),
                        saved=state.db is not None)
