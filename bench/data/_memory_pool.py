"""Shared assembly for the memory-pool evaluation sets (make_memory_pool_zh.py / _en.py).

A pool is written as lines ``YYYY-MM-DD text`` with an optional `` #label`` at the end; the
questions name their evidence by label. Each pool also receives a seeded handful of trivial
memories (meals, errands, weather) from the language's bank, so a pool is not all signal.
Every memory becomes its own one-message session, sorted by date; the session time of day is
drawn from ``random.Random`` seeded by the pool id, so the output is byte-identical each run.
"""

from __future__ import annotations

import json
import random
import re
import sys
import zlib
from collections import Counter
from pathlib import Path
from typing import NotRequired, TypedDict

from _shape import Conversation, Question, Session

_LINE = re.compile(r"^(\d{4}-\d{2}-\d{2}) (.+?)(?: #([\w-]+))?$")
KINDS = {"direct", "dialogue", "cross-lingual", "update"}


class Pool(TypedDict):
    """One user's pool as written in make_memory_pool_*.py."""

    id: str
    user: str
    memories: str  # lines ``YYYY-MM-DD text [#label]``
    questions: list[tuple[str, list[str], str, str]]  # (question, labels, kind, lang)
    extra: NotRequired[str]  # more memory lines, kept apart from the core ones
    trivia: NotRequired[int]  # how many trivial memories to mix in



def parse(block: str) -> list[tuple[str, str, str | None]]:
    out = []
    for raw in block.strip().splitlines():
        raw = raw.strip()
        if not raw:
            continue
        m = _LINE.match(raw)
        if not m:
            raise ValueError(f"bad memory line: {raw!r}")
        out.append((m.group(1), m.group(2).strip(), m.group(3)))
    return out


def build_pool(pool: Pool, trivia: list[str]) -> Conversation:
    rng = random.Random(zlib.crc32(pool["id"].encode()))
    mems = parse(pool["memories"] + "\n" + pool.get("extra", ""))
    dates = sorted(d for d, _, _ in mems)
    first, last = dates[0], dates[-1]
    # trivial memories: dates drawn among the pool's own dates, shifted a little
    picks = rng.sample(trivia, pool.get("trivia", max(12, min(18, 88 - len(mems)))))
    from datetime import date, timedelta
    d0, d1 = date.fromisoformat(first), date.fromisoformat(last)
    span = (d1 - d0).days
    for text in picks:
        mems.append(((d0 + timedelta(days=rng.randrange(span + 1))).isoformat(), text, None))
    order = sorted(range(len(mems)), key=lambda i: (mems[i][0], i))
    sessions: list[Session] = []
    where: dict[str, str] = {}
    used_times: set[str] = set()
    for pos, i in enumerate(order, 1):
        d, text, label = mems[i]
        while True:
            stamp = f"{d} {rng.randrange(7, 24):02d}:{rng.randrange(60):02d}"
            if stamp not in used_times:
                break
        used_times.add(stamp)
        if label:
            if label in where:
                raise ValueError(f"{pool['id']}: duplicate label {label}")
            where[label] = f"{pos}:1"
        sessions.append({"date": stamp, "messages": [
            {"role": "user", "sender": pool["user"], "text": text}]})
    # within one day, sessions must run in time order: sort again by stamp, keep labels
    idx = sorted(range(len(sessions)), key=lambda k: (sessions[k]["date"], k))
    remap = {old + 1: new + 1 for new, old in enumerate(idx)}
    sessions = [sessions[k] for k in idx]
    where = {lab: f"{remap[int(ev.split(':')[0])]}:1" for lab, ev in where.items()}
    questions: list[Question] = []
    for q in pool["questions"]:
        text, labels, kind, lang = q
        questions.append({"question": text, "evidence": [where[lab] for lab in labels],
                          "lang": lang, "kind": kind})
    return {"id": pool["id"], "sessions": sessions, "questions": questions}


def write_set(path: Path, name: str, description: str, pools: list[Pool], trivia: list[str],
              min_pools: int = 8, min_questions: int = 160, show: int = 0) -> None:
    convs = [build_pool(p, trivia) for p in pools]
    obj = {"name": name, "description": description, "scope": "tenant", "conversations": convs}
    # validation
    assert len(convs) >= min_pools, len(convs)
    kinds: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    total_q = 0
    for c in convs:
        n = len(c["sessions"])
        assert 80 <= n <= 150, (c["id"], n)
        assert len(c["questions"]) >= 20, (c["id"], len(c["questions"]))
        for s in c["sessions"]:
            assert len(s["messages"]) == 1
            t = s["messages"][0]["text"]
            assert 6 <= len(t) <= 80, (c["id"], t)
        for q in c["questions"]:
            assert q["kind"] in KINDS, q
            assert q["lang"] in ("zh", "en"), q
            assert 1 <= len(q["evidence"]) <= 3, q
            for ev in q["evidence"]:
                s_i, m_i = map(int, ev.split(":"))
                assert 1 <= s_i <= n and m_i == 1, (c["id"], ev)
            kinds[q["kind"]] += 1
            langs[q["lang"]] += 1
            total_q += 1
        dates = [s["date"] for s in c["sessions"]]
        assert dates == sorted(dates), c["id"]
    assert total_q >= min_questions, total_q
    text = json.dumps(obj, ensure_ascii=False, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    n_mem = sum(len(c["sessions"]) for c in convs)
    print(f"{path.name}: {len(convs)} pools, {n_mem} memories "
          f"({n_mem / len(convs):.0f}/pool), {total_q} questions")
    print("  by kind:", dict(sorted(kinds.items())))
    print("  by lang:", dict(sorted(langs.items())))
    if show:
        rng = random.Random(7)
        for c in convs:
            for q in rng.sample(c["questions"], min(show, len(c["questions"]))):
                print(f"\n[{c['id']}] ({q['kind']}) {q['question']}")
                for ev in q["evidence"]:
                    s = c["sessions"][int(ev.split(':')[0]) - 1]
                    print(f"    {ev} {s['date'][:10]} {s['messages'][0]['text']}")


def main(path: Path, name: str, description: str, pools: list[Pool], trivia: list[str]) -> None:
    show = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    write_set(path, name, description, pools, trivia, show=show)
