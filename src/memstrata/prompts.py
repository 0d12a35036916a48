"""The text memstrata sends to the summary and decision models (pure).

Three conversations with models live here: merging a chunk of messages into the rolling summary,
deciding which new conversations are noise and which old summary entries they overturn, and
picking the summary entries relevant to a new user input. Each has a system prompt and a user
message builder; the parsing of the replies lives with the code that uses them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from .context import format_time
from .summary_schema import CURRENT, DECISIONS, PAST
from .types import Message

__all__ = [
    "decision_system_prompt",
    "decision_user_message",
    "language_rule",
    "message_block",
    "relevance_system_prompt",
    "relevance_user_message",
    "summary_system_prompt",
    "summary_user_message",
]

_TAIWAN = "Traditional Chinese as written in Taiwan (zh-TW), never Simplified Chinese"
_LANGUAGE_NAMES = {
    "en": "English", "ja": "Japanese", "ko": "Korean", "fr": "French", "de": "German",
    "es": "Spanish", "pt": "Portuguese", "it": "Italian", "ru": "Russian", "vi": "Vietnamese",
    "th": "Thai", "id": "Indonesian", "nl": "Dutch", "pl": "Polish", "tr": "Turkish",
}


def language_rule(reply_lang: str) -> str:
    """The sentence that fixes the language of every text field except the markers."""
    code = reply_lang.strip()
    if code.lower() == "auto":
        return ("Write every text field in the language the conversation is mostly held in. "
                f"If that language is Chinese, use {_TAIWAN}.")
    base = code.lower().replace("_", "-").split("-")[0]
    if base == "zh":
        return f"Write every text field in {_TAIWAN} (reply_lang {code})."
    name = _LANGUAGE_NAMES.get(base)
    label = f"{name} (reply_lang {code})" if name else f"the language with code {code!r}"
    return (f"Write every text field in {label}, whatever language the conversation uses. "
            f"Chinese, if ever needed, is always {_TAIWAN}.")


# The markers older summaries used, each followed by a full-width colon.
_OLD_MARKERS = ", ".join(f"{word}\uff1a" for word in ("要", "不要", "する", "しない"))

_SUMMARY_RULES = """\
You maintain the rolling memory of a long conversation between a user and an assistant.
You receive the current memory (below) and a batch of newer messages (in the user turn).
Return the updated memory: the current memory with the new messages merged in.

The memory is one JSON object with exactly these keys:
{{
  "key_decisions": ["Do: …", "Don't: …"],
  "past_discussions": [{{"topic": "…", "description": "…", "direction": "…",
                         "last_discussed": "YYYY-MM-DD HH:MM"}}],
  "current_discussion": {{"topic": "…", "description": "…", "perspectives": ["…"],
                          "direction": "…"}}
}}

How to merge:
1. key_decisions hold only rules that apply from now on: something the user agreed to \
("Do: …") or turned down ("Don't: …"). Leanings, open questions and debates still going on \
are not decisions.
2. Every key decision starts with the English marker "Do: " or "Don't: ", whatever the \
language of the rest. Entries in the current memory written with other markers (for example \
{old_markers}) are rewritten with the English ones.
3. When the new messages reverse a decision, replace the old entry instead of keeping both.
4. When the new messages continue a topic that already has a past_discussions entry, update \
that entry (description, direction, last_discussed) instead of adding another one.
5. When the topic changes, move the old current_discussion into past_discussions; if it \
reached a conclusion that holds from now on, also add that conclusion as a key decision. \
current_discussion then describes the new topic. Use {{}} when nothing is being discussed.
6. last_discussed is the time, copied from the message headers, of the newest message on \
that topic.
7. Keep at most {max_decisions} key_decisions and {max_past} past_discussions; when over, \
drop the oldest. List both oldest first.
8. Record only what the messages say. Do not invent facts, names or dates.
9. {language}

Reply with the JSON object only, with no text before or after it.

Current memory:
{previous}"""


def summary_system_prompt(previous: Mapping[str, Any] | str | None, *, reply_lang: str,
                          max_key_decisions: int, max_past_discussions: int) -> str:
    """The system prompt of one chunk: the merge rules plus the memory so far.

    ``previous`` is the structured summary, a digest's text, or ``None`` for a first run.
    """
    if previous is None:
        shown = "(empty: this is the first part of the conversation)"
    elif isinstance(previous, str):
        shown = ("(an automatic digest of earlier messages, not yet structured; turn it into "
                 f"the JSON memory together with the new messages)\n<digest>\n{previous}\n"
                 "</digest>")
    else:
        shown = json.dumps(dict(previous), ensure_ascii=False, indent=2)
    return _SUMMARY_RULES.format(max_decisions=max_key_decisions, max_past=max_past_discussions,
                                 language=language_rule(reply_lang), previous=shown,
                                 old_markers=_OLD_MARKERS)


def message_block(m: Message, tz: ZoneInfo) -> str:
    """One message as the models see it: ``HH:MM speaker: text``.

    The date is not repeated on every message (it would cost more tokens than many messages
    hold): ``transcript`` puts it on a line of its own whenever the day changes.
    """
    return f"{format_time(m.at, tz)[11:]} {m.sender or m.role}: {m.content}"


def transcript(messages: Sequence[Message], tz: ZoneInfo) -> str:
    """Messages oldest first, a ``YYYY-MM-DD`` line before each new day, and one line naming
    the role behind each display name (so the model tells the user from the assistant)."""
    roles: dict[str, str] = {}
    for m in messages:
        if m.sender and m.sender != m.role:
            roles.setdefault(m.sender, m.role)
    lines = []
    if roles:
        lines.append("Speakers: " + ", ".join(f"{who} = {role}" for who, role in roles.items()))
    day = ""
    for m in messages:
        stamp = format_time(m.at, tz)
        if stamp[:10] != day:
            day = stamp[:10]
            lines.append(f"\n{day}")
        lines.append(message_block(m, tz))
    return "\n".join(lines).strip()


def summary_user_message(messages: Sequence[Message], tz: ZoneInfo) -> str:
    """The user turn of one chunk: its messages, oldest first."""
    return (f"New messages, oldest first (times are HH:MM on the date above them):\n\n"
            f"{transcript(messages, tz)}\n\nReturn the updated memory as JSON.")


_DECISION_RULES = """\
You screen new parts of a conversation before they are added to a long-term memory.

For each numbered conversation (a user message and the replies to it), decide whether it is \
noise: greetings, thanks, small talk, a request repeated without anything new, or a turn that \
failed or was cancelled without a result. Anything that carries information, a request, a \
preference or a decision is not noise. Give your confidence from 0 to 1.

Then look at the numbered entries of the existing memory and list the ones the new \
conversations overturn: a decision the user has now reversed or replaced, or a past \
discussion whose conclusion the new conversations contradict or supersede.

Reply with one JSON object only:
{"conversations": [{"index": 1, "noise": false, "confidence": 0.9}],
 "overturned_key_decisions": [2], "overturned_past_discussions": []}"""


def decision_system_prompt() -> str:
    """The system prompt of the decision call."""
    return _DECISION_RULES


def _numbered_entries(previous: Mapping[str, Any]) -> str:
    decisions = previous.get(DECISIONS) or []
    past = previous.get(PAST) or []
    lines = ["Existing key_decisions:"]
    lines += [f"  {i}. {d}" for i, d in enumerate(decisions, 1)] or ["  (none)"]
    lines.append("Existing past_discussions:")
    lines += [f"  {i}. {json.dumps(p, ensure_ascii=False)}" for i, p in enumerate(past, 1)]
    if not past:
        lines.append("  (none)")
    return "\n".join(lines)


def decision_user_message(previous: Mapping[str, Any], conversations: Sequence[Sequence[Message]],
                          tz: ZoneInfo) -> str:
    """The user turn of the decision call: the memory's numbered entries, then the
    numbered conversations."""
    parts = [_numbered_entries(previous), "", "New conversations:"]
    for i, conversation in enumerate(conversations, 1):
        parts.append(f"--- conversation {i} ---")
        parts.append(transcript(conversation, tz))
    return "\n".join(parts)


_RELEVANCE_RULES = """\
You pick which parts of a conversation memory matter for the user's next message.

You get the numbered key decisions, the numbered past discussions, the current discussion and \
the new user input. Select every entry that could help answer it or that constrains the answer. \
General rules about language, format, tone or way of working always count as relevant. If the \
user asks what was decided or discussed before, everything that could answer that is relevant.

Reply with one JSON object only:
{"key_decisions": [1, 3], "past_discussions": [2], "current_discussion": true}"""


def relevance_system_prompt() -> str:
    """The system prompt of the relevance call."""
    return _RELEVANCE_RULES


def relevance_user_message(summary: Mapping[str, Any], query: str) -> str:
    """The user turn of the relevance call."""
    current = summary.get(CURRENT) or {}
    shown = json.dumps(current, ensure_ascii=False) if current else "(none)"
    return (f"{_numbered_entries(summary)}\nCurrent discussion: {shown}\n\n"
            f"New user input:\n{query}")
