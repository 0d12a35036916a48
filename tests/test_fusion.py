"""Unit tests of the pure hybrid-ranking functions on small hand-made data."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from memstrata.search._fusion import (
    DEFAULT_KEY_WEIGHTS,
    HybridWeights,
    SessionIndex,
    TimeSpan,
    build_keyword_index,
    build_session_index,
    embedding_key,
    keyword_scores,
    minmax,
    neighbour_smooth,
    query_time_spans,
    search_session,
    semantic_scores,
    sender_prior,
    stem,
    time_prior,
    tokens,
    top_indices,
)


@pytest.mark.parametrize(("word", "expected"), [
    ("painted", "paint"), ("paints", "paint"), ("painting", "paint"), ("running", "run"),
    ("stories", "story"), ("classes", "class"), ("class", "class"), ("bus", "bus"),
    ("was", "was"), ("Tokyo", "Tokyo"), ("2023", "2023"),
])
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_tokens_drop_stop_words_stem_and_bigram_cjk() -> None:
    assert tokens("What did Melanie paint?") == ["melani", "paint"]
    assert tokens("I was painting the sunsets") == ["paint", "sunset"]
    assert tokens("我喜歡記憶體") == ["我喜", "喜歡", "歡記", "記憶", "憶體"]
    assert tokens("貓") == ["貓"]
    assert tokens("the of and") == []


def test_tokens_keep_repeats_for_term_frequency() -> None:
    assert tokens("dog dogs DOG") == ["dog", "dog", "dog"]


def test_embedding_key_prefixes_sender_and_previous_message() -> None:
    assert embedding_key("hi", None) == "hi"
    assert embedding_key("hi", "Ann") == "Ann: hi"
    key = embedding_key("yes, Paris", "Bob", "where to?", "Ann")
    assert key == "Ann: where to?\nBob: yes, Paris"


def test_keyword_scores_only_messages_with_a_term_score() -> None:
    ix = build_keyword_index([tokens(t) for t in ["my dog barks", "lunch today", "a cat"]],
                             key_weights={0: 1.0})
    s = keyword_scores(ix, "dog")
    assert s[0] > 0 and s[1] == 0 and s[2] == 0
    assert keyword_scores(ix, "giraffe").tolist() == [0.0, 0.0, 0.0]
    assert keyword_scores(ix, "").tolist() == [0.0, 0.0, 0.0]


def test_rare_term_outweighs_common_term() -> None:
    texts = ["dog walk", "dog food", "dog park", "dog zebra"]
    ix = build_keyword_index([tokens(t) for t in texts], key_weights={0: 1.0})
    s = keyword_scores(ix, ["dog", "zebra"])
    assert int(np.argmax(s)) == 3


def test_neighbour_key_finds_the_reply_to_a_question() -> None:
    texts = ["Where did you go on holiday?", "Portugal, with my sister!", "Nice weather today"]
    toks = [tokens(t) for t in texts]
    own = keyword_scores(build_keyword_index(toks, key_weights={0: 1.0}), "holiday")
    near = keyword_scores(build_keyword_index(toks, key_weights={-1: .5, 0: 1, 1: .5}),
                          "holiday")
    assert own[1] == 0.0
    assert near[1] > 0.0 and near[0] > near[1] and near[2] == 0.0


def test_neighbour_keys_stop_at_group_boundaries() -> None:
    toks = [tokens("holiday plans"), tokens("sounds good")]
    assert keyword_scores(build_keyword_index(toks, groups=[1, 1]), "holiday")[1] > 0
    assert keyword_scores(build_keyword_index(toks, groups=[1, 2]), "holiday")[1] == 0


def test_build_keyword_index_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        build_keyword_index([["a"]], groups=[1, 2])
    with pytest.raises(ValueError):
        build_keyword_index([["a"]], key_weights={0: 0.0})


def test_empty_index() -> None:
    ix = build_keyword_index([])
    assert keyword_scores(ix, "dog").shape == (0,)


def test_default_key_weights_favour_the_message_itself() -> None:
    assert DEFAULT_KEY_WEIGHTS[0] == max(DEFAULT_KEY_WEIGHTS.values())


def test_semantic_scores_are_cosines() -> None:
    v = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    s = semantic_scores(v, np.array([2.0, 0.0], dtype=np.float32))
    assert np.allclose(s, [1.0, 0.0, 0.6])
    assert semantic_scores(v, np.zeros(2, dtype=np.float32)).tolist() == [0.0, 0.0, 0.0]


def test_neighbour_smooth_weights_and_groups() -> None:
    s = np.array([1.0, 0.0, 0.0, 2.0], dtype=np.float32)
    out = neighbour_smooth(s, {-1: 0.5, 0: 1.0, 1: 0.25})
    assert np.allclose(out, [1.0, 0.5, 0.5, 2.0])
    grouped = neighbour_smooth(s, {-1: 0.5, 0: 1.0, 1: 0.25}, groups=[1, 2, 2, 2])
    assert np.allclose(grouped, [1.0, 0.0, 0.5, 2.0])


def test_minmax() -> None:
    assert np.allclose(minmax(np.array([2.0, 4.0, 3.0], dtype=np.float32)), [0.0, 1.0, 0.5])
    assert minmax(np.array([3.0, 3.0], dtype=np.float32)).tolist() == [0.0, 0.0]
    assert minmax(np.zeros(0, dtype=np.float32)).shape == (0,)


def test_top_indices_order_ties_and_mask() -> None:
    s = np.array([0.1, 0.5, 0.5, 0.2], dtype=np.float32)
    assert top_indices(s, 3).tolist() == [2, 1, 3]
    assert top_indices(s, 10).tolist() == [2, 1, 3, 0]
    mask = np.array([True, False, True, True])
    assert top_indices(s, 2, mask).tolist() == [2, 3]
    assert top_indices(s, 0).tolist() == []


def _ns(year: int, month: int, day: int) -> int:
    return int(datetime(year, month, day, tzinfo=UTC).timestamp()) * 10**9


@pytest.mark.parametrize(("query", "expected"), [
    ("What did Ann eat on October 24, 2023?", [TimeSpan(2023, 10, 24)]),
    ("the trip on 1 February, 2023", [TimeSpan(2023, 2, 1)]),
    ("what happened in January 2022", [TimeSpan(2022, 1, 0)]),
    ("When did we go camping in June?", [TimeSpan(0, 6, 0)]),
    ("beach days in 2023", [TimeSpan(2023, 0, 0)]),
    ("you may go now", []),
    ("How many pets, as of September 2023?", []),
    ("between August 11 and August 15 2023",
     [TimeSpan(2023, 8, 15), TimeSpan(2023, 8, 11)]),
    ("meet at 10:30 tomorrow", []),
])
def test_query_time_spans(query: str, expected: list[TimeSpan]) -> None:
    assert query_time_spans(query) == expected


def test_time_prior_inside_span_then_linear_slack() -> None:
    times = [_ns(2023, 5, 8), _ns(2023, 5, 20), _ns(2023, 6, 3), _ns(2023, 6, 30),
             _ns(2023, 7, 4), _ns(2023, 8, 1)]
    june = time_prior(times, [TimeSpan(0, 6, 0)], slack_days=7)
    assert np.allclose(june, [0, 0, 1, 1, 3 / 7, 0], atol=1e-6)  # 4 days out of 7
    day = time_prior(times, [TimeSpan(2023, 5, 8)], slack_days=0)
    assert day.tolist() == [1, 0, 0, 0, 0, 0]
    assert time_prior(times, []).tolist() == [0] * 6


def test_sender_prior() -> None:
    codes = np.array([0, 1, 0, 2], dtype=np.int64)
    names = ("Caroline", "Melanie", None)
    assert sender_prior(codes, names, "What did Caroline paint?").tolist() == [1, 0, 1, 0]
    assert sender_prior(codes, names, "What did they paint?").tolist() == [0, 0, 0, 0]
    both = sender_prior(codes % 2, ("Caroline", "Melanie"), "Did Caroline and Melanie meet?")
    assert both.tolist() == [0, 0, 0, 0]


def _session() -> SessionIndex:
    texts = ["Where did you go on holiday?", "Portugal, with my sister!",
             "I adopted a puppy called Toby", "What breed is he?", "A beagle"]
    senders = ["Ann", "Bob", "Ann", "Bob", "Ann"]
    times = [_ns(2023, 5, 1)] * 2 + [_ns(2023, 9, 2)] * 3
    vectors = np.eye(5, 4, dtype=np.float32)
    vectors[4] = [0.0, 0.0, 0.6, 0.8]
    return build_session_index([10, 11, 12, 13, 14], texts, senders, times, vectors)


def test_search_session_keyword_needs_a_term_and_returns_ids() -> None:
    ix = _session()
    hits = search_session(ix, "holiday", k=5, mode="keyword")
    assert [i for i, _ in hits] == [10, 11, 12]  # the key reaches two messages on
    assert search_session(ix, "zebra", k=5, mode="keyword") == []


def test_search_session_semantic_and_hybrid() -> None:
    ix = _session()
    q = np.array([0.0, 0.0, 1.0, 0.0], dtype=np.float32)
    assert search_session(ix, "dog", q, k=1, mode="semantic")[0][0] == 12
    hyb = search_session(ix, "puppy", q, k=3)
    assert hyb[0][0] == 12 and len(hyb) == 3
    mask = np.array([True, True, False, True, True])
    assert 12 not in [i for i, _ in search_session(ix, "puppy", q, k=5, eligible=mask)]
    with pytest.raises(ValueError):
        search_session(ix, "puppy", None, mode="hybrid")
    with pytest.raises(ValueError):
        search_session(ix, "puppy", q, mode="fuzzy")


def test_search_session_date_prior_moves_the_right_month_up() -> None:
    ix = _session()
    plain = search_session(ix, "puppy", k=5, mode="keyword")
    dated = search_session(ix, "puppy in May 2023", k=5, mode="keyword")
    assert plain[0][0] == 12
    assert dated[0][0] in (10, 11)
    off = search_session(ix, "puppy in May 2023", k=5, mode="keyword",
                         weights=HybridWeights(time=0.0))
    assert off[0][0] == 12


def test_build_session_index_checks_lengths() -> None:
    with pytest.raises(ValueError):
        build_session_index([1, 2], ["a"], ["x"], [0])
    with pytest.raises(ValueError):
        build_session_index([1], ["a"], ["x"], [0], np.zeros((2, 3), dtype=np.float32))
