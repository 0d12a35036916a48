"""Conversations for the summary benchmark: LoCoMo (read at run time) and a generated one.

LoCoMo: speaker A is the user and speaker B the assistant, each message keeps its speaker's
name as sender, and each session's date is the time of its first turn (one second more per
turn, so the order is kept). Only the turn text is used, not the shared images' captions.

The generated conversation is deterministic: topics that run for a while and change, requests
and replies, the odd greeting or thanks, decisions taken and sometimes reversed; about a third
of the topics are held in Traditional Chinese.
"""

# ruff: noqa: RUF001  (full-width punctuation is part of the Chinese phrase banks)
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["Conversation", "Turn", "generated", "locomo", "locomo_path"]

_LOCOMO_FILE = Path("bench-data", "locomo", "locomo-dev6.json")


def locomo_path() -> Path:
    """The LoCoMo dev file in the ``shared/`` folder beside the repository (or /work/shared)."""
    candidates = [Path(__file__).resolve().parents[2] / "shared" / _LOCOMO_FILE,
                  Path("/work/shared") / _LOCOMO_FILE]
    return next((c for c in candidates if c.exists()), candidates[-1])


@dataclass(frozen=True)
class Turn:
    role: str
    sender: str
    content: str
    at: int  # UTC nanoseconds


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: list[Turn]


def _session_time(text: str) -> int:
    """``"1:56 pm on 8 May, 2023"`` → UTC nanoseconds."""
    when = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(when.timestamp()) * 10**9


def locomo(path: Path | None = None, limit: int | None = None) -> list[Conversation]:
    """The LoCoMo conversations in ``path`` (the first ``limit`` of them)."""
    data = json.loads((path or locomo_path()).read_text(encoding="utf-8"))
    out: list[Conversation] = []
    for sample in data[:limit]:
        conv = sample["conversation"]
        user = conv["speaker_a"]
        numbers = sorted(int(k.split("_")[1]) for k in conv
                         if k.startswith("session_") and k.count("_") == 1)
        turns: list[Turn] = []
        for n in numbers:
            start = _session_time(conv[f"session_{n}_date_time"])
            for i, turn in enumerate(conv[f"session_{n}"]):
                text = str(turn.get("text") or "").strip()
                if not text:
                    continue
                role = "user" if turn["speaker"] == user else "assistant"
                turns.append(Turn(role, turn["speaker"], text, start + i * 10**9))
        out.append(Conversation(str(sample.get("sample_id", f"locomo-{len(out)}")), turns))
    return out


_EN_TOPICS = ("the kitchen renovation", "the trip to Hokkaido", "the database migration",
              "the marathon training plan", "the quarterly budget", "the new laptop",
              "the wedding guest list", "the garden redesign", "the job offer",
              "the piano lessons", "the insurance renewal", "the conference talk")
_ZH_TOPICS = ("搬家計畫", "日本自助旅行", "年度預算", "健身課表", "新車選購", "婚禮場地",
              "家裡網路升級", "孩子的才藝班")
_EN_ASKS = ("Can you compare the options for {t} again?", "What should I do next about {t}?",
            "I found a cheaper quote for {t}, is it worth it?",
            "Remind me what we said about {t} last time.",
            "My partner has doubts about {t}; how would you answer them?")
_EN_REPLIES = ("For {t}, the cheaper option covers most of what you need, and the extra cost "
               "of the premium one only pays off if you use it every week.",
               "Here is a short plan for {t}: first settle the budget, then book the earliest "
               "slot, and keep the receipts in one folder so nothing gets lost.",
               "Last time we agreed to keep {t} simple. The new quote is 15% lower but the "
               "delivery date moves by three weeks, so it depends on your deadline.")
_EN_DECIDE = ("Okay, let's go with the cheaper option for {t}.",
              "Let's not spend more on {t} this year.",
              "Actually, forget what I said: let's pick the premium option for {t} after all.")
_ZH_ASKS = ("關於{t}，你覺得我們下一步該怎麼做？", "我又找到一個比較便宜的{t}方案，值得換嗎？",
            "幫我整理一下{t}目前的幾個選項。", "上次我們對{t}的結論是什麼？")
_ZH_REPLIES = ("關於{t}，比較便宜的方案已經足夠，除非你每週都會用到，否則進階方案不太划算。",
               "{t}可以分三步：先確定預算，再預約最早的時段，最後把收據集中放在同一個資料夾。",
               "上次我們決定{t}先保持簡單。新的報價便宜一成五，但時程會延後三週。")
_ZH_DECIDE = ("好，{t}就決定用比較便宜的方案。", "今年{t}不要再多花錢了。")
_NOISE = ("Thanks!", "Hi again 👋", "ok", "謝謝！", "Good morning!", "哈囉～")


def _topic_turns(rng: random.Random, topic: str, chinese: bool) -> list[tuple[str, str]]:
    """One topic's messages as (role, text) pairs: a few rounds, maybe a decision."""
    asks, replies, decide = ((_ZH_ASKS, _ZH_REPLIES, _ZH_DECIDE) if chinese
                             else (_EN_ASKS, _EN_REPLIES, _EN_DECIDE))
    out: list[tuple[str, str]] = []
    for _ in range(rng.randint(3, 12)):
        if rng.random() < 0.1:
            out.append(("user", rng.choice(_NOISE)))
        else:
            out.append(("user", rng.choice(asks).format(t=topic)))
        picked = rng.sample(replies, 2 if rng.random() < 0.5 else 1)
        out.append(("assistant", " ".join(r.format(t=topic) for r in picked)))
    if rng.random() < 0.6:
        out.append(("user", rng.choice(decide).format(t=topic)))
        out.append(("assistant", "Noted." if not chinese else "好的，記下來了。"))
    return out


def generated(messages: int, seed: int = 7) -> Conversation:
    """A deterministic conversation of exactly ``messages`` messages."""
    rng = random.Random(seed)
    at = 1_704_067_200 * 10**9  # 2024-01-01 00:00 UTC
    turns: list[Turn] = []
    while len(turns) < messages:
        chinese = rng.random() < 1 / 3
        topic = rng.choice(_ZH_TOPICS if chinese else _EN_TOPICS)
        for role, text in _topic_turns(rng, topic, chinese):
            at += rng.randint(20, 600) * 10**9
            sender = "Lin" if role == "user" else "assistant"
            if text not in _NOISE:
                # A number keeps each text apart, as real ones are (dates, prices, counts).
                text = f"{text} (#{len(turns) + 1})"
            turns.append(Turn(role, sender, text, at))
        at += rng.randint(1, 48) * 3600 * 10**9
    return Conversation(f"generated-{messages}", turns[:messages])
