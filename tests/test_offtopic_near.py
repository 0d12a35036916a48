"""The near-topic questions of the abstention benchmark (``bench/_offtopic_near.py``): each asks
about a thing the conversation never mentions, in its own frame's words, and the two halves
never share a frame."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from _offtopic_near import NEAR_TOPICS, _fill, near_topic_for

from memstrata.search._bm25 import tokens

TEXTS = [
    "Caroline: We adopted an iguana and a hamster last spring.",
    "Melanie: Oh nice! I went to Iceland with my sister, we saw the glaciers.",
    "Caroline: I started playing the saxophone, and my 鸚鵡 hates it.",
    "Melanie: 我下個月要去秘魯旅行，還在學烏克麗麗。",
]
SENDERS = ["Caroline", "Melanie", "Caroline", "Melanie"]


def _things(question: str) -> list[tuple[str, str]]:
    """The (English, Chinese) things a question was filled with: every frame filled with every
    thing, about each speaker and in the first person, compared whole."""
    return [thing for topic in NEAR_TOPICS for thing in topic.things
            for who in (None, *SENDERS)
            if question in (_fill(topic.en, who, thing[0].split("|")[0], "en"),
                            _fill(topic.zh, who, thing[1].split("|")[0], "zh"))]


def test_no_question_asks_about_a_thing_the_conversation_mentions() -> None:
    vocab = {t for text in TEXTS for t in tokens(text)}
    questions = near_topic_for(TEXTS, SENDERS)
    asked = questions["train"] + questions["eval"]
    assert asked
    for question in asked:
        things = _things(question)
        assert things, question
        for en, zh in things:
            words = {t for w in (en + "|" + zh).split("|") for t in tokens(w)}
            assert not words & vocab, (question, words & vocab)
    # What was said is never asked about, in either language.
    for said in ("iguana", "hamster", "Iceland", "saxophone", "鸚鵡", "秘魯", "烏克麗麗"):
        assert not [q for q in asked if set(tokens(said)) <= set(tokens(q))], said


def test_questions_use_the_conversations_people_and_both_languages() -> None:
    questions = near_topic_for(TEXTS, SENDERS)
    asked = questions["train"] + questions["eval"]
    assert any("Caroline" in q for q in asked) and any("Melanie" in q for q in asked)
    assert any(q.startswith(("What is the name of my", "When did I")) for q in asked)
    assert any(any("\u4e00" <= c <= "\u9fff" for c in q) for q in asked)
    assert any(q.isascii() for q in asked)


def test_the_halves_share_no_frame_and_the_output_is_deterministic() -> None:
    first = near_topic_for(TEXTS, SENDERS)
    assert first == near_topic_for(list(TEXTS), list(SENDERS))
    assert first["train"] and first["eval"]
    for half, topics in (("train", NEAR_TOPICS[0::2]), ("eval", NEAR_TOPICS[1::2])):
        for q in first[half]:
            assert any(q in (_fill(t.en, who, en.split("|")[0], "en"),
                             _fill(t.zh, who, zh.split("|")[0], "zh"))
                       for t in topics for en, zh in t.things for who in (None, *SENDERS)), q


def test_a_frame_whose_every_thing_was_said_is_skipped() -> None:
    pets = NEAR_TOPICS[0]
    said = [f"We talked about the {en.split('|')[0]} and the {zh.split('|')[0]}."
            for en, zh in pets.things]
    questions = near_topic_for(said, ["user"] * len(said))
    assert not [q for q in questions["train"] if "養的" in q or "name of my" in q]
    # With no named speaker, every question is in the first person.
    assert not [q for q in questions["train"] + questions["eval"] if "user" in q]
