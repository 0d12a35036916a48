"""Reading summaries out of model replies: containers, validity, markers, limits (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memstrata.errors import InvalidSummary, ProviderError
from memstrata.summary._schema import (
    normalise_decision,
    normalise_summary,
    parse_summary,
    rewrite_markers,
)

FW = "\uff1a"  # the full-width colon older Chinese/Japanese markers used

GOOD: dict[str, Any] = {
    "key_decisions": ["Do: use PostgreSQL", "Don't: add Redis"],
    "past_discussions": [{"topic": "db", "description": "picked a database",
                          "direction": "settled", "last_discussed": "2024-05-01 10:30"}],
    "current_discussion": {"topic": "deploy", "description": "where to host",
                           "perspectives": ["cloud", "on-prem"], "direction": "open"},
}


def test_bare_json_reply_is_parsed() -> None:
    assert parse_summary(json.dumps(GOOD)) == GOOD


def test_fenced_json_reply_is_parsed() -> None:
    text = f"Here is the memory:\n```json\n{json.dumps(GOOD, indent=2)}\n```\nDone."
    assert parse_summary(text) == GOOD


def test_summary_block_reply_is_parsed_even_with_a_fence_inside() -> None:
    assert parse_summary(f"<summary>{json.dumps(GOOD)}</summary>") == GOOD
    fenced = f"notes {{\"x\": 1}}\n<summary>\n```json\n{json.dumps(GOOD)}\n```\n</summary>"
    assert parse_summary(fenced) == GOOD


def test_first_json_object_in_prose_is_found() -> None:
    text = f"Sure! The merged summary follows. {json.dumps(GOOD)} Let me know."
    assert parse_summary(text) == GOOD


def test_an_object_wrapped_in_summary_key_is_unwrapped() -> None:
    assert parse_summary(json.dumps({"summary": GOOD})) == GOOD


def test_two_of_three_keys_is_valid_and_the_missing_one_comes_from_previous() -> None:
    reply = {"past_discussions": [], "current_discussion": {"topic": "t", "description": "d"}}
    parsed = parse_summary(json.dumps(reply), previous=GOOD)
    assert parsed["key_decisions"] == GOOD["key_decisions"]
    assert parsed["past_discussions"] == []
    assert parsed["current_discussion"]["topic"] == "t"


@pytest.mark.parametrize("text", [
    "I could not summarise this.",
    '{"key_decisions": ["Do: x"]}',
    '{"key_decisions": "Do: x", "past_discussions": "none"}',
    "```json\n{not json}\n```",
    "",
])
def test_invalid_replies_raise_invalid_summary(text: str) -> None:
    with pytest.raises(InvalidSummary) as caught:
        parse_summary(text)
    # A failed chunk is a provider failure to the caller.
    assert isinstance(caught.value, ProviderError)


def test_decision_markers_are_enforced_and_older_markers_rewritten() -> None:
    assert normalise_decision(f"要{FW}用繁體中文") == "Do: 用繁體中文"
    assert normalise_decision(f"不要{FW}用簡體字") == "Don't: 用簡體字"
    assert normalise_decision(f"する{FW}テストを書く") == "Do: テストを書く"
    assert normalise_decision(f"しない{FW}本番で試す") == "Don't: 本番で試す"
    assert normalise_decision("do: keep it short") == "Do: keep it short"
    assert normalise_decision("Dont:use tabs") == "Don't: use tabs"
    assert normalise_decision("Don\u2019t: guess") == "Don't: guess"
    assert normalise_decision("Do not: deploy on Fridays") == "Don't: deploy on Fridays"
    assert normalise_decision("Don't: ") is None
    assert normalise_decision("We might use Go") is None
    assert normalise_decision(42) is None


def test_unmarked_and_duplicate_decisions_are_dropped_from_model_output() -> None:
    body = dict(GOOD, key_decisions=["Do: a", "maybe b", "Do: a", 3, f"要{FW}c"])
    assert normalise_summary(body)["key_decisions"] == ["Do: a", "Do: c"]


def test_rewrite_markers_keeps_unmarked_entries_for_the_model_to_see() -> None:
    assert rewrite_markers([f"不要{FW}x", "plain note", ""]) == ["Don't: x", "plain note"]
    assert rewrite_markers("nope") == []


def test_limits_drop_the_oldest_entries() -> None:
    decisions = [f"Do: rule {i}" for i in range(12)]
    past = [{"topic": f"t{i}", "description": "d", "direction": "",
             "last_discussed": f"2024-01-{i + 1:02d} 09:00"} for i in range(12)]
    past.reverse()  # order in the list is not age: age is last_discussed
    body = normalise_summary({"key_decisions": decisions, "past_discussions": past,
                              "current_discussion": {}},
                             max_key_decisions=8, max_past_discussions=3)
    assert body["key_decisions"] == decisions[-8:]
    assert [p["topic"] for p in body["past_discussions"]] == ["t11", "t10", "t9"]
    none = normalise_summary(body, max_key_decisions=0, max_past_discussions=0)
    assert none["key_decisions"] == [] and none["past_discussions"] == []


def test_past_entries_are_cleaned() -> None:
    body = normalise_summary({"key_decisions": [], "current_discussion": None,
                              "past_discussions": [
                                  {"topic": "A", "description": "old",
                                   "last_discussed": "2024-01-01T08:00:00"},
                                  {"topic": "a", "description": "new",
                                   "last_discussed": "2024-02-01 08:00:59"},
                                  {"topic": "", "description": ""},
                                  "not an entry",
                                  {"topic": "B", "last_discussed": "last Tuesday"}]})
    assert body["past_discussions"] == [
        {"topic": "a", "description": "new", "direction": "",
         "last_discussed": "2024-02-01 08:00"},
        {"topic": "B", "description": "", "direction": "", "last_discussed": ""}]
    assert body["current_discussion"] == {}


def test_current_discussion_shapes() -> None:
    body = normalise_summary({"key_decisions": [], "past_discussions": [],
                              "current_discussion": {"topic": "x", "perspectives": {
                                  "user": "wants A", "assistant": "suggests B"}}})
    assert body["current_discussion"] == {
        "topic": "x", "description": "",
        "perspectives": ["user: wants A", "assistant: suggests B"], "direction": ""}
    text = normalise_summary({"key_decisions": [], "past_discussions": [],
                              "current_discussion": "just talking"})
    assert text["current_discussion"]["description"] == "just talking"
    assert set(normalise_summary({"key_decisions": [], "past_discussions": [],
                                  "extra": 1})) == {"key_decisions", "past_discussions",
                                                    "current_discussion"}
