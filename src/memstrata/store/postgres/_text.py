"""The text PostgreSQL's full-text search sees, prepared in Python so that it finds what
SQLite's FTS5 index finds.

The indexed text starts as SQLite's: ``text.search_text`` (each CJK run as overlapping
2-character pairs). PostgreSQL's parser then differs from FTS5's ``unicode61`` tokenizer in
three ways, undone here before it runs: it keeps ``user@example.com``, ``x.y``, ``3.14`` and
URLs as single tokens (``unicode61`` splits on every character that is not a letter or digit),
it lower-cases only ASCII under the "C" locale, and it keeps diacritics (``unicode61`` with
``remove_diacritics 2`` folds "café" to "cafe"). So the text is lower-cased, Latin letters
lose their marks, and every run of other characters becomes one space. Queries arrive as the
FTS5 expression the searcher builds (quoted terms joined by OR); each term is folded the same
way and becomes a phrase query.

PostgreSQL's text cannot hold NUL (U+0000), which SQLite stores: text with one is refused as
invalid input where it would be written (:func:`refuse_nul`), and a query with one cannot match
anything stored, so the substring scans skip it.
"""

from __future__ import annotations

import re
import unicodedata

from ..._bigrams import bigram_texts
from ...errors import InvalidInput
from ...text import search_text

__all__ = ["fold", "indexed_text", "indexed_texts", "match_terms", "refuse_nul"]

_NOT_WORD = re.compile(r"[\W_]+")
_LATIN_MARKED = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def _unmark(m: re.Match[str]) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", m.group())
                   if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lower-cased, Latin diacritics removed, every run of non-word characters one space."""
    lowered = text.lower()
    if not lowered.isascii():  # ASCII has no marks to remove: one scan fewer per message
        lowered = _LATIN_MARKED.sub(_unmark, lowered)
    return _NOT_WORD.sub(" ", lowered).strip()


def indexed_text(content: str) -> str:
    """What a message's ``tsvector`` is made from."""
    prepared = search_text(content)
    return fold(content if prepared is None else prepared)


def indexed_texts(contents: list[str]) -> list[str]:
    """``indexed_text`` of each of ``contents``, the CJK pairs made for the batch at once."""
    return [fold(t) for t in bigram_texts(contents)]


def match_terms(match: str | None) -> list[str]:
    """The terms of an FTS5 expression of quoted terms (``text.fts_match_expression``),
    folded, without empty or repeated ones."""
    if match is None:
        return []
    terms = (fold(m.group(1).replace('""', '"')) for m in _QUOTED.finditer(match))
    return list(dict.fromkeys(t for t in terms if t))


def refuse_nul(value: str | None, field: str) -> None:
    """``InvalidInput`` naming ``field`` when ``value`` holds NUL, which PostgreSQL cannot
    store in text."""
    if value is not None and "\x00" in value:
        raise InvalidInput(field, f"contains a NUL character (U+0000) at position "
                           f"{value.index(chr(0))}, which a PostgreSQL database cannot store")
