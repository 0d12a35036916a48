"""Pure helpers: CJK bigrams, query terms, FTS escaping, compaction decisions."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstrata._bigrams import bigram_texts
from memstrata._compaction import CompactionPolicy, HotRow, decide, is_due
from memstrata.text import bigram_text, fts_match_expression, query_terms, search_text


def test_bigrams_split_cjk_runs_only() -> None:
    assert bigram_text("資料庫 and SQLite") .split() == ["資料", "料庫", "and", "SQLite"]
    assert bigram_text("好").split() == ["好"]
    assert bigram_text("日本語のテスト").split()[:3] == ["日本", "本語", "語の"]


@pytest.mark.parametrize(("text", "prepared"), [
    ("", None), ("plain ascii", None), ("é accent only", None), ("好", " 好 "),
    ("好 x", " 好  x"), ("x好", "x 好 "), ("記憶體中文", " 記憶 憶體 體中 中文 "),
    ("ab記憶體cd の한국어 x,。y", "ab 記憶 憶體 cd  の한 한국 국어  x,。y"),
    ("。記憶", "。 記憶 "), ("記憶。", " 記憶 。"),
    ("a 好 b 好好 c 好好好", "a  好  b  好好  c  好好 好好 "), ("🙂資料🙂", "🙂 資料 🙂")])
def test_search_text_is_the_pair_text_or_none(text: str, prepared: str | None) -> None:
    # Exactly these strings: the index of existing files was built from them, and FTS5's
    # integrity check compares every token's position.
    assert search_text(text) == prepared
    assert bigram_text(text) == (text if prepared is None else prepared)


_PINNED = [("好", " 好 "), ("好 x", " 好  x"), ("x好", "x 好 "),
           ("記憶體中文", " 記憶 憶體 體中 中文 "),
           ("ab記憶體cd の한국어 x,。y", "ab 記憶 憶體 cd  の한 한국 국어  x,。y"),
           ("。記憶", "。 記憶 "), ("記憶。", " 記憶 。"), ("é accent only", "é accent only"),
           ("a 好 b 好好 c 好好好", "a  好  b  好好  c  好好 好好 "), ("🙂資料🙂", "🙂 資料 🙂"),
           ("plain ascii", "plain ascii"), ("\x00好\x00", "\x00 好 \x00")]


def test_batch_pair_text_is_the_pinned_strings() -> None:
    # A batch goes through the array path (enough non-ASCII texts), and neighbouring texts
    # must not pair across their boundary: "好" then "好" are two one-character runs.
    texts = [t for t, _ in _PINNED] * 2
    assert bigram_texts(texts) == [p for _, p in _PINNED] * 2
    assert bigram_texts(["好", "好", "好", "好"]) == [" 好 "] * 4
    # A batch larger than one array (an import of a long session) is cut into several.
    assert bigram_texts(texts * 200) == [p for _, p in _PINNED] * 400
    assert bigram_texts([]) == []


# Characters at and just past the edges of every CJK range, full-width punctuation, letters,
# digits, spaces, NUL and a character outside the Basic Multilingual Plane.
_EDGES = "\u303f\u3040\u30ff\u3100\u33ff\u3400\u4dbf\u4dc0\u4dff\u4e00\u9fff\ua000" \
         "\uf8ff\uf900\ufaff\ufb00\uabff\uac00\ud7af\ud7b0記憶體好的。，？aZ9 é\x00\U0001F642"


@settings(max_examples=300, derandomize=True)
@given(st.lists(st.text(alphabet=_EDGES, max_size=12), max_size=12),
       st.lists(st.text(max_size=8), max_size=3))
def test_batch_pair_text_equals_one_text_at_a_time(edges: list[str], anything: list[str]) -> None:
    texts = edges + anything
    assert bigram_texts(texts) == [bigram_text(t) for t in texts]


def test_query_terms_drop_stop_words_and_pair_cjk() -> None:
    assert query_terms("What did we decide about the database?") == ["decide", "database"]
    assert query_terms("the of") == ["the", "of"]  # only stop words: keep them
    assert query_terms("資料庫 設計 設計") == ["資料", "料庫", "設計"]
    assert query_terms("!!! ???") == []


HOSTILE = ['"', '""', "AND", "a AND b", "OR OR", "NOT x", "NEAR(a b, 2)", "x*", "^start",
           "col:value", "{a b}: c", "(unclosed", "'; DROP TABLE t; --", "\\", "\x00", "a\"b",
           "+-", "🙂", "資料\"庫", "- leading minus"]


@pytest.mark.parametrize("query", HOSTILE)
def test_fts_expression_is_always_valid_and_literal(query: str) -> None:
    c = sqlite3.connect(":memory:")
    c.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    c.execute("INSERT INTO f VALUES ('and or not near col value start drop table')")
    expr = fts_match_expression(query_terms(query))
    if expr is not None:
        c.execute("SELECT rowid FROM f WHERE f MATCH ?", (expr,)).fetchall()


def _rows(roles: str, size: int = 100) -> list[HotRow]:
    return [HotRow(i + 1, "user" if r == "u" else "assistant", size)
            for i, r in enumerate(roles)]


def test_bytes_policy_keeps_about_ratio_from_a_user_message() -> None:
    policy = CompactionPolicy(max_bytes=1000, ratio=0.8)
    rows = _rows("uauauauauaua")  # 1200 bytes
    assert is_due(len(rows), 1200, policy)
    verdict = decide(rows, policy)
    assert verdict is not None and not verdict.summary_due
    kept = [r for r in rows if r.id > verdict.cutoff]
    assert kept[0].role == "user" and sum(r.size for r in kept) <= 800


def test_bytes_policy_under_limit_does_nothing() -> None:
    policy = CompactionPolicy(max_bytes=10_000)
    assert not is_due(5, 500, policy)
    assert decide(_rows("uaua"), policy) is None


def test_bytes_policy_keeps_at_least_one_message() -> None:
    verdict = decide(_rows("aaaa", 5000), CompactionPolicy(max_bytes=1000))
    assert verdict is not None and verdict.cutoff == 3


def test_turns_policy_keeps_newest_and_asks_for_summary() -> None:
    policy = CompactionPolicy(by_bytes=False, by_turns=True, max_turns=10, keep_turns=4)
    assert not is_due(9, 0, policy) and is_due(10, 0, policy)
    verdict = decide(_rows("ua" * 5), policy)
    assert verdict is not None and verdict.cutoff == 6 and verdict.summary_due
