"""Deterministic stand-ins for the models' answers, derived from each request.

* memstrata's summary call → a valid summary JSON (``key_decisions``, ``past_discussions``,
  ``current_discussion``) built from the new messages and the previous memory, kept between
  about 150 and 300 tokens like a real merged summary;
* memstrata's decision call → every conversation kept, except short greetings and thanks;
* the baseline's "progressively summarize" call → a running summary text of similar size: the
  previous summary plus one short sentence per new line, oldest sentences dropped first.
"""

from __future__ import annotations

import json
import re
from typing import Any

from _summary_tokens import Tokenizer

__all__ = ["SUMMARY_MAX_TOKENS", "baseline_reply", "decision_reply", "kind_of", "summary_reply"]

SUMMARY_MAX_TOKENS = 300
_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2})$")
_NOT_CONTENT = ("Return the", "--- conversation", "Speakers:", "New conversations",
                "New messages")
_LINE = re.compile(r"^(?:(\d{2}:\d{2}) )?([^:\n]+?): (.*)$")
_DECIDING = re.compile(r"\blet'?s\b|\bdecid|決定|不要|forget what I said", re.IGNORECASE)
_GREETING = re.compile(r"^(thanks|thank you|hi|hello|ok|good (morning|night)|謝謝|哈囉)",
                       re.IGNORECASE)


def kind_of(system: str) -> str:
    """Which caller sent a request, from its system or first prompt text."""
    if system.startswith("Update the memory of a conversation"):
        return "summary"
    if system.startswith("You screen new parts"):
        return "decision"
    if "Progressively summarize" in system:
        return "baseline"
    return "other"


def message_blocks(text: str) -> list[tuple[str, str, str]]:
    """``(time, sender, content)`` of every message in a prompt's transcript: a
    ``YYYY-MM-DD`` line starts a day, ``[HH:MM ]speaker: text`` starts a message (the time
    holds until the next one; speakers are ``user``, ``assistant`` and the names of the
    ``Speakers:`` line), and any other line continues the message before it."""
    out: list[tuple[str, str, str]] = []
    names = {"user", "assistant"}
    day = clock = ""
    for line in text.splitlines():
        if line.startswith("Speakers: "):
            names |= {part.split(" = ")[0] for part in line[10:].split(", ")}
        if (d := _DAY.match(line)) is not None:
            day = d.group(1)
            continue
        m = _LINE.match(line)
        if day and m is not None and m.group(2) in names:
            clock = m.group(1) or clock
            out.append((f"{day} {clock}", m.group(2), m.group(3)))
        elif out and not line.startswith(_NOT_CONTENT):
            when, who, content = out[-1]
            out[-1] = (when, who, f"{content}\n{line}")
    # Blank lines separate days; inside a message they belong to it.
    return [(when, who, content.rstrip()) for when, who, content in out]


def _clip(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars].rstrip() + "…"


def _previous(system: str) -> dict[str, Any]:
    shown = system.split("Current memory:\n", 1)[-1].strip()
    try:
        value = json.loads(shown)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _fit(body: dict[str, Any], tok: Tokenizer) -> str:
    """Drop the oldest past entries, then the oldest decisions, until it fits the budget."""
    while True:
        text = json.dumps(body, ensure_ascii=False, indent=1)
        if tok.count(text) <= SUMMARY_MAX_TOKENS:
            return text
        if len(body["past_discussions"]) > 1:
            body["past_discussions"].pop(0)
        elif len(body["key_decisions"]) > 1:
            body["key_decisions"].pop(0)
        else:
            current = body["current_discussion"]
            current["description"] = _clip(current["description"], 80)
            current["perspectives"] = current["perspectives"][:1]
            return json.dumps(body, ensure_ascii=False, indent=1)


def summary_reply(system: str, user: str, tok: Tokenizer) -> str:
    """The merged memory: the previous one with this chunk's messages folded in."""
    previous = _previous(system)
    blocks = [(t, s, " ".join(c.split())) for t, s, c in message_blocks(user)]
    past = list(previous.get("past_discussions") or [])
    old = previous.get("current_discussion") or {}
    if old.get("topic"):
        past.append({"topic": old["topic"], "description": _clip(old["description"], 160),
                     "direction": old.get("direction", ""), "last_discussed": blocks[0][0]})
    decisions = list(previous.get("key_decisions") or [])
    decisions += [f"Do: {_clip(c, 70)}" for _, _, c in blocks if _DECIDING.search(c)][-2:]
    senders = sorted({s for _, s, _ in blocks})
    longest = max(blocks, key=lambda b: len(b[2]))[2]
    body: dict[str, Any] = {
        "key_decisions": decisions[-4:],
        "past_discussions": past[-3:],
        "current_discussion": {
            "topic": _clip(longest, 50),
            "description": _clip(" ".join(c for _, _, c in blocks[-3:]), 240),
            "perspectives": [f"{s}: {_clip(next(c for _, w, c in reversed(blocks) if w == s), 70)}"
                             for s in senders[:2]],
            "direction": _clip(blocks[-1][2], 90),
        },
    }
    return _fit(body, tok)


def decision_reply(user: str) -> str:
    """Keep every conversation except one that is only a short greeting or thanks."""
    parts = re.split(r"^--- conversation (\d+) ---$", user, flags=re.MULTILINE)
    verdicts = []
    for number, text in zip(parts[1::2], parts[2::2], strict=True):
        contents = [c.strip() for _, _, c in message_blocks(text)]
        noise = bool(contents) and len(contents[0]) <= 20 and bool(_GREETING.match(contents[0]))
        verdicts.append({"index": int(number), "noise": noise, "confidence": 0.9 if noise
                         else 0.8})
    return json.dumps({"conversations": verdicts, "overturned_key_decisions": [],
                       "overturned_past_discussions": []})


def baseline_reply(prompt: str, tok: Tokenizer) -> str:
    """The previous running summary plus one sentence per new line, cut to the budget."""
    tail = prompt.rsplit("Current summary:\n", 1)[-1]
    summary, _, rest = tail.partition("\n\nNew lines of conversation:\n")
    lines = rest.rsplit("\n\nNew summary:", 1)[0].splitlines()
    sentences = [s for s in re.split(r"(?<=\.) ", summary.strip()) if s]
    for line in lines:
        who, _, said = line.partition(": ")
        if said.strip():
            sentences.append(f"{who} said: {_clip(said, 90)}.")
    while len(sentences) > 1 and tok.count(" ".join(sentences)) > SUMMARY_MAX_TOKENS - 20:
        sentences.pop(0)
    return " ".join(sentences)
