"""Build long_replies.json: conversations with a planning/coding assistant whose replies are
long (explanations, plans, code) around short user turns that state facts, preferences,
constraints and later changes. Questions, asked in other words, point at the user turn (the
latest one for an update), at content of a reply, or at several messages / a point in time.

The hard case this set measures: a long reply next to a short user turn shares most of the
question's vocabulary, so a ranker that prefers long, on-topic text finds the reply and misses
the turn that holds the answer.

The conversations are written out by hand in ``_long_replies_*.py``; this script numbers the
sessions and messages, resolves the labels the questions cite into ``S:M`` evidence ids, checks
the counts and writes the JSON (byte-identical each run). ``python make_long_replies.py N``
also prints N questions per conversation with their evidence.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from _shape import Conversation, Message, Question, Session

HERE = Path(__file__).resolve().parent
KINDS = {"preference", "update", "user-fact", "reply-fact", "multi", "temporal"}
USER_KINDS = {"preference", "update", "user-fact"}


@dataclass
class Msg:
    role: str
    text: str
    label: str | None = None


def U(text: str, label: str | None = None) -> Msg:
    return Msg("user", " ".join(text.split()), label)


def A(text: str, label: str | None = None) -> Msg:
    return Msg("assistant", textwrap.dedent(text).strip("\n"), label)


# (question, labels, kind) or (question, labels, kind, lang) when it differs from the conversation's
QuestionSpec = tuple[str, list[str], str] | tuple[str, list[str], str, str]


@dataclass
class Conv:
    id: str
    user: str
    lang: str
    sessions: list[tuple[str, list[Msg]]]
    questions: list[QuestionSpec]
    extra: dict[str, object] = field(default_factory=dict)


def build(conv: Conv) -> Conversation:
    where: dict[str, str] = {}
    roles: dict[str, str] = {}
    sessions: list[Session] = []
    for s, (date, msgs) in enumerate(conv.sessions, 1):
        datetime.strptime(date, "%Y-%m-%d %H:%M")
        out: list[Message] = []
        for m, msg in enumerate(msgs, 1):
            if msg.label:
                assert msg.label not in where, (conv.id, msg.label)
                where[msg.label] = f"{s}:{m}"
                roles[msg.label] = msg.role
            sender = conv.user if msg.role == "user" else "assistant"
            out.append({"role": msg.role, "sender": sender, "text": msg.text})
        sessions.append({"date": date, "messages": out})
    questions: list[Question] = []
    for q in conv.questions:
        text, labels, kind = q[:3]
        lang = q[3] if len(q) > 3 else conv.lang
        assert kind in KINDS, (conv.id, q)
        for lab in labels:
            assert lab in where, (conv.id, lab)
        if kind in USER_KINDS:
            assert all(roles[lab] == "user" for lab in labels), (conv.id, q)
        if kind == "reply-fact":
            assert all(roles[lab] == "assistant" for lab in labels), (conv.id, q)
        if kind == "multi":
            assert len(labels) >= 2, (conv.id, q)
        questions.append({"question": text, "evidence": [where[lab] for lab in labels],
                          "lang": lang, "kind": kind})
    return {"id": conv.id, "sessions": sessions, "questions": questions}


def load() -> list[Conv]:
    sys.path.insert(0, str(HERE))
    convs: list[Conv] = []
    for name in ("_long_replies_a", "_long_replies_b", "_long_replies_c", "_long_replies_d"):
        mod = __import__(name)
        convs += mod.CONVS
    return convs


def main() -> None:
    show = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    convs = load()
    data = [build(c) for c in convs]
    obj = {"name": "long-replies",
           "description": "Planning and coding assistant conversations with long replies around "
                          "short user turns that state facts, preferences and later changes.",
           "scope": "session", "conversations": data}
    # validation
    assert len(data) >= 16, len(data)
    ids = [c["id"] for c in data]
    assert len(set(ids)) == len(ids)
    kinds: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    conv_langs: Counter[str] = Counter()
    ulen: list[int] = []
    alen: list[int] = []
    n_msgs = 0
    warn: list[tuple[str, str, int, str]] = []
    for c, conv in zip(data, convs, strict=True):
        conv_langs[conv.lang] += 1
        n = sum(len(s["messages"]) for s in c["sessions"])
        n_msgs += n
        assert 12 <= n <= 30, (c["id"], n)
        assert 2 <= len(c["sessions"]) <= 6, c["id"]
        dates = [s["date"] for s in c["sessions"]]
        assert dates == sorted(dates), c["id"]
        for s in c["sessions"]:
            roles = [m["role"] for m in s["messages"]]
            assert roles == ["user", "assistant"] * (len(roles) // 2), (c["id"], s["date"])
            for m in s["messages"]:
                (ulen if m["role"] == "user" else alen).append(len(m["text"]))
                # Chinese carries about 2.5 times the content per character, so the zh
                # conversations get proportionally shorter bounds for the same shape
                zh = conv.lang == "zh"
                if m["role"] == "user":
                    lo, hi = (15, 160) if zh else (60, 320)
                else:
                    lo, hi = (1000, 5200) if zh else (1700, 5200)
                if not lo <= len(m["text"]) <= hi:
                    warn.append((c["id"], m["role"], len(m["text"]), m["text"][:40]))
        for q in c["questions"]:
            for ev in q["evidence"]:
                s_i, m_i = map(int, ev.split(":"))
                assert 1 <= s_i <= len(c["sessions"]) and 1 <= m_i <= len(c["sessions"][s_i - 1]["messages"])
            kinds[q["kind"]] += 1
            langs[q["lang"]] += 1
    total = sum(kinds.values())
    assert total >= 180, total
    for w in warn:
        print("length outside range:", w)
    assert not warn
    (HERE / "long_replies.json").write_text(
        json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"long_replies.json: {len(data)} conversations ({dict(conv_langs)}), {n_msgs} messages, "
          f"{total} questions")
    print(f"  user turns: {len(ulen)}, mean {sum(ulen) / len(ulen):.0f} chars "
          f"(min {min(ulen)}, max {max(ulen)})")
    print(f"  assistant replies: {len(alen)}, mean {sum(alen) / len(alen):.0f} chars "
          f"(min {min(alen)}, max {max(alen)})")
    user_side = sum(kinds[k] for k in USER_KINDS)
    print("  by kind:", dict(sorted(kinds.items())),
          f"user-turn {user_side / total:.0%}, reply {kinds['reply-fact'] / total:.0%}, "
          f"multi/temporal {(kinds['multi'] + kinds['temporal']) / total:.0%}")
    print("  by lang:", dict(sorted(langs.items())))
    if show:
        rng = random.Random(11)
        for c in data:
            for q in rng.sample(c["questions"], min(show, len(c["questions"]))):
                print(f"\n[{c['id']}] ({q['kind']}) {q['question']}")
                for ev in q["evidence"]:
                    s_i, m_i = map(int, ev.split(":"))
                    msg = c["sessions"][s_i - 1]["messages"][m_i - 1]
                    print(f"    {ev} {msg['role']}: {msg['text'][:160]!r}")


if __name__ == "__main__":
    main()
