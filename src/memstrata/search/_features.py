"""What the learned ranker knows about a message and a query: one row of numbers each (pure).

Nearly every feature is *absolute*: it depends on the query, the message and the message's
own session (its terms' rarity there, its neighbours), not on the other messages searched.
The :data:`RELATIVE` ones place a message within its conversation: against every message
searched in a session of more than one, so a conversation kept session by session reads as
one session (a memory kept alone in its session is placed against itself). The
:data:`SCOPED` ones are not absolute either: two compare the message with the best of the
messages searched, which tells the ranker how a message stands among its rivals, and two
weigh the query's words by how many of the messages searched hold each, which tells it that
a word half the memories hold says little even where each memory is a session of its own;
two more compare it with what the best of them say together (pseudo-relevance feedback, which
finds a memory worded unlike the query but like its best matches). Both kinds are worked out
over the session, or every session of a tenant-wide search, in one pass; never session by
session. The answer gate's judge reads the absolute and relative ones only
(:data:`JUDGE_FEATURES`): whether a search has an answer does not hang on how a message
compares with the best of everything searched.

The cosines come from two vectors per message (its own text, and its text after the message
before it: :func:`memstrata.search._fusion.embedding_keys`); the keyword features from the
session's in-memory BM25 over each message's own terms and over its neighbour key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ._bm25 import KeywordIndex, tokens
from ._cues import Cues, query_cues
from ._dates import TimeSpan, query_time_spans, time_prior
from ._scores import semantic_scores, sender_prior

__all__ = ["CENTRED", "FEATURES", "FEEDBACK", "FEEDBACK_SIZE", "JUDGE_FEATURES", "RELATIVE",
           "SCOPED", "SEMANTIC_FEATURES", "Groups", "QueryTerms", "Signals",
           "centred_cosines", "feature_matrix", "feedback_columns", "fill_centred",
           "fill_feedback", "query_terms_of", "session_groups", "signals"]

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

_K1 = 1.2
_B = 0.75
_DAY_NS = 86_400 * 10**9
# A term is rare in a session when at most this share of its messages (or 3) hold it.
_RARE_SHARE = 0.05
_RARE_MIN = 3

FEATURES: tuple[str, ...] = (
    "cos_own",        # cosine of the message's own text with the query
    "cos_key",        # cosine of the message embedded after the message before it
    "cos_prev",       # own-text cosine of the message before (0 at the start)
    "cos_next",       # own-text cosine of the message after (0 at the end)
    "cos_own_sq",     # cos_own squared (the high end matters more than the middle)
    "cos_own_len",    # cos_own x the message's length (a short text's cosine means less)
    "cov_own",        # share of the query's weight (idf) whose terms the message's text holds
    "cov_key",        # the same over the neighbour key (two messages either side)
    "cov_own_all",    # 1 when every query term is in the message's own text
    "bm25_own",       # BM25 of the own text, divided by the most a message could score
    "bm25_key",       # BM25 of the neighbour key, likewise
    "rare_own",       # the own text holds a query term that few of the session's messages hold
    "cov_own_len",    # cov_own x length
    "time",           # how well the message's time fits a date the query names
    "sender",         # the query names the message's sender
    "length",         # log of the message's length in characters, scaled
    "age",            # log of the message's age in days at the search, scaled
    "script",         # 1 when the query and the message are written in the same script
    "question",       # the message is a question (ends with a question mark)
    "query_terms",    # log of the number of the query's terms, scaled
    "session_size",   # log of the number of messages in the message's session, scaled
    "rel_sim",        # the neighbour-smoothed cosine, scaled 0..1 within the conversation
    "rel_bm25_key",   # bm25_key over the conversation's best bm25_key
    "rel_sim_size",   # rel_sim x the conversation's size, scaled as session_size (the
                      # scaling means more in a long conversation)
    "rel_bm25_size",  # rel_bm25_key x the conversation's size
    "content",        # log of the number of distinct content words in the message, scaled
    "ccos_own",       # cos_own after taking the embedder's mean vector from both and
                      # renormalising (:func:`centred_cosines`)
    "ccos_key",       # the same for the keyed vector
    "hub_query",      # the query vector's product with the mean vector
    "hub_own",        # the message's own vector's product with the mean vector
    "early_age",      # the query asks how a thing stood at first (:mod:`._cues`) x age
    "late_age",       # the query asks how it stands now x age
    "early_place",    # the first x the message's place in its conversation's time (1 oldest)
    "late_place",     # the second x that place
    "cos_gap",        # cos_own less the highest cos_own among the messages searched
    "cov_gap",        # cov_own less the highest cov_own among the messages searched
    "cov_scope",      # cov_own with each query term weighed by its idf among all the
                      # messages searched, not within the message's session
    "bm25_scope",     # bm25_own likewise, its lengths against the mean of all searched
    "cos_feedback",   # own-text cosine with the feedback vector: the mean of the own-text
                      # vectors of the FEEDBACK_SIZE messages leading by ccos_own + cov_own
    "cos_expanded",   # own-text cosine with the query's vector plus the feedback vector
)
"""The features of a hybrid search, in column order."""

SCOPED: tuple[str, ...] = ("cos_gap", "cov_gap", "cov_scope", "bm25_scope", "cos_feedback",
                           "cos_expanded")
"""The features that compare a message with the other messages searched, weigh the query's
words by how many of them hold each, or compare it with what the best of them say."""

RELATIVE: tuple[str, ...] = ("rel_sim", "rel_bm25_key", "rel_sim_size", "rel_bm25_size",
                             "early_place", "late_place")
"""The features that place a message within its conversation: every message searched in a
session of more than one message (a session searched alone: that session). A memory that is a
session of its own is placed against itself alone (``rel_sim`` 0, ``rel_bm25_key`` 1 when its
key holds a query term, the places 0), whatever else is searched."""

JUDGE_FEATURES: tuple[str, ...] = FEATURES[:FEATURES.index("early_age")]
"""The features the answer gate's judge reads: a message's own evidence and how it stands in
its conversation (the :data:`RELATIVE` ones but the cue words' places), never a comparison
with the best of everything searched, and no cue word
(:class:`memstrata.search._ranker.Gate`)."""

CENTRED: tuple[str, ...] = ("ccos_own", "ccos_key", "hub_query", "hub_own")
"""The features that need each message's vectors' products with the ranker's centre: a
search works them out for its candidates only (:func:`fill_centred`)."""

FEEDBACK: tuple[str, ...] = ("cos_feedback", "cos_expanded")
"""The features of pseudo-relevance feedback: each message's cosine with what the messages
that lead on the query's meaning and words say, so a memory worded unlike the query but like
its best matches comes up (:func:`feedback_columns`). They read the centred cosines, so a
search works them out for its candidates too (:func:`fill_feedback`)."""

FEEDBACK_SIZE = 3
"""How many leading messages' vectors make the feedback vector."""

SEMANTIC_FEATURES: tuple[str, ...] = (
    "cos_own", "cos_key", "cos_prev", "cos_next", "cos_own_sq", "cos_own_len", "time",
    "sender", "length", "age", "script", "question", "query_terms", "session_size",
    "rel_sim", "rel_sim_size", "content", "early_place")
"""The features of a semantic search: no word of the query is looked up among the
messages' words. (The cue words are read in the query alone: whether it asks how a thing
stood at first.)"""


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """A query's distinct index terms, the dates it names and its cue words."""

    terms: tuple[str, ...]
    cjk_share: float
    text: str
    spans: tuple[TimeSpan, ...]
    cues: Cues = field(default_factory=Cues)


def query_terms_of(query: str) -> QueryTerms:
    """What the features read of a query, worked out once per search."""
    terms = tuple(dict.fromkeys(tokens(query)))
    return QueryTerms(terms=terms, cjk_share=_cjk_share(query), text=query,
                      spans=tuple(query_time_spans(query)), cues=query_cues(query))


def _cjk_share(text: str) -> float:
    if not text:
        return 0.0
    cjk = sum(1 for ch in text if "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff"
              or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff")
    letters = sum(1 for ch in text if ch.isalpha())
    return cjk / letters if letters else 0.0


@dataclass(frozen=True)
class Signals:
    """Per-message facts of a session that do not depend on the query (built once)."""

    length: FloatArray
    """log1p(characters) / 8."""
    cjk: FloatArray
    """Share of the message's letters that are Chinese, Japanese or Korean."""
    question: FloatArray
    """1 for a message ending with a question mark."""
    content: FloatArray
    """log1p(distinct index terms) / 5: how much the message says."""


def signals(texts: Sequence[str]) -> Signals:
    length = np.asarray([np.log1p(len(t)) / 8.0 for t in texts], dtype=np.float32)
    cjk = np.asarray([_cjk_share(t) for t in texts], dtype=np.float32)
    question = np.asarray([t.rstrip().endswith(("?", "？")) for t in texts], dtype=np.float32)
    content = np.asarray([np.log1p(len(set(tokens(t)))) / 5.0 for t in texts],
                         dtype=np.float32)
    return Signals(length=length, cjk=cjk, question=question, content=content)


def centred_cosines(cos: FloatArray, hub: FloatArray, hub_query: float, centre_sq: float,
                    present: npt.NDArray[np.bool_] | None = None) -> FloatArray:
    """Cosines of unit vectors ``m`` with the unit query ``q`` after taking the centre ``c``
    from both, from what the plain products give: ``cos = m.q``, ``hub = m.c``,
    ``hub_query = q.c``, ``centre_sq = c.c``. All of a small encoder's vectors share one
    direction (the mean of what it embeds), so its plain cosines crowd together; with that
    direction gone, a filler reply no longer looks like everything. 0 where a message has no
    vector (``present`` false, or a product of exactly 0 both ways)."""
    if present is None:
        present = (cos != 0.0) | (hub != 0.0)
    top = cos - np.float32(hub_query) - hub + np.float32(centre_sq)
    left = np.float32(np.sqrt(max(1.0 - 2.0 * hub_query + centre_sq, 1e-6)))
    right = np.sqrt(np.maximum(1.0 - 2.0 * hub + np.float32(centre_sq), np.float32(1e-6)))
    out: FloatArray = np.where(present, top / (left * right), 0.0).astype(np.float32)
    return out


def _two_products(vectors: FloatArray, query_vector: FloatArray, centre: FloatArray
                  ) -> tuple[FloatArray, FloatArray]:
    """Each row's cosine with the query and product with the centre: one matrix product of
    two columns, which reads the vectors once (as one cosine alone does)."""
    q = np.asarray(query_vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or vectors.shape[0] == 0:
        zeros = np.zeros(vectors.shape[0], dtype=np.float32)
        return zeros, zeros.copy()
    both = (vectors @ np.stack([q / np.float32(norm), centre.astype(np.float32)], axis=1)
            ).astype(np.float32)
    return np.ascontiguousarray(both[:, 0]), np.ascontiguousarray(both[:, 1])


def _neighbour_values(values: FloatArray, codes: npt.NDArray[np.int64],
                      links: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None
                      ) -> tuple[FloatArray, FloatArray]:
    """Each message's previous and next message's value in its session (0 where there is
    none): by adjacency (sessions contiguous) or by explicit links (-1: none)."""
    n = values.shape[0]
    before = np.zeros(n, dtype=np.float32)
    after = np.zeros(n, dtype=np.float32)
    if links is not None:
        prev, nxt = links
        before = np.where(prev >= 0, values[prev], 0.0).astype(np.float32)
        after = np.where(nxt >= 0, values[nxt], 0.0).astype(np.float32)
    elif n > 1:
        same = codes[1:] == codes[:-1]
        before[1:] = np.where(same, values[:-1], 0.0)
        after[:-1] = np.where(same, values[1:], 0.0)
    return before, after


def _postings(index: KeywordIndex, term: str) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """The messages whose key holds ``term``, and the term's frequency in each."""
    tid = index.vocab.get(term)
    if tid is None or index.tf is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    lo, hi = int(index.indptr[tid]), int(index.indptr[tid + 1])
    return index.docs[lo:hi], index.tf[lo:hi]


@dataclass(frozen=True)
class Groups:
    """Per message, the size of its session and its keys' lengths against the session's
    mean: what BM25 and the idf need, for any number of sessions side by side. It does not
    depend on the query, so a caller that keeps the messages may keep it too
    (:func:`session_groups`)."""

    codes: npt.NDArray[np.int64]
    count: int
    sizes: FloatArray  # messages in each session
    size: FloatArray  # messages in the message's session
    own_norm: FloatArray  # k1 * (1 - b + b * own length / session mean)
    key_norm: FloatArray


def session_groups(codes: npt.NDArray[np.int64], own_lengths: FloatArray | None,
                   key_lengths: FloatArray | None) -> Groups:
    """The :class:`Groups` of messages in sessions ``codes`` (contiguous or not) with these
    own-text and key lengths (``None``: 1 each)."""
    count = int(codes.max()) + 1 if codes.size else 0
    per = np.bincount(codes, minlength=count).astype(np.float32)

    def norm(given: FloatArray | None) -> FloatArray:
        lengths = given if given is not None else np.ones(codes.shape[0], dtype=np.float32)
        mean = np.bincount(codes, weights=lengths, minlength=count) / np.maximum(per, 1)
        mean = np.where(mean > 0, mean, 1.0)
        out: FloatArray = (_K1 * (1.0 - _B + _B * lengths / mean[codes])).astype(np.float32)
        return out

    return Groups(codes=codes, count=count, sizes=per, size=per[codes],
                  own_norm=norm(own_lengths), key_norm=norm(key_lengths))


def _scope_size(n: int) -> np.float32:
    """The size of ``n`` messages as the features read it: the log of ``n``, scaled as
    ``session_size`` is."""
    return np.float32((np.log1p(np.full(1, n, dtype=np.float32)) / 8.0)[0])


def _scaled_among(values: FloatArray, joined: BoolArray | None,
                  low: float | None = None) -> FloatArray:
    """``values`` scaled to 0..1 (from ``low``, or their least) by their span among the
    ``joined`` rows (``None``: every row); 0 where those span nothing."""
    among = values if joined is None else values[joined]
    if among.shape[0]:
        least = np.float32(among.min() if low is None else low)
        span = np.float32(among.max()) - least
        if span > 0:
            scaled: FloatArray = ((values - least) / span).astype(np.float32)
            return scaled
    return np.zeros(values.shape[0], dtype=np.float32)


def _relative_column(cols: dict[str, FloatArray], name: str, sized: str, values: FloatArray,
                     joined: BoolArray | None, size: np.float32, *,
                     alone_value: FloatArray, low: float | None = None) -> None:
    """The relative column ``name``, and ``sized``, its product with ``size``, the size of
    what it is scaled among: ``values`` scaled to 0..1 among every message searched in a
    session of more than one (``joined``; ``None``: every message is), so a conversation kept
    session by session reads as one session; ``alone_value`` for a memory alone in its
    session, which is placed against itself."""
    scaled = _scaled_among(values, joined, low)
    if joined is None:
        cols[name] = scaled
        cols[sized] = scaled * size
    else:
        cols[name] = np.where(joined, scaled, alone_value).astype(np.float32)
        cols[sized] = cols[name] * np.where(joined, size, cols["session_size"])


def feature_matrix(*, own_terms: KeywordIndex, key_terms: KeywordIndex, info: Signals,
                   times: npt.NDArray[np.int64], sender_codes: npt.NDArray[np.int64],
                   sender_names: Sequence[str | None], query: QueryTerms,
                   own_vectors: FloatArray | None, key_vectors: FloatArray | None,
                   query_vector: FloatArray | None, now: int,
                   groups: npt.NDArray[np.int64] | None = None,
                   semantic_only: bool = False,
                   links: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None,
                   cosines: tuple[FloatArray, FloatArray] | None = None,
                   centre: FloatArray | None = None,
                   hubs: tuple[FloatArray, FloatArray] | None = None,
                   candidates_only: bool = False,
                   sessions: Groups | None = None) -> FloatArray:
    """One row of :data:`FEATURES` (or :data:`SEMANTIC_FEATURES`) per message.

    The messages are one session's, or several sessions' side by side (``groups``: the
    session of each message, sessions contiguous and in order; ``None``: one session): a
    message's absolute features are those it has within its own session, so they do not
    depend on which sessions are searched with it (the :data:`RELATIVE` and :data:`SCOPED`
    ones do). ``own_terms`` and ``key_terms`` index the messages' own terms and their
    neighbour keys (keys built within sessions); the vectors are unit rows, zero where a
    message has none yet (its cosines are then 0). Without a query vector the cosine
    features are 0.

    ``links`` (each message's previous and next message in its session, -1 for none) lets
    the sessions interleave in any order; ``cosines`` (own-text and keyed cosines with the
    query, worked out by the caller) stand for the vectors, and ``hubs`` (the own-text and
    keyed vectors' products with ``centre``) likewise. ``centre`` is the embedder's mean
    vector the ranker was trained with (``None``: the zero vector, so the centred cosines
    are the plain ones). With ``candidates_only`` (and no ``hubs``) the :data:`CENTRED`
    and :data:`FEEDBACK` columns are left NaN, for :func:`fill_centred` and
    :func:`fill_feedback` to work out on the rows a search keeps.
    ``sessions``: the messages' :func:`session_groups` (of ``groups``, or of one session),
    when the caller keeps them; worked out here otherwise.
    """
    n = own_terms.size
    codes = np.zeros(n, dtype=np.int64) if groups is None else groups
    cols: dict[str, FloatArray] = {}
    zeros = np.zeros(n, dtype=np.float32)
    if cosines is not None:
        cos_own, cos_key = cosines
    elif query_vector is not None and own_vectors is not None and key_vectors is not None:
        if centre is not None and hubs is None and not semantic_only and not candidates_only:
            # The query's and the centre's products in one pass over the vectors.
            (cos_own, hub_own), (cos_key, hub_key) = (
                _two_products(own_vectors, query_vector, centre),
                _two_products(key_vectors, query_vector, centre))
            hubs = (hub_own, hub_key)
        else:
            cos_own = semantic_scores(own_vectors, query_vector)
            cos_key = semantic_scores(key_vectors, query_vector)
    else:
        cos_own = cos_key = zeros
    cols["cos_own"] = cos_own
    cols["cos_key"] = cos_key
    # The columns a search works out for its candidates only (rank_features).
    lazy = candidates_only and centre is not None and hubs is None
    if not semantic_only:
        if lazy:
            for name in CENTRED:
                cols[name] = np.full(n, np.nan, dtype=np.float32)
        else:
            _centred_columns(cols, centre, hubs, own_vectors, key_vectors, query_vector)
    cols["cos_prev"], cols["cos_next"] = _neighbour_values(cos_own, codes, links)
    cols["cos_own_sq"] = cos_own * cos_own
    cols["cos_own_len"] = cos_own * info.length
    cols["time"] = time_prior(times, query.spans) if query.spans else zeros
    cols["sender"] = sender_prior(sender_codes, sender_names, query.terms)
    if links is not None and groups is not None and cols["sender"].any():
        # Per session, as a session's own search reads it: a name every message of the
        # session was sent by tells them apart no more.
        named = np.bincount(codes, weights=cols["sender"]) == np.bincount(codes)
        cols["sender"] = np.where(named[codes], 0.0, cols["sender"]).astype(np.float32)
    cols["length"] = info.length
    cols["age"] = (np.log1p(np.maximum(now - times, 0) / _DAY_NS) / 8.0).astype(np.float32)
    cjk_query = query.cjk_share >= 0.5
    cols["script"] = ((info.cjk >= 0.5) == cjk_query).astype(np.float32)
    cols["question"] = info.question
    cols["content"] = info.content
    cols["query_terms"] = np.full(n, np.log1p(len(query.terms)) / 3.0, dtype=np.float32)
    g = (sessions if sessions is not None
         else session_groups(codes, own_terms.lengths, key_terms.lengths))
    cols["session_size"] = (np.log1p(g.size) / 8.0).astype(np.float32)
    smooth = cos_key.copy()
    weight = np.ones(n, dtype=np.float32)
    if links is not None:
        has_prev, has_next = links[0] >= 0, links[1] >= 0
        before, after = _neighbour_values(cos_key, codes, links)
        smooth += np.where(has_prev, 0.5 * before, 0.0).astype(np.float32)
        smooth += np.where(has_next, 0.5 * after, 0.0).astype(np.float32)
        weight += np.where(has_prev, 0.5, 0.0).astype(np.float32)
        weight += np.where(has_next, 0.5, 0.0).astype(np.float32)
    elif n > 1:
        same = codes[1:] == codes[:-1]
        smooth[1:] += np.where(same, 0.5 * cos_key[:-1], 0.0).astype(np.float32)
        smooth[:-1] += np.where(same, 0.5 * cos_key[1:], 0.0).astype(np.float32)
        weight[1:] += np.where(same, 0.5, 0.0).astype(np.float32)
        weight[:-1] += np.where(same, 0.5, 0.0).astype(np.float32)
    smooth = (smooth + np.float32(0.2) * cos_own) / (weight + np.float32(0.2))
    # Every message searched in a session of more than one (None: every message is).
    alone = g.size <= 1
    joined = ~alone if alone.any() else None
    size = _scope_size(n if joined is None else int(np.count_nonzero(joined)))
    _relative_column(cols, "rel_sim", "rel_sim_size", smooth, joined, size, alone_value=zeros)
    _cue_columns(cols, query.cues, times, joined)
    if not semantic_only:
        _keyword_columns(cols, own_terms, key_terms, query, info, g)
        _relative_column(cols, "rel_bm25_key", "rel_bm25_size", cols["bm25_key"], joined,
                         size, alone_value=(cols["bm25_key"] > 0).astype(np.float32),
                         low=0.0)
        for name, base in (("cos_gap", cos_own), ("cov_gap", cols["cov_own"])):
            top = float(base.max()) if n else 0.0
            cols[name] = (base - np.float32(top)).astype(np.float32)
        if lazy:
            for name in FEEDBACK:
                cols[name] = np.full(n, np.nan, dtype=np.float32)
        else:
            cols["cos_feedback"], cols["cos_expanded"] = feedback_columns(
                own_vectors, cols["ccos_own"] + cols["cov_own"], cos_own, query_vector)
    names = SEMANTIC_FEATURES if semantic_only else FEATURES
    # Column by column into one array laid out by column (no stacked copy).
    out: FloatArray = np.empty((len(names), n), dtype=np.float32)
    for j, name in enumerate(names):
        out[j] = cols[name]
    return out.T


def _cue_columns(cols: dict[str, FloatArray], cues: Cues, times: npt.NDArray[np.int64],
                 joined: BoolArray | None) -> None:
    """``early_age`` ... ``late_place``: the query's cues times the message's age and its
    place in its conversation's time (0 for the newest message, 1 for the oldest, among every
    message searched in a session of more than one; 0 for a memory alone in its session, and
    where the messages share one time)."""
    n = times.shape[0]
    zeros = np.zeros(n, dtype=np.float32)
    if not (cues.early or cues.late) or not n:
        for name in ("early_age", "late_age", "early_place", "late_place"):
            cols[name] = zeros
        return
    t = (times - times.min()).astype(np.float64).astype(np.float32)
    # -t scaled: the newest message (among the joined) at 0, the oldest at 1.
    place = _scaled_among(-t, joined)
    if joined is not None:
        place = np.where(joined, place, 0.0).astype(np.float32)
    for cue, kind in ((cues.early, "early"), (cues.late, "late")):
        cols[f"{kind}_age"] = cols["age"] if cue else zeros
        cols[f"{kind}_place"] = place if cue else zeros


def _centred_columns(cols: dict[str, FloatArray], centre: FloatArray | None,
                     hubs: tuple[FloatArray, FloatArray] | None,
                     own_vectors: FloatArray | None, key_vectors: FloatArray | None,
                     query_vector: FloatArray | None) -> None:
    """``ccos_own``, ``ccos_key``, ``hub_query`` and ``hub_own`` (see :data:`FEATURES`)."""
    cos_own, cos_key = cols["cos_own"], cols["cos_key"]
    zeros = np.zeros(cos_own.shape[0], dtype=np.float32)
    q = None if query_vector is None else np.asarray(query_vector, np.float32).ravel()
    qn = 0.0 if q is None else float(np.linalg.norm(q))
    if centre is None or q is None or qn == 0.0:
        cols["ccos_own"], cols["ccos_key"] = cos_own, cos_key
        cols["hub_query"] = cols["hub_own"] = zeros
        return
    c = np.asarray(centre, dtype=np.float32).ravel()
    if hubs is not None:
        hub_own, hub_key = hubs
    elif own_vectors is not None and key_vectors is not None:
        hub_own = (own_vectors @ c).astype(np.float32)
        hub_key = (key_vectors @ c).astype(np.float32)
    else:
        hub_own = hub_key = zeros
    hub_query = float(q @ c) / qn
    centre_sq = float(c @ c)
    cols["ccos_own"] = centred_cosines(cos_own, hub_own, hub_query, centre_sq)
    cols["ccos_key"] = centred_cosines(cos_key, hub_key, hub_query, centre_sq)
    cols["hub_query"] = np.full(cos_own.shape[0], hub_query, dtype=np.float32)
    cols["hub_own"] = hub_own


def fill_centred(x: FloatArray, rows: npt.NDArray[np.intp], hubs: tuple[FloatArray, FloatArray],
                 centre: FloatArray, query_vector: FloatArray) -> None:
    """Work out the :data:`CENTRED` columns of ``x`` (hybrid features) for ``rows`` only,
    given their own and keyed vectors' products with ``centre`` (in ``rows`` order)."""
    if not rows.shape[0]:
        return
    j = {name: FEATURES.index(name) for name in (*CENTRED, "cos_own", "cos_key")}
    cols = {"cos_own": x[rows, j["cos_own"]], "cos_key": x[rows, j["cos_key"]]}
    _centred_columns(cols, centre, hubs, None, None, query_vector)
    for name in CENTRED:
        x[rows, j[name]] = cols[name]


def feedback_columns(own: FloatArray | None, lead: FloatArray, cos_own: FloatArray,
                     query_vector: FloatArray | None) -> tuple[FloatArray, FloatArray]:
    """``cos_feedback`` and ``cos_expanded`` of messages whose own-text vectors are the unit
    rows ``own`` (zero where a message has none yet): the feedback vector is the normalised
    mean of the vectors of the :data:`FEEDBACK_SIZE` messages highest in ``lead`` (the first
    of equals first), and each message's cosine is taken with it and with the unit query
    plus it. Without vectors (or a query) there is no feedback: 0, and the plain cosine."""
    n = lead.shape[0]
    q = None if query_vector is None else np.asarray(query_vector, np.float32).ravel()
    qn = 0.0 if q is None else float(np.linalg.norm(q))
    if own is None or q is None or qn == 0.0 or not n:
        return np.zeros(n, dtype=np.float32), cos_own.astype(np.float32)
    top = np.argsort(-lead, kind="stable")[:FEEDBACK_SIZE]
    mean = own[top].mean(axis=0)
    size = float(np.linalg.norm(mean))
    if size == 0.0:
        return np.zeros(n, dtype=np.float32), cos_own.astype(np.float32)
    feedback = (mean / np.float32(size)).astype(np.float32)
    expanded = q / np.float32(qn) + feedback
    expanded = (expanded / np.float32(np.linalg.norm(expanded))).astype(np.float32)
    both = (own @ np.stack([feedback, expanded], axis=1)).astype(np.float32)
    return np.ascontiguousarray(both[:, 0]), np.ascontiguousarray(both[:, 1])


def fill_feedback(x: FloatArray, rows: npt.NDArray[np.intp], own: FloatArray,
                  query_vector: FloatArray) -> None:
    """Work out the :data:`FEEDBACK` columns of ``x`` (hybrid features, the centred ones of
    ``rows`` filled) for ``rows`` only, given their own-text vectors (in ``rows`` order): the
    feedback is drawn from those rows."""
    if not rows.shape[0]:
        return
    j = {name: FEATURES.index(name) for name in (*FEEDBACK, "ccos_own", "cov_own", "cos_own")}
    lead = x[rows, j["ccos_own"]] + x[rows, j["cov_own"]]
    feedback, expanded = feedback_columns(own, lead, x[rows, j["cos_own"]], query_vector)
    x[rows, j["cos_feedback"]] = feedback
    x[rows, j["cos_expanded"]] = expanded


def _keyword_columns(cols: dict[str, FloatArray], own_terms: KeywordIndex,
                     key_terms: KeywordIndex, query: QueryTerms, info: Signals,
                     g: Groups) -> None:
    n = own_terms.size
    names = ("cov_own", "cov_key", "cov_own_all", "bm25_own", "bm25_key", "rare_own",
             "cov_own_len", "cov_scope", "bm25_scope")
    acc = {name: np.zeros(n, dtype=np.float32) for name in names}
    total = np.zeros(n, dtype=np.float32)
    every = np.ones(n, dtype=np.bool_)
    # Per session: how many of its messages may hold a rare term.
    sizes = g.sizes
    limit = np.maximum(np.float32(_RARE_MIN), np.float32(_RARE_SHARE) * sizes)
    # Over every message searched: the idf of a term and the BM25 length norm. In a session
    # of one message (a memory kept one per session) every word it holds is as rare as any
    # other there; among all the messages searched, "city" in half of them is not "sister".
    lengths = (own_terms.lengths if own_terms.lengths is not None
               else np.ones(n, dtype=np.float32))
    mean_length = float(lengths.mean()) if n else 1.0
    mean_length = mean_length if mean_length > 0 else 1.0
    scope_total = 0.0
    for term in query.terms:
        docs, tf = _postings(own_terms, term)
        df = np.bincount(g.codes[docs], minlength=g.count).astype(np.float32)
        # The term's idf in each session (by the messages' own text).
        idf_of = np.log1p((sizes - df + 0.5) / (df + 0.5)).astype(np.float32)
        total += idf_of[g.codes] if g.count > 1 else idf_of[0]
        held = np.zeros(n, dtype=np.bool_)
        held[docs] = True
        every &= held
        session = g.codes[docs]
        idf = idf_of[session]
        acc["cov_own"][docs] += idf
        acc["bm25_own"][docs] += idf * tf * (_K1 + 1) / (tf + g.own_norm[docs])
        acc["rare_own"][docs] = np.maximum(acc["rare_own"][docs],
                                           (df[session] <= limit[session]).astype(np.float32))
        wide = np.float32(np.log1p((n - docs.shape[0] + 0.5) / (docs.shape[0] + 0.5)))
        scope_total += float(wide)
        acc["cov_scope"][docs] += wide
        # The length norm of the messages holding the term only (not a pass over all).
        norm = (_K1 * (1.0 - _B + _B * lengths[docs] / np.float32(mean_length))
                ).astype(np.float32)
        acc["bm25_scope"][docs] += wide * tf * (_K1 + 1) / (tf + norm)
        kdocs, ktf = _postings(key_terms, term)
        kidf = idf_of[g.codes[kdocs]]
        acc["cov_key"][kdocs] += kidf
        acc["bm25_key"][kdocs] += kidf * ktf * (_K1 + 1) / (ktf + g.key_norm[kdocs])
    if query.terms:
        scale = np.float32(1.0) / np.maximum(total, np.float32(1e-6))
        top = scale / np.float32(_K1 + 1.0)
        acc["cov_own"] *= scale
        acc["cov_key"] *= scale
        acc["bm25_own"] *= top
        acc["bm25_key"] *= top
        acc["cov_own_all"] = every.astype(np.float32)
        wide_scale = np.float32(1.0 / max(scope_total, 1e-6))
        acc["cov_scope"] *= wide_scale
        acc["bm25_scope"] *= wide_scale / np.float32(_K1 + 1.0)
    acc["cov_own_len"] = acc["cov_own"] * info.length
    cols.update(acc)
