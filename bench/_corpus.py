"""A deterministic synthetic conversation corpus for the core benchmark.

Messages are built from phrase banks, so the corpus needs no external data and the same seed
always gives the same bytes. About a third of the messages are Traditional Chinese; the rest are
English. Lengths run from 20 to 400 characters, skewed short like real chat turns.

Session sizes follow a log-normal spread (a few long conversations, many short ones), and the
messages are laid out in *load order*: round r takes messages [r*batch, (r+1)*batch) of every
session still open, so long sessions are spread over the file the way they would be after
months of use, and each piece is exactly what one ``add_many`` call writes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from memstrata.text import STOP_WORDS

__all__ = [
    "ABSENT_WORDS",
    "Corpus",
    "Row",
    "build",
    "chinese_queries",
    "english_queries",
    "make_message",
]

# 2024-01-01T00:00:00Z in nanoseconds; every message is one second after the previous one, so
# second-resolution text timestamps (the seed-003 baseline) stay unique and ordered too.
T0_NS = 1_704_067_200 * 10**9
STEP_NS = 10**9
MIN_CHARS = 20
MAX_CHARS = 400

_EN_OPENERS = (
    "Hi,", "Okay,", "Thanks!", "Sure,", "Got it.", "Hmm,", "Right,", "Good question.",
    "Quick update:", "By the way,", "Honestly,", "So,", "Well,", "Great,", "Sorry,",
)
_EN_SUBJECTS = (
    "I", "we", "my sister", "the team", "our landlord", "my manager", "the doctor", "Sam",
    "the kids", "my partner", "the client", "the new intern", "my neighbour", "the vet",
)
_EN_VERBS = (
    "booked", "cancelled", "moved", "finished", "started", "fixed", "forgot", "planned",
    "reviewed", "ordered", "postponed", "discussed", "tested", "deployed", "paid for",
    "rewrote", "measured", "painted", "returned", "compared",
)
_EN_OBJECTS = (
    "the flight to Osaka", "the dentist appointment", "the quarterly report", "the kitchen sink",
    "the database migration", "a birthday cake", "the hiking trip", "the guitar lessons",
    "the invoice from March", "the garden fence", "the marathon training plan",
    "the insurance claim", "the laptop battery", "the wedding venue", "the sourdough starter",
    "the budget spreadsheet", "the camping gear", "the piano recital", "the car service",
    "the vaccination records", "the photography course", "the apartment lease",
    "the conference talk", "the cloud bill", "the team offsite", "the vegetable patch",
)
_EN_TAILS = (
    "last week", "this morning", "for next Tuesday", "before the deadline", "again",
    "after lunch", "over the weekend", "with a discount", "without telling anyone",
    "in Kyoto", "at the last minute", "for the third time", "on Friday evening",
    "because of the rain", "to save money", "as we agreed", "yesterday",
)
_EN_QUESTIONS = (
    "What do you think?", "Can you remind me later?", "Does that make sense?",
    "Should I change the plan?", "Any better idea?", "Could you summarise the options?",
    "Is that too expensive?", "How long will it take?", "What did we decide last time?",
)
_EN_ASSISTANT = (
    "That sounds like a solid plan.", "Here is what I would suggest.",
    "Let me break that down into steps.", "Based on what you told me earlier,",
    "One option is to wait until the price drops.", "I noted that for later.",
    "You mentioned a similar problem before.", "The cheaper choice is usually enough.",
    "A checklist might help here.", "Remember to keep the receipt.",
)

_ZH_OPENERS = (
    "好的，", "謝謝！", "對了，", "嗯，", "老實說，", "順便一提，", "沒問題，", "不好意思，",
    "我想一下，", "太好了，",
)
_ZH_SUBJECTS = (
    "我", "我們", "我姐姐", "團隊", "房東", "主管", "醫生", "小明", "孩子們", "客戶",
    "新來的實習生", "鄰居", "我媽媽", "同事",
)
_ZH_VERBS = (
    "預訂了", "取消了", "延後了", "完成了", "開始了", "修好了", "忘記了", "規劃了", "檢查了",
    "訂購了", "討論了", "測試了", "部署了", "付清了", "重寫了", "比較了",
)
_ZH_OBJECTS = (
    "去大阪的機票", "牙醫的預約", "季度報告", "廚房的水槽", "資料庫遷移", "生日蛋糕", "登山行程",
    "吉他課", "三月的發票", "花園的圍籬", "馬拉松訓練計畫", "保險理賠", "筆電電池", "婚禮場地",
    "預算試算表", "露營裝備", "鋼琴發表會", "汽車保養", "疫苗紀錄", "攝影課程", "公寓租約",
    "研討會演講", "雲端帳單", "團隊旅遊", "菜園",
)
_ZH_TAILS = (
    "上個禮拜", "今天早上", "下週二之前", "在截止日前", "又一次", "午餐後", "週末的時候",
    "趁打折", "在京都", "最後一刻", "第三次", "星期五晚上", "因為下雨", "為了省錢", "照我們說好的",
    "昨天",
)
_ZH_QUESTIONS = (
    "你覺得呢？", "可以晚點提醒我嗎？", "這樣合理嗎？", "我應該改計畫嗎？", "有更好的辦法嗎？",
    "可以幫我整理選項嗎？", "會不會太貴？", "大概要多久？", "我們上次決定了什麼？",
)
_ZH_ASSISTANT = (
    "這個計畫聽起來很可靠。", "我的建議如下。", "我們可以把它拆成幾個步驟。",
    "根據你之前提到的，", "也可以等價格降下來再買。", "我已經記下來了。",
    "你之前也遇過類似的問題。", "便宜的選擇通常就夠用了。", "列一張清單可能會有幫助。",
    "記得保留收據。",
)

_USER_NAMES = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "陳小明", "林美玲",
    "王大同", "張雅婷", "李志豪", "黃淑芬",
)

# Words that never occur in the corpus: a search for them must come back empty, and cheaply.
ABSENT_WORDS = ("zyzzogeton", "quixotry", "flibbertigibbet", "蠑螈", "鬱金香園", "xylograph")


@dataclass(frozen=True, slots=True)
class Row:
    """One message in load order."""

    session: int
    role: str
    sender: str
    content: str
    at: int


@dataclass(frozen=True, slots=True)
class Corpus:
    rows: list[Row]
    session_ids: list[str]
    batches: list[tuple[int, int, int]]
    """(session index, start, end) slices of ``rows``: one ``add_many`` call each."""


def session_id(index: int) -> str:
    return f"user-{index:05d}:chat"


def _sizes(rng: random.Random, messages: int, sessions: int) -> list[int]:
    """Log-normal session sizes, each at least 2, summing exactly to ``messages``."""
    weights = [rng.lognormvariate(0.0, 1.0) for _ in range(sessions)]
    total = sum(weights)
    sizes = [max(2, int(messages * w / total)) for w in weights]
    # Fix rounding on the largest sessions, where a few messages more or less change nothing.
    diff = messages - sum(sizes)
    order = sorted(range(sessions), key=lambda i: -sizes[i])
    k = 0
    while diff != 0:
        i = order[k % sessions]
        step = 1 if diff > 0 else -1
        if sizes[i] + step >= 2:
            sizes[i] += step
            diff -= step
        k += 1
    return sizes


def _length(rng: random.Random) -> int:
    # Skewed towards short turns, with a long tail up to MAX_CHARS.
    return min(MAX_CHARS, max(MIN_CHARS, int(rng.lognormvariate(4.6, 0.6))))


def make_message(rng: random.Random, role: str) -> str:
    """One message of 20-400 characters; Chinese with probability 1/3."""
    target = _length(rng)
    if rng.random() < 1 / 3:
        parts: list[str] = [rng.choice(_ZH_OPENERS)] if role == "user" else [
            rng.choice(_ZH_ASSISTANT)]
        size = len(parts[0])
        while size < target:
            piece = (rng.choice(_ZH_SUBJECTS) + rng.choice(_ZH_TAILS) + rng.choice(_ZH_VERBS)
                     + rng.choice(_ZH_OBJECTS) + "。")
            if rng.random() < 0.2:
                piece += rng.choice(_ZH_QUESTIONS)
            parts.append(piece)
            size += len(piece)
        text = "".join(parts)
    else:
        parts = [rng.choice(_EN_OPENERS)] if role == "user" else [rng.choice(_EN_ASSISTANT)]
        size = len(parts[0])
        while size < target:
            piece = (f"{rng.choice(_EN_SUBJECTS)} {rng.choice(_EN_VERBS)} "
                     f"{rng.choice(_EN_OBJECTS)} {rng.choice(_EN_TAILS)}.")
            if rng.random() < 0.2:
                piece += " " + rng.choice(_EN_QUESTIONS)
            parts.append(piece)
            size += len(piece) + 1
        text = " ".join(parts)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rstrip()
    return text


def build(messages: int, sessions: int, *, batch: int, seed: int = 3) -> Corpus:
    """The corpus in load order (see the module docstring)."""
    if sessions < 1 or messages < 2 * sessions:
        raise ValueError("need at least 2 messages per session")
    rng = random.Random(seed)
    sizes = _sizes(rng, messages, sessions)
    senders = [rng.choice(_USER_NAMES) for _ in range(sessions)]
    rounds = max(math.ceil(s / batch) for s in sizes)
    rows: list[Row] = []
    batches: list[tuple[int, int, int]] = []
    for r in range(rounds):
        for s, size in enumerate(sizes):
            lo, hi = r * batch, min(size, (r + 1) * batch)
            if lo >= hi:
                continue
            start = len(rows)
            for k in range(lo, hi):
                role = "user" if k % 2 == 0 else "assistant"
                rows.append(Row(session=s, role=role,
                                sender=senders[s] if role == "user" else "assistant",
                                content=make_message(rng, role),
                                at=T0_NS + len(rows) * STEP_NS))
            batches.append((s, start, len(rows)))
    return Corpus(rows=rows, session_ids=[session_id(i) for i in range(sessions)],
                  batches=batches)


def english_queries() -> Sequence[str]:
    """Single words that occur in the English messages (stop words excluded)."""
    words: set[str] = set()
    for bank in (_EN_VERBS, _EN_OBJECTS, _EN_TAILS):
        for phrase in bank:
            words.update(w.strip(".,!?").lower() for w in phrase.split()
                         if len(w.strip(".,!?")) > 3)
    return sorted(words - STOP_WORDS)


def chinese_queries(rng: random.Random, count: int) -> list[str]:
    """``count`` substrings of 2-4 characters cut from the Chinese phrase banks."""
    bank = [p for p in (*_ZH_SUBJECTS, *_ZH_VERBS, *_ZH_OBJECTS, *_ZH_TAILS) if len(p) >= 2]
    out: list[str] = []
    while len(out) < count:
        phrase = rng.choice(bank)
        n = rng.randint(2, min(4, len(phrase)))
        i = rng.randint(0, len(phrase) - n)
        out.append(phrase[i:i + n])
    return out
