"""The retrieval sets the ranking is trained and measured on, in one shape.

* ``locomo``: LoCoMo dev6 (``../shared/bench-data``, CC BY-NC, read at run time): each
  conversation is one session of short chat turns; evidence ids as corrected by the audit.
* ``locomo-pool``: the same conversations' *observations* (LoCoMo's one-sentence facts, each
  citing the turn it came from) kept one per session, searched tenant-wide with the LoCoMo
  question; a fact is relevant when it cites an evidence turn of the question.
* the sets written for memstrata under ``bench/data/`` (``zh-facts``: Traditional Chinese and
  mixed conversations; ``long-replies``: short user turns beside long assistant replies;
  ``memory-pool-zh`` / ``memory-pool-en``: one short memory per session, tenant-wide).
* the :data:`LAYOUTS`: ``locomo``, ``zh-facts`` and ``long-replies`` kept session by session
  (each session of the source data a session of its own, ``-sessions`` after the set's
  name), searched tenant-wide with the same questions: how an application that stores every
  chat as a session sees the same conversations; and ``locomo-tenant``, every LoCoMo
  conversation kept so in one tenant, each question searched across all of them. The ranker
  is measured on them, never trained on them.

A :class:`Conv` is one tenant: its messages in order, each in a session, and its questions
with their evidence as message positions. ``scope`` says how a question is searched: inside
the conversation's one session, or across all its sessions (``session=None``).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["DATA", "HELD_OUT", "LAYOUTS", "LOCOMO", "SETS", "Conv", "Msg", "Question",
           "by_session", "joined", "load_held_out", "load_sets"]

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "bench-data" / "locomo"
DATA = Path(__file__).resolve().parent / "data"
# Written by ``data/make_recall_set.py`` in LoCoMo's shape for the peers benchmark; no ranking
# weight or threshold is fitted on it.
HELD_OUT = DATA / "recall_set.json"
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass(frozen=True, slots=True)
class Msg:
    text: str
    sender: str
    role: str
    at: int  # UTC ns
    session: str
    part: int = 1  # the session of the source data the message was said in (from 1)


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    evidence: frozenset[int]  # positions in Conv.messages
    kind: str
    lang: str
    source: str = ""  # the conversation it was asked of, in a set joining several


@dataclass(eq=False)
class Conv:
    set_name: str
    id: str
    scope: str  # "session" or "tenant"
    messages: list[Msg] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @functools.cached_property
    def now(self) -> int:
        """The time searches happen at: a day after the last message."""
        return max(m.at for m in self.messages) + 86_400 * 10**9


def _locomo_when(text: str) -> int:
    moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(moment.timestamp()) * 10**9


def _locomo_ids(raw: Any) -> list[str]:
    out = []
    for item in raw if isinstance(raw, list) else [raw]:
        for part in re.split(r"[;,\s]+", str(item).strip()):
            m = _EVIDENCE.fullmatch(part)
            if m:
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
               5: "adversarial"}


def load_locomo(data: Path = LOCOMO, limit: int | None = None) -> tuple[list[Conv], list[Conv]]:
    """LoCoMo's conversations as sessions of turns, and their observations as memory pools."""
    raw = json.loads((data / "locomo-dev6.json").read_text(encoding="utf-8"))
    audit = json.loads((data / "audit-dial481" / "errors.json").read_text(encoding="utf-8"))
    fixes = {a["question"]: a["correct_evidence"] for a in audit
             if a.get("error_type") == "WRONG_CITATION" and a.get("correct_evidence")}
    turns_out, pools_out = [], []
    for sample in raw[:limit]:
        c = sample["conversation"]
        name = sample["sample_id"]
        conv = Conv("locomo", name, "session")
        where: dict[str, int] = {}
        n = 1
        while f"session_{n}" in c:
            base = _locomo_when(c[f"session_{n}_date_time"])
            for i, t in enumerate(c[f"session_{n}"]):
                text = t["text"]
                if t.get("blip_caption"):
                    text += f" [image: {t['blip_caption']}]"
                where[_locomo_ids(t["dia_id"])[0]] = len(conv.messages)
                conv.messages.append(Msg(text, t["speaker"], "user" if t["speaker"] ==
                                         c["speaker_a"] else "assistant",
                                         base + i * 10**9, name, n))
            n += 1
        cited: list[tuple[str, frozenset[str]]] = []
        for qa in sample["qa"]:
            ids = frozenset(_locomo_ids(fixes.get(qa["question"], qa.get("evidence", []))))
            evidence = frozenset(where[e] for e in ids if e in where)
            if evidence:
                kind = _CATEGORIES.get(int(qa["category"]), "other")
                conv.questions.append(Question(qa["question"], evidence, kind, "en"))
                cited.append((qa["question"], ids))
        turns_out.append(conv)
        pools_out.append(_observation_pool(name, sample, cited))
    return turns_out, pools_out


def _observation_pool(name: str, sample: dict[str, Any],
                      cited: list[tuple[str, frozenset[str]]]) -> Conv:
    pool = Conv("locomo-pool", f"{name}-pool", "tenant")
    sources: list[frozenset[str]] = []
    c = sample["conversation"]
    n = 1
    while f"session_{n}_observation" in sample["observation"]:
        at = _locomo_when(c[f"session_{n}_date_time"])
        for speaker, facts in sample["observation"][f"session_{n}_observation"].items():
            for fact in facts:
                text, ids = fact[0], frozenset(_locomo_ids(fact[1:]))
                pool.messages.append(Msg(text, speaker, "user", at + len(pool.messages),
                                         f"m{len(pool.messages) + 1}"))
                sources.append(ids)
        n += 1
    for question, ids in cited:
        evidence = frozenset(i for i, src in enumerate(sources) if src & ids)
        if evidence:
            pool.questions.append(Question(question, evidence, "pool", "en"))
    return pool


def load_json_set(path: Path) -> list[Conv]:
    """A set written for memstrata (``bench/data/*.json``)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for c in raw["conversations"]:
        conv = Conv(raw["name"], c["id"], raw["scope"])
        where: dict[str, int] = {}
        for s, session in enumerate(c["sessions"], start=1):
            start = datetime.strptime(session["date"], "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
            base = int(start.timestamp()) * 10**9
            name = c["id"] if raw["scope"] == "session" else f"{c['id']}-s{s}"
            for m, msg in enumerate(session["messages"], start=1):
                where[f"{s}:{m}"] = len(conv.messages)
                conv.messages.append(Msg(msg["text"], msg.get("sender") or msg["role"],
                                         msg["role"], base + (m - 1) * 60 * 10**9, name, s))
        for q in c["questions"]:
            evidence = frozenset(where[e] for e in q["evidence"])
            conv.questions.append(Question(q["question"], evidence, q.get("kind", ""),
                                           q.get("lang", "")))
        out.append(conv)
    return out


SETS = ("locomo", "locomo-pool", "zh-facts", "long-replies", "memory-pool-zh",
        "memory-pool-en")


LAYOUTS: dict[str, str] = {"locomo-sessions": "locomo", "zh-facts-sessions": "zh-facts",
                           "long-replies-sessions": "long-replies", "locomo-tenant": "locomo"}
"""The layouts measured, by name, with the set each comes from: a set whose conversations are
each one session, kept session by session instead (:func:`by_session`), or all of its
conversations kept so in one tenant (:func:`joined`)."""
_LAYOUT = "-sessions"


def by_session(conv: Conv) -> Conv:
    """The conversation with each of its source sessions a session of its own, searched
    tenant-wide: the same messages, times and questions (evidence at the same positions)."""
    out = Conv(conv.set_name + _LAYOUT, conv.id, "tenant", questions=list(conv.questions))
    out.messages = [replace(m, session=f"{conv.id}-s{m.part}") for m in conv.messages]
    return out


def joined(convs: list[Conv], name: str) -> Conv:
    """One tenant holding every conversation kept session by session, each question asked of
    all of it (its evidence where its conversation's messages now are)."""
    out = Conv(name, name, "tenant")
    for conv in convs:
        first = len(out.messages)
        out.messages += [replace(m, session=f"{conv.id}-s{m.part}") for m in conv.messages]
        out.questions += [replace(q, evidence=frozenset(first + e for e in q.evidence),
                                  source=conv.id) for q in conv.questions]
    return out


def load_sets(names: tuple[str, ...] = SETS, *, locomo: Path = LOCOMO,
              limit: int | None = None) -> list[Conv]:
    """The named sets that are present, conversations in a fixed order (a layout's in its
    set's order)."""
    layouts = [n for n in names if n in LAYOUTS]
    if layouts:
        found = load_sets(tuple(n for n in names if n not in LAYOUTS), locomo=locomo,
                          limit=limit)
        for name in layouts:
            convs = load_sets((LAYOUTS[name],), locomo=locomo, limit=limit)
            found += ([by_session(c) for c in convs] if name.endswith(_LAYOUT)
                      else [joined(convs, name)] if convs else [])
        return found
    out: list[Conv] = []
    if "locomo" in names or "locomo-pool" in names:
        turns, pools = load_locomo(locomo, limit)
        out += turns if "locomo" in names else []
        out += pools if "locomo-pool" in names else []
    for path in sorted(DATA.glob("*.json")):
        if path.name == HELD_OUT.name:
            continue  # the held-out set is measured, never trained or tuned on
        convs = load_json_set(path)
        if convs and convs[0].set_name in names:
            out += convs[:limit]
    return out


def load_held_out(path: Path = HELD_OUT) -> list[Conv]:
    """The held-out recall set (``data/recall_set.json``, LoCoMo's shape: each conversation
    one session of dated turns; questions with their evidence turns' ids), for measuring
    only: nothing is trained or tuned on it."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for c in raw:
        conv = Conv("held-out", c["sample_id"], "session")
        where: dict[str, int] = {}
        for t in c["turns"]:
            where[t["dia_id"]] = len(conv.messages)
            role = "user" if t["speaker"] == c["speaker_a"] else "assistant"
            conv.messages.append(Msg(t["text"], t["speaker"], role, int(t["at"]),
                                     c["sample_id"]))
        for q in c["questions"]:
            evidence = frozenset(where[e] for e in q["evidence"] if e in where)
            if evidence:
                kind = _CATEGORIES.get(int(q.get("category", 0)), "other")
                conv.questions.append(Question(q["text"], evidence, kind, ""))
        out.append(conv)
    return out
