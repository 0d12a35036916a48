"""The rolling summary's JSON schema: reading it out of a model reply and normalising it (pure).

A summary body has three keys::

    key_decisions:      [str]  each "Do: …" (agreed) or "Don't: …" (rejected), oldest first
    past_discussions:   [{topic, description, direction, last_discussed "YYYY-MM-DD HH:MM"}]
    current_discussion: {topic, description, perspectives: [str], direction}  ({} when none)

A reply is accepted when it holds a JSON object (in a ``<summary>`` block, a fenced block, or
anywhere in the text) with at least two of the three keys. Anything else raises
:class:`InvalidSummary`, which the summary run treats as a failed chunk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from ..errors import InvalidSummary

__all__ = [
    "CURRENT",
    "DECISIONS",
    "KEYS",
    "PAST",
    "empty_summary",
    "extract_object",
    "first_object",
    "normalise_decision",
    "normalise_summary",
    "parse_summary",
    "rewrite_markers",
]

DECISIONS = "key_decisions"
PAST = "past_discussions"
CURRENT = "current_discussion"
KEYS = (DECISIONS, PAST, CURRENT)

DO, DONT = "Do: ", "Don't: "

# Marker spellings seen in older summaries or sloppy replies → the canonical English marker.
# Longer spellings come first so 不要 is not read as 要 and "Do not:" not as "Do:". The
# colon may be ASCII or full-width (U+FF1A), and the apostrophe straight or curly (U+2019).
_MARKERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\s*不要\s*[:\uff1a]\s*"), DONT),
    (re.compile(r"^\s*要\s*[:\uff1a]\s*"), DO),
    (re.compile(r"^\s*しない\s*[:\uff1a]\s*"), DONT),
    (re.compile(r"^\s*する\s*[:\uff1a]\s*"), DO),
    (re.compile(r"^\s*(?:don['\u2019]?t|do\s+not)\s*[:\uff1a]\s*", re.IGNORECASE), DONT),
    (re.compile(r"^\s*do\s*[:\uff1a]\s*", re.IGNORECASE), DO),
)

_SUMMARY_BLOCK = re.compile(r"<summary>(.*?)</summary>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TIME_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S",
                 "%Y/%m/%d %H:%M", "%Y-%m-%d")
_EXCERPT = 160


def empty_summary() -> dict[str, Any]:
    """A summary with nothing in it yet."""
    return {DECISIONS: [], PAST: [], CURRENT: {}}


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "…"


# --- finding the JSON object -----------------------------------------------------------------

def _objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object that starts somewhere in ``text``, in order of position."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            yield value
        start = text.find("{", end if isinstance(value, dict) else start + 1)


def _candidates(text: str) -> Iterator[dict[str, Any]]:
    # Most explicit container first: a <summary> block, then fenced blocks, then bare text.
    for block in _SUMMARY_BLOCK.findall(text):
        yield from _candidates_in(block)
    for block in _FENCE.findall(text):
        yield from _objects(block)
    yield from _objects(text)


def _candidates_in(block: str) -> Iterator[dict[str, Any]]:
    for inner in _FENCE.findall(block):
        yield from _objects(inner)
    yield from _objects(block)


def _unwrap(obj: dict[str, Any]) -> dict[str, Any]:
    # Some models wrap the answer: {"summary": {...}}.
    inner = obj.get("summary")
    if isinstance(inner, dict) and not any(k in obj for k in KEYS):
        return inner
    return obj


def _present(obj: Mapping[str, Any]) -> list[str]:
    """The summary keys ``obj`` carries with a usable type (``null`` counts as empty)."""
    shapes: dict[str, tuple[type, ...]] = {DECISIONS: (list,), PAST: (list,),
                                           CURRENT: (dict, str)}
    return [k for k in KEYS if k in obj and (obj[k] is None or isinstance(obj[k], shapes[k]))]


def extract_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` that carries at least two summary keys.

    Raises :class:`InvalidSummary` saying what was found instead.
    """
    seen = 0
    best: list[str] = []
    for candidate in _candidates(text):
        obj = _unwrap(candidate)
        seen += 1
        keys = _present(obj)
        if len(keys) >= 2:
            return obj
        best = keys if len(keys) > len(best) else best
    if not seen:
        raise InvalidSummary(f"the summary reply holds no JSON object: {_excerpt(text)!r}")
    raise InvalidSummary(f"the summary reply must carry at least two of {', '.join(KEYS)}; "
                         f"the best object found has {best or 'none'}: {_excerpt(text)!r}")


def first_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (in a ``<summary>`` block, a fence, or bare), whatever
    its keys; ``ValueError`` when there is none."""
    for candidate in _candidates(text):
        return candidate
    raise ValueError(f"no JSON object in the reply: {_excerpt(text)!r}")


# --- normalising ---------------------------------------------------------------------------

def normalise_decision(entry: object) -> str | None:
    """``entry`` starting with ``Do: `` or ``Don't: ``, or ``None`` when it carries no marker.

    Older language-dependent markers (要/不要, する/しない, each with a colon) and loose
    English spellings (``do:``, ``Dont:``, ``Do not:``) are rewritten to the canonical ones.
    """
    if not isinstance(entry, str):
        return None
    for pattern, marker in _MARKERS:
        match = pattern.match(entry)
        if match:
            rest = entry[match.end():].strip()
            return marker + rest if rest else None
    return None


def rewrite_markers(decisions: object) -> list[str]:
    """Rewrite old markers but keep unmarked entries (used on a stored summary before it goes
    back to the model, so nothing is lost before the model has had a chance to mark it)."""
    if not isinstance(decisions, list):
        return []
    out: list[str] = []
    for entry in decisions:
        if isinstance(entry, str) and entry.strip():
            out.append(normalise_decision(entry) or entry.strip())
    return out


def _decisions(value: object, limit: int) -> list[str]:
    out: list[str] = []
    for entry in value if isinstance(value, list) else []:
        decision = normalise_decision(entry)
        # Unmarked entries are leanings or notes, which the merge rules keep out of key
        # decisions; the model was shown the markers, so an entry without one is dropped.
        if decision is not None and decision not in out:
            out.append(decision)
    # The list is oldest first, so over the limit the oldest go.
    return out[-limit:] if limit > 0 else []


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value if _text(v))
    return json.dumps(value, ensure_ascii=False)


def _time(value: object) -> str:
    """``YYYY-MM-DD HH:MM``, or ``""`` when the value is not a recognisable time."""
    text = _text(value)
    for fmt in _TIME_FORMATS:
        try:
            return datetime.strptime(text, fmt).strftime("%Y-%m-%d %H:%M")
        except ValueError:
            continue
    return ""


def _past(value: object, limit: int) -> list[dict[str, str]]:
    entries: list[dict[str, str]] = []
    for raw in value if isinstance(value, list) else []:
        if not isinstance(raw, dict):
            continue
        entry = {"topic": _text(raw.get("topic")), "description": _text(raw.get("description")),
                 "direction": _text(raw.get("direction")),
                 "last_discussed": _time(raw.get("last_discussed"))}
        if not entry["topic"] and not entry["description"]:
            continue
        # One entry per topic: a repeated topic keeps its most recent version.
        same = next((e for e in entries if e["topic"] and
                     e["topic"].casefold() == entry["topic"].casefold()), None)
        if same is not None:
            if entry["last_discussed"] >= same["last_discussed"]:
                entries[entries.index(same)] = entry
            continue
        entries.append(entry)
    if len(entries) > limit:
        # Drop the oldest by last_discussed (unknown times count as oldest); keep the order.
        ranked = sorted(range(len(entries)), key=lambda i: (entries[i]["last_discussed"], i))
        keep = set(ranked[len(entries) - limit:]) if limit else set()
        entries = [e for i, e in enumerate(entries) if i in keep]
    return entries


def _perspectives(value: object) -> list[str]:
    if isinstance(value, dict):
        return [f"{k}: {_text(v)}" for k, v in value.items() if _text(v)]
    if isinstance(value, list):
        return [_text(v) for v in value if _text(v)]
    text = _text(value)
    return [text] if text else []


def _current(value: object) -> dict[str, Any]:
    if isinstance(value, str):
        value = {"description": value}
    if not isinstance(value, dict):
        return {}
    current: dict[str, Any] = {
        "topic": _text(value.get("topic")), "description": _text(value.get("description")),
        "perspectives": _perspectives(value.get("perspectives")),
        "direction": _text(value.get("direction"))}
    return current if current["topic"] or current["description"] else {}


def normalise_summary(body: Mapping[str, Any], *, max_key_decisions: int = 8,
                      max_past_discussions: int = 8,
                      fallback: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A clean summary with exactly the three keys, limits and markers enforced.

    A key missing from ``body`` is taken from ``fallback`` (the previous summary), so a model
    that leaves a section out does not silently erase it.
    """
    present = set(_present(body))
    source = {k: body[k] if k in present else (fallback or {}).get(k) for k in KEYS}
    return {DECISIONS: _decisions(source[DECISIONS], max_key_decisions),
            PAST: _past(source[PAST], max_past_discussions),
            CURRENT: _current(source[CURRENT])}


def parse_summary(text: str, *, max_key_decisions: int = 8, max_past_discussions: int = 8,
                  previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The normalised summary in a model reply, or :class:`InvalidSummary`."""
    return normalise_summary(extract_object(text), max_key_decisions=max_key_decisions,
                             max_past_discussions=max_past_discussions, fallback=previous)
