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

from .._context import format_time
from ..types import Message
from ._schema import CURRENT, DECISIONS, PAST

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
Update the memory of a conversation between a user and an assistant: merge the new messages \
(user turn) into the current memory below. Reply with only the updated memory, one JSON object:
{{"key_decisions":["Do: …","Don't: …"],"past_discussions":[{{"topic":"…","description":"…",\
"direction":"…","last_discussed":"YYYY-MM-DD HH:MM"}}],"current_discussion":{{"topic":"…",\
"description":"…","perspectives":["…"],"direction":"…"}}}}
Rules:
1. key_decisions: only rules that hold from now on, agreed ("Do: …") or turned down \
("Don't: …"); not leanings, open questions or ongoing debates. The markers are always in \
English; rewrite older ones ({old_markers}).
2. A reversed decision replaces the old one. A topic already in past_discussions updates that \
entry.
3. When the topic changes, current_discussion moves to past_discussions and its conclusion, if \
it reached one that holds from now on, becomes a key decision. Use {{}} when nothing is being \
discussed.
4. last_discussed: the date and time of the topic's newest message (a time holds until the \
next one).
5. At most {max_decisions} key_decisions and {max_past} past_discussions, oldest first; drop \
the oldest when over.
6. Only what the messages say: never invent facts, names or dates.
7. {language}

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
        shown = json.dumps(dict(previous), ensure_ascii=False, separators=(",", ":"))
    return _SUMMARY_RULES.format(max_decisions=max_key_decisions, max_past=max_past_discussions,
                                 language=language_rule(reply_lang), previous=shown,
                                 old_markers=_OLD_MARKERS)


def message_block(m: Message, tz: ZoneInfo, *, with_time: bool = True) -> str:
    """One message as the models see it: ``HH:MM speaker: text`` (the time left out when it
    is the same as the message before, to save tokens)."""
    who = m.sender or m.role
    return f"{format_time(m.at, tz)[11:]} {who}: {m.content}" if with_time else \
        f"{who}: {m.content}"


def transcript(messages: Sequence[Message], tz: ZoneInfo) -> str:
    """Messages oldest first, a ``YYYY-MM-DD`` line before each new day, the ``HH:MM`` time
    only where it changes, and one line naming the role behind each display name (so the model
    tells the user from the assistant). The date is not repeated on every message: it would
    cost more tokens than many messages hold."""
    roles: dict[str, str] = {}
    for m in messages:
        if m.sender and m.sender != m.role:
            roles.setdefault(m.sender, m.role)
    lines = []
    if roles:
        lines.append("Speakers: " + ", ".join(f"{who} = {role}" for who, role in roles.items()))
    day = clock = ""
    for m in messages:
        stamp = format_time(m.at, tz)
        if stamp[:10] != day:
            day, clock = stamp[:10], ""
            lines.append(f"\n{day}")
        lines.append(message_block(m, tz, with_time=stamp[11:] != clock))
        clock = stamp[11:]
    return "\n".join(lines).strip()


def summary_user_message(messages: Sequence[Message], tz: ZoneInfo) -> str:
    """The user turn of one chunk: its messages, oldest first."""
    return (f"New messages, oldest first (HH:MM on the date above; a time holds until the "
            f"next):\n\n"
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
