"""Pure text helpers: CJK bigrams for the search column, query terms, FTS5 escaping.

SQLite's ``unicode61`` tokenizer keeps a run of Chinese or Japanese characters as one token, so
a two-character word inside a sentence could never be found. The store therefore indexes a
*search text* in which every CJK run is rewritten as its overlapping 2-character pairs
("記憶體" → "記憶 憶體"); queries are rewritten the same way. English words are stemmed by
FTS5's ``porter`` tokenizer on both sides.
"""

from __future__ import annotations

import re
from operator import add
from typing import Any

from .errors import InvalidInput

__all__ = [
    "CJK_RANGES",
    "STOP_WORDS",
    "bigram_text",
    "check_json_text",
    "check_unicode",
    "fts_match_expression",
    "query_terms",
    "search_text",
    "words",
]

# Han (incl. extension A and compatibility), kana, Hangul syllables: inclusive code point ranges.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xAC00, 0xD7AF))
_CJK = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES)
# CJK runs as a capturing split: text, run, text, run, …, text.
_CJK_SPLIT = re.compile(f"([{_CJK}]+)")
_CJK_CHAR = re.compile(f"[{_CJK}]")
# A word for query purposes: letters/digits (not CJK), or one CJK run.
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W_{_CJK}]+(?:['\u2019][^\\W_{_CJK}]+)?", re.UNICODE)

_STOP_TEXT = (
    "a about above after again against all am an and any are aren't as at be because been "
    "before being below between both but by can can't cannot could couldn't did didn't do does "
    "doesn't doing don't down during each few for from further had hadn't has hasn't have "
    "haven't having he he'd he'll he's her here here's hers herself him himself his how how's i "
    "i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my "
    "myself no nor not of off on once only or other ought our ours ourselves out over own same "
    "shan't she she'd she'll she's should shouldn't so some such than that that's the their "
    "theirs them themselves then there there's these they they'd they'll they're they've this "
    "those through to too under until up very was wasn't we we'd we'll we're we've were weren't "
    "what what's when when's where where's which while who who's whom why why's will with won't "
    "would wouldn't you you'd you'll you're you've your yours yourself yourselves did does also "
    "just "
)
STOP_WORDS = frozenset(_STOP_TEXT.split())


def check_unicode(text: str, field: str) -> str:
    """``text`` if it can be stored as UTF-8; ``InvalidInput`` naming ``field`` and the
    position of the first lone surrogate otherwise (such text is not valid Unicode)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(field, f"is not valid Unicode: a lone surrogate "
                           f"U+{ord(text[exc.start]):04X} at position {exc.start}; "
                           "only text that can be encoded as UTF-8 is accepted") from None
    return text


def check_json_text(value: Any, field: str) -> None:
    """``InvalidInput`` naming ``field`` when a JSON value (a dict, list or string) holds text
    that is not valid Unicode, in its keys or values."""
    if isinstance(value, str):
        check_unicode(value, field)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                check_unicode(key, f"{field} (a key)")
            check_json_text(item, f"{field}.{key}" if isinstance(key, str) else field)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_json_text(item, f"{field}[{i}]")


def _pairs(run: str) -> list[str]:
    """The overlapping 2-character pairs of a CJK run (a one-character run is itself)."""
    return list(map(add, run, run[1:])) if len(run) > 1 else [run]


def bigram_text(text: str) -> str:
    """The text to index: each CJK run replaced by its overlapping 2-character pairs."""
    prepared = search_text(text)
    return text if prepared is None else prepared


def search_text(text: str) -> str | None:
    """``bigram_text(text)``, or ``None`` when the text holds no CJK run.

    ASCII text (most English) is answered without a scan, the runs come from one split, and a
    run's pairs are made by ``map`` in C (no callback per run or per pair). Many texts at once:
    ``bigram_texts`` in ``memstrata._bigrams``.
    """
    if text.isascii():
        return None
    parts = _CJK_SPLIT.split(text)
    if len(parts) == 1:
        return None
    for i in range(1, len(parts), 2):
        parts[i] = f" {' '.join(_pairs(parts[i]))} "
    return "".join(parts)


def words(text: str) -> list[str]:
    """The words of ``text`` in order, duplicates kept: Latin-script words lower-cased, each CJK
    run as its 2-character pairs (a one-character run stays one word)."""
    out: list[str] = []
    for token in _TOKEN.findall(text):
        if _CJK_CHAR.match(token):
            out.extend(_pairs(token))
        else:
            out.append(token.lower().replace("\u2019", "'"))
    return out


def query_terms(query: str) -> list[str]:
    """The search terms of a free-text query, in order, without duplicates.

    Stop words are dropped (a query made only of stop words keeps them, so it still means
    something); see :func:`words` for the rest.
    """
    found = words(query)
    kept = [w for w in found if w not in STOP_WORDS] or found
    return list(dict.fromkeys(kept))


def fts_match_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression matching any of ``terms``, every term quoted.

    Quoting makes every character of user input literal: operators (AND, NEAR, ``*``, ``^``,
    ``:``) and stray quotes can neither raise a syntax error nor change the query's meaning.
    """
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
