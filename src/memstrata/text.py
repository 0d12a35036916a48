"""Pure text helpers: CJK bigrams for the search column, query terms, FTS5 escaping.

SQLite's ``unicode61`` tokenizer keeps a run of Chinese or Japanese characters as one token, so
a two-character word inside a sentence could never be found. The store therefore indexes a
*search text* in which every CJK run is rewritten as its overlapping 2-character pairs
("記憶體" → "記憶 憶體"); queries are rewritten the same way. English words are stemmed by
FTS5's ``porter`` tokenizer on both sides.

How a keyword query is read (:func:`query_terms`, :func:`query_literals`): the query is split
at white space into tokens, and each token loses the sentence punctuation around it (``.,;:!?``,
quotes, brackets: "(cats?)" is the word cats). Chinese, Japanese and Korean runs are taken out
of a token first and become their 2-character pairs. What is left of a token is

- a **word** when it is letters and digits only (an apostrophe inside it allowed: "don't"),
  not mixing letters with digits, except a number with a letter suffix ("3pm", "4th",
  "1990s"), which is a word too. Words match whole words only, stemmed as the index stems
  them ("cats" finds "cat", "art" never finds "start"); stop words are dropped;
- an **identifier** when it holds any other character (``ERR_42``, ``src/app.py``, a URL,
  ``os.path``, ``10:30``, ``C++``, ``well-known``) or mixes letters and digits otherwise
  (``mp3``, ``v2``, ``9a7b3c``). An identifier matches its parts as a phrase in the index
  (every tier), and also as a case-insensitive substring of a hot message;
- dropped when it has no letter or digit at all ("--", "*" inside a longer query).

A query that is nothing but symbols ("***", ":)") is looked for as typed, as a substring of
the hot messages. A lone Chinese or Japanese character (a one-character run) is in the index
only where it stands alone, so when the query has no longer term its single characters are
also looked for as substrings of the hot messages.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import islice
from operator import add
from typing import Any, Literal

from .errors import InvalidInput

__all__ = [
    "CJK_RANGES",
    "STOP_WORDS",
    "bigram_text",
    "check_json_text",
    "check_stored_text",
    "check_unicode",
    "contains_phrase",
    "fts_match_expression",
    "only_stop_words",
    "query_literals",
    "query_phrase",
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


def check_stored_text(text: str, field: str) -> str:
    """``check_unicode``, and ``InvalidInput`` naming ``field`` and the position when ``text``
    holds NUL (U+0000): no backend stores it in text (PostgreSQL cannot), so none accepts it."""
    if "\x00" in text:
        raise InvalidInput(field, f"contains a NUL character (U+0000) at position "
                           f"{text.index(chr(0))}; NUL is not accepted in stored text, on any "
                           "backend (PostgreSQL cannot store it)")
    return check_unicode(text, field)


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


# Sentence punctuation around a query token, never part of it: "(cats?)" is the word cats.
_TRIM = ".,;:!?'\"()[]{}<>\u00ab\u00bb\u2039\u203a\u201c\u201d\u2018\u2019\u201e\u201a\u2026" \
        "\u3001\u3002\uff0c\uff0e\uff01\uff1f\uff1b\uff1a\uff08\uff09\u300c\u300d\u300e\u300f" \
        "\u3010\u3011\u3008\u3009\u300a\u300b"
_ALNUM = re.compile(r"[^\W_]")
# A character that is not part of a word: a candidate mark of an identifier (a combining mark
# is part of its letter; see ``_is_identifier``).
_NOT_WORD_CHAR = re.compile("[^\\w'\u2019]|_")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
# A number with a letter suffix (3pm, 4th, 1990s, 5km) is a word, not an identifier.
_NUMBER_WITH_SUFFIX = re.compile(r"\d+[^\W\d_]+")
# At most this many substrings are looked for in the hot tier per query (each one is tested
# against every message the scan reads).
_MAX_LITERALS = 16
# A query's phrase is at most this many words (a longer paste is found by its beginning).
_PHRASE_WORDS = 32

_Kind = Literal["word", "stop", "identifier", "cjk"]


def _is_identifier(piece: str) -> bool:
    """A token (CJK-free, trimmed, with a letter or digit) that is not a plain word."""
    for m in _NOT_WORD_CHAR.finditer(piece):
        if unicodedata.category(m.group())[0] != "M":
            return True
    return (_DIGIT.search(piece) is not None and _LETTER.search(piece) is not None
            and _NUMBER_WITH_SUFFIX.fullmatch(piece) is None)


def _tokens(query: str) -> list[tuple[_Kind, str]]:
    """The query's tokens in order, each classified as the module docstring says: words
    (lower-cased; ``stop`` for a stop word), identifiers as typed, CJK runs."""
    out: list[tuple[_Kind, str]] = []
    for chunk in dict.fromkeys(query.split()):  # a repeated token is read once
        parts = _CJK_SPLIT.split(chunk) if not chunk.isascii() else [chunk]
        for i, part in enumerate(parts):
            if i % 2:
                out.append(("cjk", part))
                continue
            piece = part.strip(_TRIM)
            if not _ALNUM.search(piece):
                continue
            if _is_identifier(piece):
                out.append(("identifier", piece))
            else:
                out.extend(("stop" if w in STOP_WORDS else "word", w) for w in words(piece))
    return out


def _only_stop(tokens: list[tuple[_Kind, str]]) -> bool:
    return bool(tokens) and all(kind == "stop" for kind, _ in tokens)


def only_stop_words(query: str) -> bool:
    """Whether the query's only words are stop words ("the", "and the"): no other word, no
    identifier, no Chinese or Japanese, so a keyword search has nothing to look for."""
    return _only_stop(_tokens(query))


def query_terms(query: str) -> list[str]:
    """The full-text search terms of a free-text query, in order, without duplicates: its
    words (lower-cased, stop words dropped), its identifiers (each as the phrase of its words:
    "ERR_42" is "err 42", which the index finds in "got ERR_42 again") and the 2-character
    pairs of its CJK runs (see the module docstring).

    A query made only of stop words keeps them, so it still means something to a caller that
    ranks by them (a keyword search refuses such a query: see :func:`only_stop_words`).
    """
    tokens = _tokens(query)
    keep_stop = _only_stop(tokens)
    out: list[str] = []
    for kind, text in tokens:
        if kind == "cjk":
            out.extend(_pairs(text))
        elif kind == "identifier":  # its words as one phrase: "ERR_42" is "err 42"
            out.append(" ".join(words(text)))
        elif kind == "word" or keep_stop:
            out.append(text)
    return list(dict.fromkeys(out))


def query_literals(query: str) -> list[str]:
    """What the hot tier is scanned for as case-insensitive substrings, as typed, in order,
    without duplicates, at most 16: the query's identifiers; when it has no
    word, identifier or CJK run of two characters or more, its one-character CJK runs; and a
    query of symbols only ("***"), as a whole. Empty for a query of words, where the index
    alone decides (whole words, stemmed).
    """
    tokens = _tokens(query)
    found = [text for kind, text in tokens if kind == "identifier"]
    if not any(kind in ("word", "identifier") or (kind == "cjk" and len(text) > 1)
               for kind, text in tokens):
        found += [text for kind, text in tokens if kind == "cjk"]
        if not tokens and query.strip():
            found.append(query.strip())
    return list(dict.fromkeys(found))[:_MAX_LITERALS]


def query_phrase(query: str) -> str | None:
    """The query's words in order as one phrase (stop words kept, CJK runs as their pairs, at
    most the first 32 words): every message that holds the query as written holds this
    phrase, so a search looks for it beside the terms, and a literal match is found however
    many messages match a term better. ``None`` when the query has fewer than two words or
    the phrase is its only term."""
    found: list[str] = []
    for token in islice(_TOKEN.finditer(query), _PHRASE_WORDS):
        found.extend(words(token.group()))
    if len(found) < 2:
        return None
    phrase = " ".join(found[:_PHRASE_WORDS])
    return None if query_terms(query) == [phrase] else phrase


def _word_char(c: str) -> bool:
    return c.isalnum() and _CJK_CHAR.match(c) is None


def contains_phrase(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` (as given: fold the case of both first), and not inside
    a longer word: where the phrase begins (ends) with a letter or digit, the character before
    (after) it is not one. Chinese and Japanese characters have no such edge."""
    if not phrase:
        return False
    head, tail = _word_char(phrase[0]), _word_char(phrase[-1])
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if not (head and start > 0 and _word_char(text[start - 1])) and not (
                tail and end < len(text) and _word_char(text[end])):
            return True
        start = text.find(phrase, start + 1)
    return False


def fts_match_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression matching any of ``terms``, every term quoted.

    Quoting makes every character of user input literal: operators (AND, NEAR, ``*``, ``^``,
    ``:``) and stray quotes can neither raise a syntax error nor change the query's meaning.
    """
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
