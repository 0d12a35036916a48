"""Search precision: abstaining when nothing matches, exact words never buried, a message found
as itself, time ranges that hold for neighbours, one BLAS thread per query, and what the tool
and the CLI say when nothing matched. Real SQLite files; the real local model where the
ranking's quality is what is tested."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import CountingEmbedder, ManualClock
from typer.testing import CliRunner

from memstrata import InvalidInput, Memory, Settings
from memstrata.cli import app, demo_records
from memstrata.providers import LocalEmbedder
from memstrata.search._ranker import BEST_SHARE, HIT_FLOOR, LEARNED_FLOOR

DAY = 86_400 * 10**9
ROOT = Path(__file__).resolve().parents[1]
DATA = next((p for p in (ROOT.parent / "shared" / "bench-data" / "locomo",
                         Path("/work/shared/bench-data/locomo"))
             if (p / "locomo-dev6.json").exists()), None)
SETTINGS = Settings(summary_cron=None)
OFF_TOPIC = ["quantum chromodynamics lattice", "*", "🙂", "What is the melting point of "
             "tungsten?", "半導體晶圓廠的良率"]


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder()


def _demo() -> list[dict[str, Any]]:
    """The bundled bilingual trip conversation (50 messages), as ``add_many`` items."""
    return [{k: r[k] for k in ("role", "content", "sender", "at")}
            for r in map(json.loads, demo_records()) if r["type"] == "message"]


@pytest.fixture
async def trip(db_path: str, local: LocalEmbedder) -> AsyncIterator[Memory]:
    async with Memory.open(db_path, settings=SETTINGS, embedder=local,
                           background=False) as mem:
        await mem.add_many("trip", _demo())
        await mem.flush()
        yield mem


def _matched(hits: list[Any]) -> list[Any]:
    return sorted((h for h in hits if h.matched), key=lambda h: h.rank)


# -- 1. abstain when nothing matches ---------------------------------------------------------

async def test_a_query_about_nothing_said_returns_nothing(trip: Memory) -> None:
    for query in OFF_TOPIC:
        for match in ("semantic", "hybrid"):
            assert await trip.search("trip", query, match=match, exclude_window=False) == [], (
                query, match)
    # The floor is what abstains: without it the list is filled again.
    filler = await trip.search("trip", "quantum chromodynamics lattice", match="semantic",
                               exclude_window=False, min_score=-1.0)
    assert len(_matched(filler)) == 8


async def test_scores_are_probabilities_above_the_floor(trip: Memory) -> None:
    query = "scooter rental on the mountain road"
    hits = _matched(await trip.search("trip", query, match="semantic", exclude_window=False))
    # The default floor is the best hit's; the others need a share of the best (or a rare
    # word of their own and the floor).
    floor = LEARNED_FLOOR["semantic"]
    best_score = max(h.score for h in hits)
    assert hits and floor <= best_score <= 1.0
    least = min(floor, max(HIT_FLOOR, BEST_SHARE["semantic"] * best_score))
    assert all(least - 1e-6 <= h.score for h in hits)
    assert hits[0].score < 1.0  # not min-max scaled to 1
    # A message's semantic score depends on the conversation searched, not on memories kept
    # one per session beside it, however close to the query they are.
    best = hits[0].message
    await trip.add_many("other", [{"role": "user", "content": "scooter scooter scooter"}])
    await trip.add_many("another", [{"role": "assistant", "content": "機車很危險"}])
    await trip.flush()
    again = {h.message.id: h.score for h in await trip.search(
        None, query, match="semantic", limit=32, exclude_window=False, min_score=-1.0)}
    assert again[best.id] == pytest.approx(hits[0].score, abs=1e-6)
    # A higher floor keeps fewer hits; every hit kept is at or above it.
    loose = _matched(await trip.search("trip", query, match="semantic",
                                       exclude_window=False, limit=32))
    floor = max(h.score for h in loose) - 1e-5  # scores are rounded to 6 places
    strict = _matched(await trip.search("trip", query, match="semantic",
                                        exclude_window=False, limit=32, min_score=floor))
    assert all(h.score >= floor for h in strict) and 0 < len(strict) < len(loose)


async def test_the_default_floor_is_the_best_hits(trip: Memory) -> None:
    """Unset, the floor decides whether a search has an answer (its best hit must reach it);
    the other hits need a share of the best hit's probability, so a second hit less sure than
    the floor still comes back, where a floor the caller sets applies to every hit."""
    more = 0
    for query in ("hotel booking", "return flight", "what food should we try", "car rental"):
        default = _matched(await trip.search("trip", query, match="hybrid",
                                             exclude_window=False, limit=32))
        each = _matched(await trip.search("trip", query, match="hybrid", exclude_window=False,
                                          limit=32, min_score=LEARNED_FLOOR["hybrid"]))
        assert {h.message.id for h in each} <= {h.message.id for h in default}, query
        best = max(h.score for h in default)
        assert best >= LEARNED_FLOOR["hybrid"]
        extra = [h for h in default if h.score < LEARNED_FLOOR["hybrid"]]
        assert all(h.score >= max(HIT_FLOOR, BEST_SHARE["hybrid"] * best) - 1e-6
                   for h in extra), query
        more += len(extra)
    assert more > 0  # the best hit's floor kept hits that a floor on every hit drops



@pytest.mark.xfail(strict=True, reason="the answer gate also reads the query's words the best "
                   "hits hold: the hotel's messages hold 'hotel', and it answers with them "
                   "(near-topic questions return nothing 53.8 % of the time, not 56.6 %: "
                   "docs/benchmarks.md, 'The answer gate reads the query's words')")
async def test_a_question_in_the_conversations_words_about_a_thing_never_said_is_gated(
        trip: Memory) -> None:
    """Hybrid search answers only when its best hit is probable enough for how close the best
    few come to the query (the answer gate): the trip's hotel is discussed, its wifi password
    never, and the best hit clears the fixed floor of the best hit that came before the gate,
    yet nothing close enough says it."""
    query = "What is the wifi password of the hotel?"
    every = await trip.search("trip", query, match="hybrid", exclude_window=False,
                              min_score=-1.0, limit=8)
    assert max(h.score for h in every) >= LEARNED_FLOOR["hybrid"]
    assert await trip.search("trip", query, match="hybrid", exclude_window=False) == []


async def test_a_question_the_conversation_answers_in_its_own_words_gets_its_answer(
        trip: Memory) -> None:
    hits = _matched(await trip.search("trip", "What should I bring for the rain?",
                                      match="hybrid", exclude_window=False))
    assert any("rain jacket" in h.message.content for h in hits)

async def test_min_score_is_checked(trip: Memory) -> None:
    for bad in (2.0, -1.5, "high", True):
        with pytest.raises(InvalidInput) as err:
            await trip.search("trip", "train", min_score=bad)  # type: ignore[arg-type]
        assert err.value.field == "min_score"
    with pytest.raises(InvalidInput):
        Settings(search_min_score=1.5)


# -- 2. an exact keyword is never buried -----------------------------------------------------

_LAUNCH = [
    {"role": "user", "content": "Friday?"},
    {"role": "assistant", "content": "Friday works for the demo, Friday afternoon."},
    {"role": "user", "content": "And the launch?"},
    {"role": "assistant", "content": "The release is on Friday, after the final regression run "
                                     "with QA, the changelog review and the staging database "
                                     "migration that Ana is preparing."},
]


def _near_the_word(ids: list[int], contents: list[str], word: str) -> set[int]:
    """Ids of the messages that hold ``word`` or sit within two messages of one that does
    (their neighbour key holds it: they do not merely sound related)."""
    at = [i for i, c in enumerate(contents) if word in c.lower()]
    return {ids[j] for i in at for j in range(max(0, i - 2), min(len(ids), i + 3))}


@pytest.mark.parametrize("layout", ["one session", "two sessions"])
async def test_an_exact_rare_word_outranks_what_merely_sounds_related(
        db_path: str, local: LocalEmbedder, clock: ManualClock, layout: str) -> None:
    """A long message holding a rare word ("Friday") has a low BM25 next to short ones that
    repeat it; min-max fusion then ranked unrelated trip messages above it."""
    trip: list[dict[str, Any]] = [{**m, "at": clock.now - 6 * DAY + i * 10 * 60 * 10**9}
                                  for i, m in enumerate(_demo())]
    launch: list[dict[str, Any]] = [{**m, "at": clock.now - 2 * DAY + i}
                                    for i, m in enumerate(_LAUNCH)]
    async with Memory.open(db_path, settings=SETTINGS, embedder=local, background=False,
                           clock=clock) as mem:
        if layout == "one session":
            sessions = {"trip": await mem.add_many("trip", trip + launch)}
        else:
            sessions = {"trip": await mem.add_many("trip", trip),
                        "work": await mem.add_many("work", launch)}
        await mem.flush()
        near = set().union(*(_near_the_word([m.id for m in ms], [m.content for m in ms],
                                            "friday") for ms in sessions.values()))
        release = sessions["trip" if layout == "one session" else "work"][-1]
        for query in ("Friday", "friday"):
            hits = _matched(await mem.search(None if layout == "two sessions" else "trip",
                                             query, time_range="7d", exclude_window=False))
            ids = [h.message.id for h in hits]
            assert release.id in ids, [h.message.content[:30] for h in hits]
            above = ids[:ids.index(release.id)]
            assert set(above) <= near, [h.message.content[:30] for h in hits]


# -- 3. a message is found as itself ---------------------------------------------------------

async def test_a_message_own_text_finds_it_first(trip: Memory) -> None:
    messages = [m async for m in trip.export("trip") if m["type"] == "message"]
    missed = []
    for m in messages:
        hits = _matched(await trip.search("trip", m["content"], match="semantic", limit=1,
                                          exclude_window=False))
        if not hits or hits[0].message.id != m["id"]:
            missed.append(m["content"][:40])
    assert missed == []


async def test_after_forget_a_message_no_longer_takes_on_its_topic(trip: Memory) -> None:
    """Forget the two messages that discuss the gorge road: the reply after them (about
    renting a scooter) was embedded after the second, and must not now lead a search for
    the gorge; the messages that still name Taroko do."""
    messages = [m async for m in trip.export("trip") if m["type"] == "message"]
    for m in messages[12:14]:
        assert await trip.forget(m["id"])
    await trip.flush()
    hits = _matched(await trip.search("trip", "Taroko Gorge", match="semantic",
                                      exclude_window=False))
    assert "Taroko" in hits[0].message.content, [h.message.content[:30] for h in hits]


async def test_forget_leaves_nothing_in_the_next_message_vector(
        tmp_path: Path, local: LocalEmbedder) -> None:
    """The message after a forgotten one was embedded after its text: it is embedded again,
    so its scores are those of a memory that never held the forgotten message."""
    items = _demo()[12:20]
    query = "the winding road into the gorge makes my sister carsick"
    scores = []
    for name, drop in (("forgot.db", True), ("never.db", False)):
        async with Memory.open(str(tmp_path / name), settings=SETTINGS, embedder=local,
                               background=False) as mem:
            ms = await mem.add_many("s", items if drop else items[:1] + items[2:])
            await mem.flush()
            if drop:
                assert await mem.forget(ms[1].id)
                # The next message is queued to be embedded again.
                assert (await mem.stats("s")).index_backlog == 1
                await mem.flush()
            hits = await mem.search("s", query, match="semantic", limit=32,
                                    exclude_window=False, min_score=-1.0)
            scores.append({h.message.content: h.score for h in hits if h.matched})
    forgot, never = scores
    assert forgot.keys() == never.keys()
    for content, score in never.items():
        assert forgot[content] == pytest.approx(score, abs=1e-4), content


# -- 4. time ranges hold for neighbours ------------------------------------------------------

async def test_neighbours_keep_to_the_time_range(db_path: str, clock: ManualClock) -> None:
    async with Memory.open(db_path, settings=SETTINGS, embedder=CountingEmbedder(),
                           background=False, clock=clock) as mem:
        old: list[dict[str, Any]] = [{"role": "user" if i % 2 == 0 else "assistant",
                                      "content": f"old remark {i} about gardening",
                                      "at": clock.now - 20 * DAY + i} for i in range(6)]
        new = [{"role": "user", "content": "the violin recital is next week",
                "at": clock.now - DAY},
               {"role": "assistant", "content": "noted", "at": clock.now - DAY + 1}]
        await mem.add_many("s", old + new)
        await mem.flush()
        since = clock.now - 7 * DAY
        for match in ("semantic", "hybrid"):
            hits = await mem.search("s", "violin recital", match=match, time_range="7d",
                                    exclude_window=False)
            assert any(h.matched for h in hits)
            assert all(h.message.at >= since for h in hits), match
        everything = await mem.search("s", "violin recital", match="hybrid", limit=1,
                                      exclude_window=False)
        assert any(not h.matched and h.message.at < since for h in everything)


# -- 5. LoCoMo recall holds ------------------------------------------------------------------

@pytest.mark.skipif(DATA is None, reason="the LoCoMo data is not beside this checkout")
async def test_locomo_hybrid_recall_holds(tmp_path: Path, local: LocalEmbedder) -> None:
    """Turn recall of the default hybrid search over LoCoMo dev6, as bench/locomo.py counts
    it, with and without the default floor (the shipped ranker saw these conversations in
    training: the held-out figures are bench/train_ranker.py's)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from locomo import load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert DATA is not None
    recall: dict[int, list[float]] = {5: [], 10: []}
    ranking: dict[int, list[float]] = {5: [], 10: []}
    for conv in load(None, DATA):
        async with Memory.open(str(tmp_path / f"{conv.sample_id}.db"), settings=SETTINGS,
                               embedder=local, background=False) as mem:
            ms = await mem.add_many(conv.sample_id, [
                {"role": "user" if t.speaker == conv.speaker_a else "assistant",
                 "content": t.text, "sender": t.speaker, "at": t.at} for t in conv.turns])
            dia = {m.id: t.dia_id for m, t in zip(ms, conv.turns, strict=True)}
            await mem.flush()
            for q in conv.questions:
                for floor, table in ((None, recall), (-1.0, ranking)):
                    hits = _matched(await mem.search(conv.sample_id, q.text, limit=10,
                                                     exclude_window=False, min_score=floor))
                    ranked = [dia[h.message.id] for h in hits]
                    for k in table:
                        table[k].append(len(q.evidence & set(ranked[:k])) / len(q.evidence))
    r5, r10 = (100 * float(np.mean(recall[k])) for k in (5, 10))
    n5, n10 = (100 * float(np.mean(ranking[k])) for k in (5, 10))
    # The ranking (no floor) at least as good as the fusion's 72.1 / 80.8; the default floor
    # trades a few points for abstaining on what was never discussed.
    assert n5 >= 72 and n10 >= 81, (n5, n10)
    assert r5 >= 70 and r10 >= 77, (r5, r10)


# -- 6. a query does not fan out to BLAS threads ---------------------------------------------

async def test_a_query_embeds_on_one_blas_thread(local: LocalEmbedder) -> None:
    from threadpoolctl import threadpool_info

    await local.embed(["load the model"])
    seen: list[int] = []
    encode = local._encode
    assert encode is not None

    def spy(batch: list[str]) -> Any:  # the real model, observed
        seen.append(max(i["num_threads"] for i in threadpool_info()
                        if i["user_api"] == "blas"))
        return encode(batch)

    local._encode = spy
    try:
        await local.embed(["one query"])
        await local.embed([f"message {i} of a batch" for i in range(64)])
    finally:
        local._encode = encode
    assert seen[0] == 1
    assert seen[1] == local._threads


# -- 16 and the backlog: what the tool and the CLI say ---------------------------------------

async def test_tool_schema_states_the_real_default(db_path: str, tmp_path: Path) -> None:
    async with Memory.open(db_path, settings=SETTINGS, embedder=CountingEmbedder(),
                           background=False) as mem:
        match = mem.tools("s").definitions()[0]["parameters"]["properties"]["match"]
        assert "default hybrid" in match["description"]
    async with Memory.open(str(tmp_path / "k.db"), settings=Settings(embedder=None),
                           background=False) as mem:
        match = mem.tools("s").definitions()[0]["parameters"]["properties"]["match"]
        assert "default keyword" in match["description"]


async def test_tool_says_no_match_or_that_indexing_is_pending(trip: Memory,
                                                              tmp_path: Path) -> None:
    tools = trip.tools("trip")
    text = await tools.execute("chat_history", {"mode": "search",
                                                "keyword": "quantum chromodynamics"})
    assert text == "No messages match 'quantum chromodynamics' (time range all)."
    broken = CountingEmbedder()
    broken.fail = True
    async with Memory.open(str(tmp_path / "b.db"), settings=SETTINGS, embedder=broken,
                           background=False) as mem:
        await mem.add_many("s", [{"role": "user", "content": "the zebra crossing"},
                                 {"role": "assistant", "content": "by the bakery"}])
        text = await mem.tools("s").execute("chat_history", {"mode": "search",
                                                              "keyword": "striped horse"})
        assert text.startswith("No messages match 'striped horse' yet")
        assert "2 message(s)" in text and "indexed" in text
        # A keyword search needs no index: plain "no match".
        text = await mem.tools("s").execute("chat_history", {
            "mode": "search", "keyword": "striped horse", "match": "keyword"})
        assert text == "No messages match 'striped horse' (time range all)."


def test_cli_says_no_match_instead_of_filler(db_path: str) -> None:
    env = {"COLUMNS": "200", "NO_COLOR": "1", "MEMSTRATA_EMBEDDER": "local"}
    runner = CliRunner()
    added = runner.invoke(app, ["--db", db_path, "add", "trip", "user",
                                "Book the train to Hualien"], env=env)
    assert added.exit_code == 0, added.stdout
    found = runner.invoke(app, ["--db", db_path, "search", "trip", "quantum chromodynamics"],
                          env=env)
    assert found.exit_code == 0, found.stdout
    assert "no messages match 'quantum chromodynamics'" in found.stdout
    assert "Hualien" not in found.stdout


def test_cli_says_indexing_is_pending(db_path: str) -> None:
    env = {"COLUMNS": "200", "NO_COLOR": "1", "MEMSTRATA_EMBEDDER": "openai:emb@8",
           "MEMSTRATA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "MEMSTRATA_LLM_API_KEY": "x",
           "MEMSTRATA_LLM_MAX_RETRIES": "0"}
    runner = CliRunner()
    added = runner.invoke(app, ["--db", db_path, "add", "trip", "user",
                                "Book the train to Hualien"], env=env)
    assert added.exit_code == 0, added.stdout
    found = runner.invoke(app, ["--db", db_path, "search", "trip", "striped horse"], env=env)
    assert found.exit_code == 0, (found.stdout, found.stderr)
    assert "no messages match 'striped horse' yet: indexing is pending for 1" in " ".join(
        found.stdout.split())
