"""Ranking one session's messages: the learned ranker (:func:`rank_learned`) and the
hand-tuned fusion of neighbour-keyed BM25 with cosine (:func:`rank_session`) (pure).

Everything here is a pure function over Python lists and numpy arrays: no SQL, no I/O. The
search path fetches a session's hot messages (ids, texts, senders, times, vectors) once, builds
a :class:`SessionIndex` with :func:`build_session_index` (cache it per session until the next
write), and per query calls :func:`search_session`.

What was measured (LoCoMo, turn recall@5/@10, ``bench/locomo_research.py``; variants chosen on
three conversations, confirmed on three others; USE-multilingual vectors):

* **Neighbour keys.** A conversational turn is often meaningless alone ("Yes, last Friday!"):
  the facts a question asks about are spread over a turn and the turns around it. Indexing each
  message under a *key* made of its own text plus its neighbours' text, down-weighted with
  distance (:data:`DEFAULT_KEY_WEIGHTS`), lifts BM25 from 55/63 to 68/78 (choose half); the hit
  is still the single message. Smoothing BM25 *scores* over neighbours instead does worse
  (63/75), and BM25 parameters (k1, b) barely matter.
* **Smoothed cosine.** The small encoder ranks single turns poorly (21/30). Embedding a
  message after its previous message (:func:`embedding_key`) and adding half of each
  neighbour's cosine (:data:`DEFAULT_SMOOTHING`) doubles that (47/58).
* **Score fusion.** Reciprocal-rank fusion treats both rankings as equals and loses to BM25
  alone here; fusing min-max-normalised *scores*, cosine weighted 0.8, wins (70/81). z-score
  normalisation, pseudo-relevance feedback and diversifying neighbours did not help.
* **Query priors.** A query naming a date ("on 8 May, 2023", "in June") favours messages sent
  then (:func:`time_prior`); a query naming one of the senders favours that sender's messages
  (:func:`sender_prior`). Together +2.5 to +5 points on both halves. The sender prior costs a
  few points on LoCoMo's adversarial questions, which name the wrong person on purpose.

Result (evidence ids as corrected by the dial481 audit): 74.7/83.9 on the choosing half,
70.1/78.5 on the held-out half, against FTS5 BM25's 54.8/62.6 and 54.5/63.2.

Precision (``bench/locomo.py``, LoCoMo dev6 plus the off-topic questions of
``bench/_offtopic.py``; figures in docs/benchmarks.md):

* **Each message is found as itself.** The key above makes a reply take on the topic of the
  message before it, so each message also has a vector of its text alone
  (:func:`embedding_keys`). Its cosine joins the similarity with weight :data:`OWN_WEIGHT`, and
  a message whose own cosine reaches :data:`VERBATIM` among the best candidates leads.
* **Evidence, not filler** (:func:`rank_session`). Min-max scaling always gives some message
  a 1, so a hit needs evidence: in hybrid mode a query term in its own text (or sender), or a
  *similarity* at the floor; in semantic mode the similarity. The similarity is absolute: the
  weighted mean of the message's keyed cosine (1), its neighbours' (1/2 each) and its
  own-text cosine (:data:`OWN_WEIGHT`), one precomputed matrix for every message.
* **An exact rare word is never buried.** In hybrid mode a message whose own text holds a
  query term rare in the session (:func:`rare_terms`) ranks above every message whose key
  holds no query term at all, however close those sound.

Tokens: Latin-script words lower-cased, stop words dropped, and a light English suffix
stripping (plural ``s``, ``ed``, ``ing``, final ``e``) standing in for FTS5's Porter stemmer
(in-memory BM25 over own text matches FTS5's BM25: 55.2/62.9 against 54.8/62.6); Chinese and
Japanese runs become overlapping 2-character pairs, as in :mod:`memstrata.text`.

Cost at 100,000 messages in one session (2 cores): building the index ~5 s (cache it); a
query p95 under 30 ms on one BLAS thread, of which the 512-d matrix product is most.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._bm25 import (
    DEFAULT_KEY_WEIGHTS,
    KeywordIndex,
    build_keyword_index,
    keyword_scores,
    stem,
    tokens,
)
from ._dates import TimeSpan, query_time_spans, time_prior
from ._features import (
    CENTRED,
    FEATURES,
    FEEDBACK,
    QueryTerms,
    Signals,
    feature_matrix,
    fill_centred,
    fill_feedback,
    signals,
)
from ._ranker import LearnedRanker
from ._scores import minmax, neighbour_smooth, semantic_scores, sender_prior, top_indices

__all__ = [
    "DEFAULT_KEY_WEIGHTS",
    "DEFAULT_SMOOTHING",
    "KEY_SCHEME",
    "HybridWeights",
    "KeywordIndex",
    "Ranked",
    "SessionIndex",
    "TimeSpan",
    "build_keyword_index",
    "build_session_index",
    "cap_related",
    "embedding_key",
    "embedding_keys",
    "keyword_scores",
    "minmax",
    "neighbour_smooth",
    "query_time_spans",
    "rank_features",
    "rank_learned",
    "rank_session",
    "rare_terms",
    "search_session",
    "semantic_scores",
    "sender_prior",
    "session_features",
    "stem",
    "time_prior",
    "tokens",
    "top_indices",
    "vector_dim",
    "vector_model",
]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

# Weight of a message's own cosine and its neighbours' in its semantic score, by offset.
DEFAULT_SMOOTHING: dict[int, float] = {-1: 0.5, 0: 1.0, 1: 0.5}


# A message's similarity averages its keyed cosine, half of each neighbour's and this share
# of its own-text cosine...
OWN_WEIGHT = 0.2
# ... and a message whose own text is this close to the query (nearly its words) leads.
VERBATIM = 0.7
_VERBATIM_LEAD = 1.0
_VERBATIM_CANDIDATES = 256
REFINE = 256
"""A learned ranker's trees (if it has any) re-score this many of a search's best messages
by its linear part (or eight times the hits asked for, if more); the rest keep the linear
estimate, which is what ranks them below those."""
# A query term is rare in a session when at most this share of its messages (or 3) hold it.
RARE_SHARE = 0.05
_RARE_MIN = 3


KEY_SCHEME = "own+prev1"
"""Names what :func:`embedding_keys` embeds; stored with every vector (see
:func:`vector_model`), so vectors of an older scheme are found and re-indexed."""


def vector_model(embedder_model_id: str) -> str:
    """The model id stored with a vector: the embedder's id and the key scheme."""
    return f"{embedder_model_id}+{KEY_SCHEME}"


def vector_dim(embedder_dim: int) -> int:
    """The stored vector's length: the own-text vector, then the keyed one."""
    return 2 * embedder_dim


def embedding_key(text: str, sender: str | None, previous: str | None = None,
                  previous_sender: str | None = None) -> str:
    """The text to embed for a message: ``sender: text``, after the previous message if given.

    Measured with the multilingual USE encoder: adding the sender's name helps, and prefixing
    the previous message's text helps more (a reply is embedded with what it replies to).
    """
    own = f"{sender}: {text}" if sender else text
    if previous is None:
        return own
    before = f"{previous_sender}: {previous}" if previous_sender else previous
    return f"{before}\n{own}"


def embedding_keys(text: str, sender: str | None, previous: str | None = None,
                   previous_sender: str | None = None) -> tuple[str, str]:
    """The two texts embedded for a message: its own text as written (so a search for those
    words finds it) and its key (:func:`embedding_key`: with the sender, after the previous
    message). Stored side by side."""
    return text, embedding_key(text, sender, previous, previous_sender)


# -- the whole ranking ------------------------------------------------------------------------

@dataclass(frozen=True)
class HybridWeights:
    """The fusion's settings, as chosen on LoCoMo (see the module docstring).

    ``score = minmax(bm25) + semantic * minmax(smoothed cosine) + time * time_prior
    + sender * sender_prior``.
    """

    semantic: float = 0.8
    time: float = 0.7
    sender: float = 0.3
    time_slack_days: float = 7.0


@dataclass(frozen=True)
class SessionIndex:
    """Everything a query needs about one session's searchable messages, in id order.

    Build it with :func:`build_session_index` and cache it until the session's messages change.
    """

    ids: IntArray
    keyword: KeywordIndex
    vectors: FloatArray | None
    """Per message, the vector of its key (:func:`embedding_key`: its text after the message
    before it); a row of zeros where the message has none yet."""
    times: IntArray
    sender_codes: IntArray
    sender_names: tuple[str | None, ...]
    own: FloatArray | None = None
    """Vectors of each message's own text (``None``: only the keyed vectors were given)."""
    own_terms: KeywordIndex | None = None
    """Each message's own terms (sender included), without its neighbours'."""
    present: npt.NDArray[np.bool_] | None = None
    """Which messages have a vector (the others have no similarity)."""
    info: Signals | None = None
    """What the learned ranker reads of each message besides the query (its length...)."""
    groups: IntArray | None = None
    """The session of each message when the index holds several sessions side by side
    (``None``: one session)."""


def build_session_index(ids: Sequence[int], texts: Sequence[str],
                        senders: Sequence[str | None], times_ns: Sequence[int],
                        vectors: FloatArray | None = None, *,
                        key_weights: dict[int, float] | None = None,
                        own_vectors: FloatArray | None = None,
                        groups: Sequence[int] | IntArray | None = None) -> SessionIndex:
    """Index messages (chronological) for :func:`rank_session`.

    Each message's keyword key is ``sender: text`` plus its neighbours' (see
    :func:`build_keyword_index`); ``vectors`` are the messages' unit-length embeddings of
    :func:`embedding_key`, one row per message (``None``: keyword search only), and
    ``own_vectors`` those of their own text (optional); a row of zeros is a message not yet
    embedded. ``groups`` (one session code per message, sessions contiguous) indexes
    several sessions side by side: keys and features stay within each session.
    """
    n = len(ids)
    if not len(texts) == len(senders) == len(times_ns) == n:
        raise ValueError("ids, texts, senders and times must have the same length")
    for name, matrix in (("vectors", vectors), ("own_vectors", own_vectors)):
        if matrix is not None and matrix.shape[0] != n:
            raise ValueError(f"{name} must have one row per message")
    if own_vectors is not None and vectors is None:
        raise ValueError("own_vectors need the keyed vectors too")
    names: dict[str | None, int] = {}
    codes = np.asarray([names.setdefault(s, len(names)) for s in senders], dtype=np.int64)
    keys = [tokens(f"{s}: {t}" if s else t) for s, t in zip(senders, texts, strict=True)]
    codes_of = None if groups is None else np.asarray(groups, dtype=np.int64)
    keyed = present = None
    if vectors is not None:
        keyed = np.ascontiguousarray(vectors, dtype=np.float32)
        present = np.any(keyed != 0, axis=1)
    return SessionIndex(ids=np.asarray(ids, dtype=np.int64),
                        keyword=build_keyword_index(keys, key_weights=key_weights,
                                                    groups=codes_of),
                        vectors=keyed, times=np.asarray(times_ns, dtype=np.int64),
                        sender_codes=codes, sender_names=tuple(names),
                        own=None if own_vectors is None else np.ascontiguousarray(
                            own_vectors, dtype=np.float32),
                        own_terms=build_keyword_index(keys, key_weights={0: 1.0}),
                        present=present, info=signals(texts), groups=codes_of)


def smoothed_similarity(present: npt.NDArray[np.bool_], cos_key: FloatArray,
                        cos_own: FloatArray | None) -> FloatArray:
    """Each message's similarity as the fusion reads it: the weighted mean of its keyed
    cosine, half of each neighbour's and :data:`OWN_WEIGHT` of its own-text cosine (0 for a
    message without a vector)."""
    has = present.astype(np.float32)
    total = neighbour_smooth(cos_key * has, DEFAULT_SMOOTHING)
    weight = neighbour_smooth(has, DEFAULT_SMOOTHING)
    if cos_own is not None:
        total += np.float32(OWN_WEIGHT) * cos_own * has
        weight += np.float32(OWN_WEIGHT) * has
    weight = np.where(present, weight, 0.0).astype(np.float32)
    out: FloatArray = np.divide(total, weight, out=np.zeros_like(total),
                                where=weight > 0).astype(np.float32)
    return out


@dataclass(frozen=True, slots=True)
class Ranked:
    """One message as :func:`rank_session` ranks it."""

    id: int
    score: float
    """The ranking score (comparable within one query only)."""
    similarity: float | None
    """The absolute similarity to the query, -1 to 1 (``None`` without a query vector)."""
    keyword: bool
    """The message's own text (or sender) holds a query term."""
    rare: bool
    """... a term that is rare in the session (:func:`rare_terms`)."""
    related_only: bool
    """Not even the message's neighbour key holds a query term."""
    lead: bool = False
    """Its own text is nearly the query: it comes first whatever its score."""
    closeness: float | None = None
    """What the learned ranker's answer gate reads of the message: its centred own-text
    cosine with the query (``None``: another ranking, or a ranker without a gate)."""
    judged: float | None = None
    """... and the log-odds the gate's judge gives it (``None``: a gate without a judge)."""
    gate_more: tuple[float, ...] = ()
    """... and its values of the further features the gate reads (:attr:`Gate.more`)."""


def rare_terms(index: SessionIndex, query: str) -> list[str]:
    """The query's terms held by few of the session's messages: at most :data:`RARE_SHARE`
    of them, or 3 (by the messages' own text)."""
    own = index.own_terms
    if own is None:
        return []
    limit = max(_RARE_MIN, RARE_SHARE * own.size)
    out = []
    for term in dict.fromkeys(tokens(query)):
        tid = own.vocab.get(term)
        if tid is not None and int(own.indptr[tid + 1] - own.indptr[tid]) <= limit:
            out.append(term)
    return out


def _holding(terms: KeywordIndex, query: str | Sequence[str]) -> npt.NDArray[np.bool_]:
    return keyword_scores(terms, query) > 0


def cap_related(scores: FloatArray, rare: npt.NDArray[np.bool_],
                related_only: npt.NDArray[np.bool_]) -> FloatArray:
    """``scores`` with the messages that hold no query term at all (``related_only``) moved,
    in their order, below the lowest message holding a rare one: an exact rare word is never
    buried by what merely sounds related."""
    if not rare.any() or not related_only.any():
        return scores
    shift = float(scores[related_only].max()) - float(scores[rare].min())
    if shift < 0:
        return scores
    out: FloatArray = np.where(related_only, scores - np.float32(shift + 1e-3),
                               scores).astype(np.float32)
    return out


def rank_session(index: SessionIndex, query: str, query_vector: FloatArray | None = None,
                 *, k: int = 8, mode: str = "hybrid",
                 eligible: npt.NDArray[np.bool_] | None = None,
                 weights: HybridWeights | None = None,
                 min_similarity: float | None = None) -> list[Ranked]:
    """The ``k`` best messages for ``query``, best first, with their evidence.

    ``mode`` is ``"hybrid"`` (needs ``query_vector`` and index vectors), ``"semantic"`` (the
    similarity plus the time and sender priors) or ``"keyword"`` (neighbour-keyed BM25 plus
    the priors; only messages whose key holds a query term). In the first two a message
    whose own text is nearly the query (own cosine at least :data:`VERBATIM`) leads.
    ``eligible`` masks out messages (context window, time range). With ``min_similarity``, a
    message needs evidence: a similarity of at least that, or (hybrid) a query term of its
    own.
    """
    w = weights or HybridWeights()
    if mode not in ("hybrid", "semantic", "keyword"):
        raise ValueError(f"unknown mode {mode!r}")
    n = index.ids.shape[0]
    score = np.zeros(n, dtype=np.float32)
    nothing = np.zeros(n, dtype=np.bool_)
    bm25 = keyword_scores(index.keyword, query) if mode != "semantic" else None
    has_term = rare = related_only = nothing
    if mode == "hybrid" and index.own_terms is not None:
        rare = _holding(index.own_terms, rare_terms(index, query))
        if min_similarity is not None:
            has_term = _holding(index.own_terms, query)
    if bm25 is not None:
        related_only = bm25 <= 0
        score += minmax(bm25)
        if mode == "keyword":
            eligible = ~related_only if eligible is None else eligible & ~related_only
    similarity: FloatArray | None = None
    if mode != "keyword":
        if query_vector is None or index.vectors is None or index.present is None:
            raise ValueError(f"{mode} search needs a query vector and message vectors")
        similarity = smoothed_similarity(
            index.present, semantic_scores(index.vectors, query_vector),
            None if index.own is None else semantic_scores(index.own, query_vector))
        score += np.float32(w.semantic if mode == "hybrid" else 1.0) * minmax(similarity)
    spans = query_time_spans(query)
    if spans and w.time:
        score += np.float32(w.time) * time_prior(index.times, spans, w.time_slack_days)
    if w.sender:
        score += np.float32(w.sender) * sender_prior(index.sender_codes, index.sender_names,
                                                     query)
    if similarity is not None:
        assert index.present is not None and query_vector is not None
        verbatim = _verbatim(index, query_vector, score, similarity, k, eligible)
        if min_similarity is not None:
            evidence = ((similarity >= np.float32(min_similarity)) & index.present) | has_term
            evidence |= verbatim
            eligible = evidence if eligible is None else eligible & evidence
    if mode == "hybrid":
        score = cap_related(score, rare, related_only)
    best = top_indices(score, k, eligible)
    return [Ranked(id=int(index.ids[i]), score=float(score[i]),
                   similarity=None if similarity is None else float(similarity[i]),
                   keyword=bool(has_term[i]), rare=bool(rare[i]),
                   related_only=bool(related_only[i])) for i in best]


def _verbatim(index: SessionIndex, query_vector: FloatArray, score: FloatArray,
              similarity: FloatArray, k: int, eligible: npt.NDArray[np.bool_] | None
              ) -> npt.NDArray[np.bool_]:
    """Messages among the best candidates whose own text is nearly the query (own cosine at
    least :data:`VERBATIM`): their score gains a lead and their similarity becomes that own
    cosine (both updated in place). Only the candidates' own vectors are read: a message
    that repeats the query is among them, as its keyed vector holds its own text too."""
    found = np.zeros(score.shape, dtype=np.bool_)
    if index.own is None or index.present is None:
        return found
    mask = index.present if eligible is None else eligible & index.present
    candidates = top_indices(score, max(_VERBATIM_CANDIDATES, 4 * k), mask)
    own = semantic_scores(index.own[candidates], query_vector)
    near = own >= np.float32(VERBATIM)
    if near.any():
        hit = candidates[near]
        score[hit] += np.float32(_VERBATIM_LEAD) + own[near]
        similarity[hit] = np.maximum(similarity[hit], own[near])
        found[hit] = True
    return found


def search_session(index: SessionIndex, query: str, query_vector: FloatArray | None = None,
                   *, k: int = 8, mode: str = "hybrid",
                   eligible: npt.NDArray[np.bool_] | None = None,
                   weights: HybridWeights | None = None) -> list[tuple[int, float]]:
    """The ``k`` best ``(message id, score)`` pairs of :func:`rank_session`, with no
    similarity floor. Scores are comparable within one call only."""
    return [(r.id, r.score) for r in rank_session(index, query, query_vector, k=k, mode=mode,
                                                   eligible=eligible, weights=weights)]


def session_features(index: SessionIndex, query: QueryTerms,
                     query_vector: FloatArray | None, *, now: int,
                     semantic_only: bool = False,
                     centre: FloatArray | None = None,
                     candidates_only: bool = False) -> FloatArray:
    """The learned ranker's features (:mod:`._features`) of every message of the session
    (``centre``: the ranker's mean vector, for the centred cosines; ``candidates_only``:
    leave those for :func:`rank_features` to work out on its candidates)."""
    info = index.info if index.info is not None else signals([""] * index.ids.shape[0])
    own_terms = index.own_terms if index.own_terms is not None else index.keyword
    return feature_matrix(own_terms=own_terms, key_terms=index.keyword, info=info,
                          times=index.times, sender_codes=index.sender_codes,
                          sender_names=index.sender_names, query=query,
                          own_vectors=index.own, key_vectors=index.vectors,
                          query_vector=query_vector, now=now, groups=index.groups,
                          semantic_only=semantic_only, centre=centre,
                          candidates_only=candidates_only)


def rank_learned(index: SessionIndex, query: QueryTerms, query_vector: FloatArray,
                 ranker: LearnedRanker, *, k: int, now: int,
                 eligible: npt.NDArray[np.bool_] | None = None,
                 min_probability: float | None = None) -> list[Ranked]:
    """The ``k`` most probably relevant messages of the session, best first, scored by the
    learned ranker (:mod:`._ranker`): ``score`` and ``similarity`` are both that probability,
    comparable across sessions. A semantic ranker admits only messages with a vector; with
    ``min_probability``, a message needs at least that probability."""
    semantic = ranker.mode == "semantic"
    x = session_features(index, query, query_vector, now=now, semantic_only=semantic,
                         centre=ranker.centre, candidates_only=True)

    def hubs(rows: IntArray) -> tuple[FloatArray, FloatArray]:
        assert ranker.centre is not None and index.vectors is not None
        own = index.own if index.own is not None else index.vectors
        return ((own[rows] @ ranker.centre).astype(np.float32),
                (index.vectors[rows] @ ranker.centre).astype(np.float32))

    own = index.own

    def own_vectors(rows: IntArray) -> FloatArray:
        assert own is not None
        picked: FloatArray = own[rows].astype(np.float32, copy=False)
        return picked

    return rank_features(index.ids, x, ranker, k=k, present=index.present, eligible=eligible,
                         min_probability=min_probability, hubs=hubs,
                         own_vectors=None if own is None else own_vectors,
                         query_vector=query_vector)


_LAZY_COLUMNS = tuple(FEATURES.index(name) for name in (*CENTRED, *FEEDBACK))
"""The columns a search works out for its candidates only."""

Hubs = Callable[[IntArray], tuple[FloatArray, FloatArray]]
"""Given rows, their own-text and keyed vectors' products with the ranker's centre."""
Vectors = Callable[[IntArray], FloatArray]
"""Given rows, their own-text vectors (unit rows, zero where a message has none yet)."""


def _centred_candidates(x: FloatArray, ranker: LearnedRanker, refine: int,
                        hubs: Hubs | None, own_vectors: Vectors | None,
                        query_vector: FloatArray | None) -> FloatArray | None:
    """Fill the centred and feedback columns (left NaN for every row, or for none) and
    return the linear part of every row's log-odds, the candidates' worked out again with
    them filled; or ``None`` when every row is a candidate (or there is nothing to fill)."""
    if not np.isnan(x[0, _LAZY_COLUMNS[0]]):
        return None
    for j in _LAZY_COLUMNS:
        x[:, j] = ranker.mean[j]
    if hubs is None or query_vector is None or ranker.centre is None:
        return None
    n = x.shape[0]

    def fill(rows: IntArray) -> None:
        assert hubs is not None and query_vector is not None and ranker.centre is not None
        fill_centred(x, rows, hubs(rows), ranker.centre, query_vector)
        if own_vectors is not None:
            fill_feedback(x, rows, own_vectors(rows), query_vector)

    if n <= refine:
        fill(np.arange(n))
        return None
    linear = ranker.linear(x)
    # Candidates by the log-odds without trees (the linear part, and a hidden layer if any).
    lead = linear if ranker.hidden is None else ranker.logits(x, refine=0,
                                                              linear=linear.copy())
    rows = np.sort(np.argpartition(-lead, refine - 1)[:refine])
    fill(rows)
    # Only the candidates' rows changed. Gathered in the layout ``x`` has (column by column,
    # as the features are built), their products are summed in the order a pass over all of
    # ``x`` sums them, so each is, bit for bit, what that pass would give.
    picked = x[rows]
    linear[rows] = ranker.linear(np.asfortranarray(picked) if x.flags.f_contiguous
                                 else np.ascontiguousarray(picked))
    return linear


def rank_features(ids: IntArray, x: FloatArray, ranker: LearnedRanker, *, k: int,
                  present: npt.NDArray[np.bool_] | None,
                  eligible: npt.NDArray[np.bool_] | None = None,
                  min_probability: float | None = None,
                  hubs: Hubs | None = None, own_vectors: Vectors | None = None,
                  query_vector: FloatArray | None = None) -> list[Ranked]:
    """:func:`rank_learned` from the messages' feature rows ``x`` (one per id), however they
    were gathered: one session's, or a tenant's sessions side by side.

    Centred-cosine and feedback columns left NaN (``candidates_only``) are worked out here
    for the candidates: the rows the linear part ranks highest with those columns at their
    training mean (all rows, in a session of up to :data:`REFINE` messages), from ``hubs``
    (the rows' own and keyed vectors' products with the centre) and ``own_vectors`` (the
    feedback is drawn from the candidates); the other rows keep the mean."""
    semantic = ranker.mode == "semantic"
    refine = max(REFINE, 8 * k)
    linear = None
    if not semantic and ranker.centre is not None and x.shape[0]:
        linear = _centred_candidates(x, ranker, refine, hubs, own_vectors, query_vector)
    p = ranker.probability(x, refine=refine, linear=linear)
    mask = np.ones(p.shape, dtype=np.bool_) if eligible is None else eligible.copy()
    if semantic and present is not None:
        mask &= present
    if min_probability is not None:
        mask &= p >= np.float32(min_probability)
    # Two rules over the probabilities, as the fusion keeps them: a message that says nearly
    # the query's words leads, and (hybrid) one whose own text holds a query word rare in the
    # session stays above every message holding no query word at all.
    lead = (x[:, 0] >= np.float32(VERBATIM)) & mask
    order = p + np.where(lead, np.float32(_VERBATIM_LEAD + 1.0), np.float32(0.0))
    nothing = np.zeros(p.shape, dtype=np.bool_)
    own_hit = rare = related_only = nothing
    if not semantic:
        own_hit = x[:, FEATURES.index("cov_own")] > 0
        rare = x[:, FEATURES.index("rare_own")] > 0
        related_only = x[:, FEATURES.index("cov_key")] <= 0
        order = cap_related(order.astype(np.float32), rare & mask, related_only & mask)
    best = top_indices(order, k, mask)
    gate = None if ranker.gate is None else ranker.features.index(ranker.gate.feature)
    more = () if ranker.gate is None else tuple(
        ranker.features.index(name) for name, _ in ranker.gate.more)
    judged = ranker.judged(x[best]) if best.size else None
    return [Ranked(id=int(ids[i]), score=float(p[i]), similarity=float(p[i]),
                   keyword=bool(own_hit[i]), rare=bool(rare[i]),
                   related_only=bool(related_only[i]), lead=bool(lead[i]),
                   closeness=None if gate is None else float(x[i, gate]),
                   judged=None if judged is None else float(judged[j]),
                   gate_more=tuple(float(x[i, c]) for c in more))
            for j, i in enumerate(best)]
