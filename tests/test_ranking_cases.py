"""Ranking cases users met with the default settings and the real local model.

Each test is a search a user ran (or one like it) on a short session of realistic chat: a few
facts among filler ("Noted.", "了解。", "今天天氣好熱，不想出門。"). They describe the ranking
being built (a learned ranker whose score is a calibrated probability):

* filler is never a matched hit, even next to a fact (a neighbour is matched only on its
  own evidence, and comes back as a ``matched=False`` neighbour otherwise);
* a question about nothing that was said gets no matched hit, semantic or hybrid;
* a fact is found by a paraphrase, in English or across languages, at the default floor;
* ``Hit.score`` of a matched hit is a probability in [0, 1] from one pass over everything
  searched, so a tenant-wide search ranks by relevance, not by age; whether a search has an
  answer is judged on a message's own evidence and its place in the conversation searched,
  and a conversation kept session by session reads as one;
* a question about how a thing stood at first, or stands now, finds that message of several
  on the subject.

One :class:`Memory` per module, opened as a user opens it (``Memory.open(path)``: default
``Settings``, the local USE model, background indexing waited for with ``flush``); the model
loads once. The sessions are shorter than the default window (16 messages), so they are
searched whole (``exclude_window=False``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import cast

import pytest
import pytest_asyncio
from helpers import chat, matched_hits, show_each, show_hits

from memstrata import Hit, Memory
from memstrata.search._bm25 import tokens
from memstrata.types import MatchMode

pytestmark = pytest.mark.asyncio(loop_scope="module")

DAY = 86_400 * 10**9
MODES = ("semantic", "hybrid")

WEATHER = "今天天氣好熱，不想出門。"
SISTER = "My sister was born on 3 October 1994."
PEANUT = "我對花生過敏，點餐的時候要小心。"
CAT = "Our cat is called Mochi."
MEALS = "I prefer window seats and vegetarian meals."
DEPLOY = "We agreed that the deployment happens every second Tuesday."
MOCHI_ADOPTED = "We adopted a kitten last spring and named her Mochi."
MOCHI_VET = "Mochi has a vet check-up on Friday at 10."
DENTIST = "The dentist appointment is on 14 March at 9:30."

FILLER = frozenset({
    "Noted.", "這個問題很好。", "了解。", WEATHER, "Sounds good!", "Got it.", "好的，沒問題。",
    "OK, thanks!", "哈哈，真的嗎？", "Great, go ahead.", "Enjoy!", "加油！",
})
"""Messages that state nothing: never a matched hit for any query."""


SESSIONS: dict[str, list[dict[str, str]]] = {
    "family": chat(
        "Can you help me keep track of family things?",
        "A: Sure, tell me what you'd like me to remember.",
        "My parents are visiting us in December.",
        "A: Noted.",
        SISTER,
        WEATHER,
        "A: 了解。",
        "My brother Tom works as a nurse in Leeds.",
        "A: Sounds good!",
        "這個問題很好。",
        "Mum's favourite flowers are tulips.",
        "A: Got it.",
        "我們週末要去阿嬤家吃飯。",
        "A: 好的，沒問題。",
        "Remind me to call Dad on Sunday.",
        "A: I'll remind you.",
    ),
    "mochi": chat(
        "Morning!",
        "A: Good morning! How can I help?",
        MOCHI_ADOPTED,
        "A: 這個問題很好。",
        "Noted.",
        "Can you find a good recipe for banana bread?",
        "A: Ripe bananas, flour, butter, sugar and an egg; bake for an hour.",
        MOCHI_VET,
        "A: Noted.",
        WEATHER,
        "A: 了解。",
        "The printer on the third floor is jammed again.",
        "A: Sounds good!",
        "哈哈，真的嗎？",
    ),
    "profile": chat(
        "Hi, I want to set up my preferences.",
        "A: Great, go ahead.",
        PEANUT,
        "A: 了解。",
        "Noted.",
        CAT,
        "A: Sounds good!",
        WEATHER,
        MEALS,
        "A: 這個問題很好。",
        "Got it.",
        DEPLOY,
        "A: 好的，沒問題。",
        "Sounds good!",
        "I'm going to grab a coffee.",
        "A: Enjoy!",
        "OK, thanks!",
    ),
    "daily": chat(
        "What should we cook tonight?",
        "A: Maybe pasta with tomato sauce.",
        "Sounds good!",
        "Don't forget to buy milk and eggs.",
        "A: Noted.",
        WEATHER,
        "要不要叫外送？",
        "A: 好啊，我想吃便當。",
        "The team meeting moved to 3 pm.",
        "A: 了解。",
        "Can you remind me to water the plants?",
        "A: Sure, I'll remind you at 7.",
        "這個問題很好。",
        "我明天要早起去健身房。",
        "A: 加油！",
        "Did you watch the match last night?",
        "A: Yes, what a finish!",
        "Got it.",
        "週末想去看電影嗎？",
        "A: 好的，沒問題。",
    ),
}

OFF_TOPIC = (
    "tell me about black holes",
    "How do I descale an espresso machine?",
    "量子電腦的原理是什麼？",
    "Who wrote the Iliad?",
    "How does a nuclear reactor control its chain reaction?",
    "What is the capital of Mongolia?",
    "Explain the causes of the French Revolution",
    "terraform state locking dynamodb",
    "How hot is the surface of Venus?",
    "GPU shader pipeline stages",
    "相對論的時間膨脹怎麼解釋？",
    "火山爆發的預測方法",
    "請介紹文藝復興的油畫技法",
)
"""Questions about nothing the sessions hold (written for this module, not taken from
``bench/_offtopic.py``: they stay outside any ranker's training half)."""

# The tenant-wide case: 40 sessions of one message each, the dentist among the oldest.
WIDE: tuple[str, ...] = (
    "I finally finished the jigsaw puzzle.",
    DENTIST,
    "Noted.",
    "The library books are due back next week.",
    "我今天中午吃了牛肉麵。",
    "Sounds good!",
    "My laptop battery drains really fast lately.",
    "了解。",
    "We should repaint the living room.",
    "今天天氣好熱，不想出門。",
    "The kids loved the aquarium.",
    "Got it.",
    "I started reading a mystery novel.",
    "這個問題很好。",
    "Let's try the new ramen place on Friday.",
    "好的，沒問題。",
    "My running shoes are worn out.",
    "OK, thanks!",
    "The neighbours are having a barbecue tonight.",
    "哈哈，真的嗎？",
    "I need to renew my gym membership.",
    "Enjoy!",
    "The train was twenty minutes late this morning.",
    "加油！",
    "I bought tomatoes and basil for the sauce.",
    "Great, go ahead.",
    "Our team won the quiz night.",
    "明天要交報告，好緊張。",
    "The washing machine makes a weird noise.",
    "Sounds good!",
    "I'm thinking of learning the guitar.",
    "Noted.",
    "We watched a documentary about penguins.",
    "週末想去爬山。",
    "My phone screen cracked.",
    "了解。",
    "The plants on the balcony need more sun.",
    "Got it.",
    "I'm baking cookies for the office.",
    "好的，沒問題。",
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def memory(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Memory]:
    path = tmp_path_factory.mktemp("ranking") / "memory.db"
    async with Memory.open(str(path)) as mem:
        for session, items in SESSIONS.items():
            await mem.add_many(session, items)
        await mem.flush()
        yield mem


@asynccontextmanager
async def _one_per_session(memory: Memory, tenant: str, prefix: str,
                           texts: Sequence[str]) -> AsyncIterator[Memory]:
    """Another tenant of the same database (the model shared) holding ``texts`` as sessions
    of one message each, one a day, oldest first."""
    mem = memory.sibling(tenant, background=True)
    try:
        start = 1_700_000_000 * 10**9
        for i, text in enumerate(texts):
            await mem.add_many(f"{prefix}-{i:02d}", [{"role": "user", "content": text,
                                                      "at": start + i * DAY}])
        await mem.flush()
        yield mem
    finally:
        await mem.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def wide(memory: Memory) -> AsyncIterator[Memory]:
    """Another tenant: the 40 one-message sessions of :data:`WIDE`."""
    async with _one_per_session(memory, "wide", "note", WIDE) as mem:
        yield mem


# Memories kept one per session, a day apart: "city" and "next month" are in many of them,
# "sister" in one.
MEMORIES: tuple[str, ...] = (
    "Visited the city museum with the kids.",
    "Next month the gym membership renews.",
    "Booked a hotel in the city centre for the conference.",
    "Moved the team meeting to next month.",
    "The city marathon is next month.",
    "My sister Lena moved to Lisbon in March.",
    "Bought a new bike helmet.",
    "Renewed my passport at the city office.",
    "Next month I start the pottery class.",
    "Dinner with Anna at the Thai place.",
)
LISBON = MEMORIES[5]

# Facts about the user kept one per session after :data:`MEMORIES`, as an assistant's memory
# keeps them; the questions about them are lines of recent dialogue.
PROFILE: tuple[str, ...] = (
    "User lives in Ballard, Seattle, with two kids.",
    "User is allergic to shellfish.",
    "User's daughter Maya plays the violin.",
    "User drives a 2015 Subaru Outback.",
    "User prefers aisle seats on long flights.",
    "User's manager is called Priya.",
    "User started learning Spanish on Duolingo.",
    "User's dog Pepper is afraid of thunderstorms.",
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def memories(memory: Memory) -> AsyncIterator[Memory]:
    """Another tenant: :data:`MEMORIES`, one per session."""
    async with _one_per_session(memory, "memories", "memory", MEMORIES) as mem:
        yield mem


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def profile(memory: Memory) -> AsyncIterator[Memory]:
    """Another tenant: :data:`MEMORIES` then :data:`PROFILE`, one per session."""
    async with _one_per_session(memory, "profile", "fact", MEMORIES + PROFILE) as mem:
        yield mem


PLANS = (
    "The guest list for the wedding has 80 people on it.",
    "A: Noted.",
    "Can you suggest a caterer near the lake?",
    "A: Lakeside Kitchen does weddings of that size.",
    "Update: the guest list for the wedding has 120 people on it.",
    "A: 了解。",
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def plans(memory: Memory) -> AsyncIterator[Memory]:
    """Another tenant: one session whose guest count changed, a message a day."""
    mem = memory.sibling("plans", background=True)
    try:
        start = 1_700_000_000 * 10**9
        await mem.add_many("wedding", [
            {"role": "assistant", "content": line[3:], "at": start + i * DAY}
            if line.startswith("A: ") else {"role": "user", "content": line,
                                            "at": start + i * DAY}
            for i, line in enumerate(PLANS)])
        await mem.flush()
        yield mem
    finally:
        await mem.close()


# Two friends chatting over six weeks, a session a week: kept in one session by one tenant and
# session by session by another, with the same times.
CHATS: tuple[tuple[tuple[str, str], ...], ...] = (
    (
        ("Ana", "Hey Ben! Long time no talk. How have you been?"),
        ("Ben", "Pretty good! Busy with the new flat, boxes everywhere."),
        ("Ana", "I know the feeling. Guess what, I got the job at the "
                "children's hospital in Porto!"),
        ("Ben", "No way, congratulations! When do you start?"),
        ("Ana", "Next Monday. Night shifts for the first month, which is a bit scary."),
        ("Ben", "You'll be great. Kids will love you."),
        ("Ana", "Thanks! How's the flat coming along?"),
        ("Ben", "Slowly. The kitchen still has no table."),
        ("Ana", "Haha, eat on the floor like a student again."),
        ("Ben", "That's exactly what I did yesterday."),
        ("Ana", "Talk soon!"),
        ("Ben", "Bye!"),
    ),
    (
        ("Ben", "Ana, I have news too. We adopted a puppy!"),
        ("Ana", "Stop it! What kind?"),
        ("Ben", "A little beagle mix. We named him Biscuit."),
        ("Ana", "That is the cutest name ever."),
        ("Ben", "He chewed my left shoe on the first night."),
        ("Ana", "Welcome to parenthood, haha."),
        ("Ben", "How are the night shifts going?"),
        ("Ana", "Tiring, but the team is lovely."),
        ("Ben", "Glad to hear it."),
        ("Ana", "Send me pictures of the puppy!"),
        ("Ben", "Will do."),
    ),
    (
        ("Ana", "I signed up for the Lisbon marathon in October."),
        ("Ben", "Wow, a full marathon? That's ambitious."),
        ("Ana", "My goal is to finish under four hours."),
        ("Ben", "I believe in you. Are you following a plan?"),
        ("Ana", "Yes, four runs a week, one long run on Sundays."),
        ("Ben", "Impressive. I can barely run for the bus."),
        ("Ana", "Haha, you could join me for the short ones."),
        ("Ben", "Maybe when Biscuit is older he can run with us."),
        ("Ana", "Deal."),
        ("Ben", "Good luck with training!"),
    ),
    (
        ("Ben", "I started a pottery class on Wednesday evenings."),
        ("Ana", "Oh fun! Have you made anything yet?"),
        ("Ben", "A very wobbly bowl. My teacher says it has character."),
        ("Ana", "That's what they always say, haha."),
        ("Ben", "It's relaxing though, I needed something away from screens."),
        ("Ana", "I get that. Work has been intense for me."),
        ("Ben", "Still nights?"),
        ("Ana", "No, I moved to day shifts last week, finally."),
        ("Ben", "Much better for your sleep."),
        ("Ana", "Yes! I feel human again."),
        ("Ben", "Cheers to that."),
    ),
    (
        ("Ana", "My sister Marta is getting married in June!"),
        ("Ben", "Congratulations to her! Where is the wedding?"),
        ("Ana", "In a small vineyard near Évora."),
        ("Ben", "That sounds beautiful."),
        ("Ana", "I'm the maid of honour, so I have to give a speech."),
        ("Ben", "You'll be funny, you always are."),
        ("Ana", "I'm terrified of public speaking though."),
        ("Ben", "Practice it on Biscuit, he's a great listener."),
        ("Ana", "Haha, good idea."),
        ("Ben", "Let me know if you want feedback."),
        ("Ana", "Thanks, I will."),
    ),
    (
        ("Ben", "Bad news, my car broke down on the motorway."),
        ("Ana", "Oh no! Are you okay?"),
        ("Ben", "Yes, just the gearbox. The repair will cost a fortune."),
        ("Ana", "Ugh, I'm sorry. How will you get to work?"),
        ("Ben", "I'll cycle for a few weeks, it's only five kilometres."),
        ("Ana", "Good exercise at least."),
        ("Ben", "That's the spirit."),
        ("Ana", "By the way, I ran thirty kilometres on Sunday."),
        ("Ben", "Thirty! You're a machine."),
        ("Ana", "My knees disagree, haha."),
        ("Ben", "Rest well!"),
    ),
)


def _chat_messages(week: int, session: Sequence[tuple[str, str]]) -> list[dict[str, object]]:
    start = 1_700_000_000 * 10**9 + week * 7 * DAY
    return [{"role": "user" if who == "Ana" else "assistant", "content": text, "sender": who,
             "at": start + i * 60 * 10**9} for i, (who, text) in enumerate(session)]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chats(memory: Memory) -> AsyncIterator[tuple[Memory, Memory]]:
    """Two more tenants: :data:`CHATS` in one session, and a session a week."""
    one = memory.sibling("chats-one", background=True)
    weekly = memory.sibling("chats-weekly", background=True)
    try:
        await one.add_many("chat", [m for week, session in enumerate(CHATS)
                                    for m in _chat_messages(week, session)])
        for week, session in enumerate(CHATS):
            await weekly.add_many(f"week-{week}", _chat_messages(week, session))
        await one.flush()
        await weekly.flush()
        yield one, weekly
    finally:
        await one.close()
        await weekly.close()


async def _search(mem: Memory, session: str | None, query: str, mode: str, *,
                  limit: int | None = None, min_score: float | None = None) -> list[Hit]:
    return await mem.search(session, query, match=cast("MatchMode", mode), exclude_window=False,
                            limit=limit,
                            min_score=min_score)


# -- filler is not a hit ---------------------------------------------------------------------

async def test_the_weather_next_to_a_birthday_is_not_a_hit(memory: Memory) -> None:
    hits = await _search(memory, "family", "When was my sister born?", "semantic")
    matched = [h.message.content for h in matched_hits(hits)]
    assert WEATHER not in matched, show_hits(hits)
    assert SISTER in matched, show_hits(hits)


async def test_hybrid_mochi_returns_only_messages_about_mochi(memory: Memory) -> None:
    hits = await _search(memory, "mochi", "Mochi", "hybrid")
    matched = {h.message.content for h in matched_hits(hits)}
    assert matched == {MOCHI_ADOPTED, MOCHI_VET}, show_hits(hits)


@pytest.mark.parametrize("mode", MODES)
async def test_filler_around_a_fact_comes_back_only_as_a_neighbour(memory: Memory,
                                                                   mode: str) -> None:
    """For each fact of the profile session, the fact is matched and the filler around it is
    at most a ``matched=False`` neighbour."""
    # (The deployment paraphrase is too far for the local encoder: see the paraphrase test.)
    cases = (("profile", "peanut allergy", PEANUT), ("profile", "what is the pet's name", CAT),
             ("family", "When was my sister born?", SISTER))
    wrong = {}
    for session, query, fact in cases:
        hits = await _search(memory, session, query, mode)
        filler = [h.message.content for h in hits if h.matched and h.message.content in FILLER]
        if filler or fact not in [h.message.content for h in matched_hits(hits)]:
            wrong[query] = show_hits(hits)
    assert not wrong, show_each(wrong)


# -- abstain on what was never said ----------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
async def test_off_topic_questions_get_no_matched_hit(memory: Memory, mode: str) -> None:
    vocab = {t for m in SESSIONS["daily"] for t in tokens(m["content"])}
    # The questions share no index term with the session: nothing to match them by.
    assert {q: set(tokens(q)) & vocab for q in OFF_TOPIC} == {q: set() for q in OFF_TOPIC}
    returned = {}
    for query in OFF_TOPIC:
        hits = await _search(memory, "daily", query, mode)
        if matched_hits(hits):
            returned[query] = show_hits(hits)
    assert not returned, f"{len(returned)} of {len(OFF_TOPIC)} answered:{show_each(returned)}"


# -- a fact is found by a paraphrase ---------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("query", ["peanut allergy", "food allergy"])
async def test_an_allergy_question_finds_the_chinese_allergy_first(memory: Memory, query: str,
                                                                    mode: str) -> None:
    hits = await _search(memory, "profile", query, mode)
    matched = matched_hits(hits)
    assert matched and matched[0].message.content == PEANUT, show_hits(hits)


# The local USE encoder puts these paraphrases at a cosine of about 0.15 from their fact, no
# closer than the filler: the learned ranker gives them a probability under the default floor.
_TOO_FAR = pytest.mark.xfail(strict=True, reason="the local encoder does not bring this "
                             "paraphrase above the default floor")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("query", "fact"), [
    ("what is the pet's name", CAT),
    pytest.param("what food does the user eat", MEALS, marks=_TOO_FAR),
    pytest.param("when do we ship releases", DEPLOY, marks=_TOO_FAR),
])
async def test_a_paraphrase_finds_the_fact(memory: Memory, query: str, fact: str,
                                           mode: str) -> None:
    hits = await _search(memory, "profile", query, mode)
    assert fact in [h.message.content for h in matched_hits(hits)], show_hits(hits)


# -- the score is a probability, the same for a message wherever it is searched -------------

QUERIES = ("peanut allergy", "food allergy", "what is the pet's name",
           "what food does the user eat", "when do we ship releases", "When was my sister born?",
           "Mochi", *OFF_TOPIC[:3])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("floor", ["default", "off"])
async def test_a_matched_score_is_a_probability(memory: Memory, mode: str,
                                                floor: str) -> None:
    """Within [0, 1] at the default floor, and with the floor off (``min_score=-1``) too."""
    outside = {}
    for session in ("profile", "family", "mochi"):
        for query in QUERIES:
            hits = await _search(memory, session, query, mode,
                                 min_score=-1.0 if floor == "off" else None)
            if any(not 0.0 <= h.score <= 1.0 for h in hits if h.matched):
                outside[f"{session}: {query}"] = show_hits(hits)
    assert not outside, show_each(outside)


@pytest.mark.parametrize(("query", "mode"), [
    ("When is my dentist appointment?", "semantic"),
    ("When is my dentist appointment?", "hybrid"),
    ("when do I get my teeth checked?", "semantic"),
    ("when do I get my teeth checked?", "hybrid"),
])
async def test_tenant_wide_search_ranks_the_relevant_old_memory_first(wide: Memory, query: str,
                                                                      mode: str) -> None:
    hits = await _search(wide, None, query, mode)
    matched = matched_hits(hits)
    assert matched and matched[0].message.content == DENTIST, show_hits(matched)
    assert all(0.0 <= h.score <= 1.0 for h in matched), show_hits(matched)


@pytest.mark.parametrize("mode", MODES)
async def test_a_search_answers_alike_in_its_session_and_tenant_wide(memory: Memory,
                                                                    mode: str) -> None:
    """Whether a search has an answer rests on a message's own evidence and its place in the
    conversation searched: a session's best matched hit is matched tenant-wide too. Its score
    may differ: tenant-wide, the sessions searched are read as one conversation, and a hybrid
    score also weighs how the message compares with the best of the messages searched."""
    cases = (("profile", "peanut allergy"), ("profile", "what is the pet's name"),
             ("profile", "Mochi"), ("family", "When was my sister born?"), ("mochi", "Mochi"))
    lost = {}
    for session, query in cases:
        alone = matched_hits(await _search(memory, session, query, mode))
        everywhere = matched_hits(await _search(memory, None, query, mode, limit=32))
        assert alone, f"{session}: {query}: nothing matched"
        if alone[0].message.id not in {h.message.id for h in everywhere}:
            lost[query] = show_hits(alone[:1]) + " /" + show_hits(everywhere[:3])
    assert not lost, f"a session's best hit not matched tenant-wide: {lost}"


@pytest.mark.parametrize(("query", "wanted", "mode"), [
    ("How many people were on the wedding guest list at first?", 0, "hybrid"),
    ("Originally, how many people were on the guest list?", 0, "hybrid"),
    ("How many people are on the wedding guest list now?", 4, "hybrid"),
    ("How many people were on the wedding guest list at first?", 0, "semantic"),
    ("Originally, how many people were on the guest list?", 0, "semantic"),
])
async def test_a_question_about_how_a_thing_stood_first_or_now_finds_that_message(
        plans: Memory, query: str, wanted: int, mode: str) -> None:
    """Two messages give the guest count, 80 and later 120, in the same words: "at first"
    asks for the older one, "now" for the newer (query cue words times the message's place
    in its session's time; semantic search reads the first cue only)."""
    matched = matched_hits(await _search(plans, "wedding", query, mode))
    assert matched and matched[0].message.content == PLANS[wanted], show_hits(matched)


async def test_words_many_memories_hold_do_not_outweigh_the_one_that_answers(
        memories: Memory) -> None:
    """Within a session of one memory every word it holds is as rare as any other, so "city"
    and "next month", which half the memories hold, counted as much as "sister": the city
    marathon next month came first. Weighed by how many of all the memories searched hold
    each word, the sister's memory does."""
    query = "I'm visiting my sister next month, which city does she live in?"
    matched = matched_hits(await _search(memories, None, query, "hybrid"))
    assert matched and matched[0].message.content == LISBON, show_hits(matched)


async def test_a_line_of_dialogue_gets_back_the_memory_it_is_about(profile: Memory) -> None:
    """A line of recent dialogue is no question, and the memory it needs may be no closer to
    it in meaning than an unrelated question is to something: the answer gate that read only
    the best hits' log-odds and closest cosine returned nothing for the car. Refitted with
    the query's words the best hits hold among its inputs, each question weighing what
    answering it gains, it returns the memory each line is about; questions about nothing
    the memories say still return nothing."""
    lines = {"My car is making a weird noise again.": PROFILE[3],
             "Maya has a recital coming up, what should she wear?": PROFILE[2],
             "I have a long flight to Tokyo next week, any tips?": PROFILE[4]}
    returned = {line: await _search(profile, None, line, "hybrid") for line in lines}
    shown = show_each({line: show_hits(hits) for line, hits in returned.items()})
    for line, fact in lines.items():
        assert fact in {h.message.content for h in matched_hits(returned[line])}, shown
    for question in ("tell me about black holes", "how do I bake sourdough bread?",
                     "What is the capital of Australia?",
                     "recommend a good science fiction novel"):
        hits = await _search(profile, None, question, "hybrid")
        assert not matched_hits(hits), show_hits(hits)


CHAT_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("What job did Ana get?", "I got the job at the children's hospital"),
    ("What is the name of Ben's dog?", "We named him Biscuit"),
    ("What hobby did Ben take up?", "I started a pottery class"),
    ("What did Ben make in his class?", "A very wobbly bowl"),
    ("What role does Ana have at the wedding?", "I'm the maid of honour"),
    ("What happened to Ben's car?", "my car broke down"),
    ("How will Ben commute while the car is repaired?", "I'll cycle for a few weeks"),
    ("When did Ana switch to day shifts?", "I moved to day shifts"),
    ("What shifts does Ana work at first?", "Night shifts for the first month"),
    ("How many runs a week is Ana doing?", "four runs a week"),
)


@pytest.mark.parametrize("mode", MODES)
async def test_a_conversation_kept_session_by_session_finds_what_one_session_finds(
        chats: tuple[Memory, Memory], mode: str) -> None:
    """Each of these questions finds its answer among the first five matched hits of the
    conversation kept in one session; searched tenant-wide, kept a session a week, it does
    too. When a message was placed within its own session of a dozen turns only (a
    conversation's length the ranker never learned from), semantic search for "What hobby
    did Ben take up?" ranked the pottery class first, below the floor, and returned
    nothing."""
    one, weekly = chats
    missed: dict[str, str] = {}
    for question, answer in CHAT_QUESTIONS:
        for name, mem, session in (("one session", one, "chat"), ("weekly", weekly, None)):
            matched = matched_hits(await _search(mem, session, question, mode, limit=10))
            if not any(answer in h.message.content for h in matched[:5]):
                missed[f"{name}: {question}"] = show_hits(matched[:5])
    assert not missed, show_each(missed)
