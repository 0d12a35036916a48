"""Rolling-summary cost benchmark: memstrata's incremental summariser against LangChain's
``ConversationSummaryBufferMemory``, both talking to the same local token-counting server.

    python bench/summary.py [--quick] [--every 60] [--estimate-tokens]
    python bench/summary.py --llm local [--messages 24] [--chunk-chars 1000,2000,4000]

For each conversation (the LoCoMo dev conversations, read at run time, and a generated
5,000-message one in English and Traditional Chinese) the run:

* loads it into a fresh memstrata database ``--every`` messages at a time and calls
  ``summarize`` after each batch (so also once at the end), as a scheduler tick would, with
  ``OpenAIChat`` pointed at the server and the default ``summary_chunk_chars``; once without a
  decision model and once with one (reported separately);
* feeds the same turns to the baseline with ``max_token_limit=2000``;
* reads back what the server received: tokens in and out, calls, and how often each message
  was delivered to the summary model.

``--quick`` runs two LoCoMo conversations and a 500-message generated one.

``--llm local`` measures a real local model instead (``bench/_summary_local.py``): seconds per
chunk, tokens per message summarised, and how the prompt's size moves them.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _summary_baseline import MAX_TOKEN_LIMIT, run_baseline
from _summary_data import Conversation, Turn, generated, locomo
from _summary_replies import message_blocks
from _summary_server import Call, CountingServer
from _summary_tokens import Tokenizer, load

from memstrata import Memory, Settings
from memstrata.providers._openai import OpenAIChat

BOUND_FACTOR = 1.3
BASELINE_SHARE = 0.2
_USER_SUFFIX = "\n\nReturn the updated memory as JSON."


@dataclass
class Side:
    """What one system cost on one conversation, as the server counted it."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    summary_calls: int = 0
    overhead: int = 0  # prompt tokens of summary calls that are not message blocks
    repeated: int = 0  # deliveries of a message beyond its first
    never: int = 0  # messages that never reached the summary model
    recorded_in: int = 0  # what memstrata's stats() says it spent
    recorded_out: int = 0

    def add(self, other: Side) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Row:
    name: str
    messages: int = 0
    own_tokens: int = 0
    plain: Side = field(default_factory=Side)
    decided: Side = field(default_factory=Side)
    baseline: Side = field(default_factory=Side)

    @property
    def bound(self) -> float:
        return BOUND_FACTOR * self.own_tokens + self.plain.overhead


def delivery(calls: Sequence[Call], turns: Sequence[Turn], tok: Tokenizer, side: Side) -> None:
    """Count how each message reached the summary model (the message blocks of each summary
    request's user turn), and the prompt tokens that are not message blocks."""
    sent: Counter[str] = Counter()
    for call in calls:
        if call.kind != "summary":
            continue
        user = call.content("user").removesuffix(_USER_SUFFIX)
        blocks = message_blocks(user)
        sent.update(content.strip() for _, _, content in blocks)
        first_day = re.search(r"^(Speakers: .*|\d{4}-\d{2}-\d{2})$", user, re.MULTILINE)
        start = first_day.start() if blocks and first_day else len(user)
        side.overhead += call.tokens_in - tok.count(user[start:])
    have = Counter(t.content.strip() for t in turns)
    side.repeated = sum(max(0, n - have[text]) for text, n in sent.items())
    side.never = sum(max(0, n - sent[text]) for text, n in have.items())


def tally(calls: Sequence[Call], side: Side) -> None:
    side.calls = len(calls)
    side.summary_calls = sum(c.kind in ("summary", "baseline") for c in calls)
    side.tokens_in = sum(c.tokens_in for c in calls)
    side.tokens_out = sum(c.tokens_out for c in calls)


async def run_memstrata(conv: Conversation, server: CountingServer, work: Path, every: int,
                        *, decision: bool) -> Side:
    """Load ``conv`` ``every`` messages at a time, summarising after each batch."""
    llm = OpenAIChat("summary-model", base_url=server.url, api_key="bench")
    judge = OpenAIChat("decision-model", base_url=server.url, api_key="bench") if decision \
        else None
    path = work / f"{conv.name}-{'decision' if decision else 'plain'}.db"
    side = Side()
    server.take()
    async with Memory.open(str(path), settings=Settings(), background=False, embedder=None,
                           llm=llm, decision_llm=judge) as mem:
        for start in range(0, len(conv.turns), every):
            batch = conv.turns[start:start + every]
            await mem.add_many("bench", [{"role": t.role, "content": t.content,
                                          "sender": t.sender, "at": t.at} for t in batch])
            await mem.summarize("bench")
        stats = await mem.stats("bench")
    calls = server.take()
    tally(calls, side)
    delivery(calls, conv.turns, server.tok, side)
    side.recorded_in, side.recorded_out = stats.summary_tokens_in, stats.summary_tokens_out
    return side


def measure(conv: Conversation, server: CountingServer, work: Path, every: int,
            fallback: bool) -> tuple[Row, str]:
    row = Row(conv.name, len(conv.turns), sum(server.tok.count(t.content) for t in conv.turns))
    row.plain = asyncio.run(run_memstrata(conv, server, work, every, decision=False))
    row.decided = asyncio.run(run_memstrata(conv, server, work, every, decision=True))
    server.take()
    which = run_baseline(conv.turns, server.url, server.tok, force_fallback=fallback)
    tally(server.take(), row.baseline)
    return row, which


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.3f}" if b else "n/a"


def cost_table(rows: Sequence[Row]) -> list[str]:
    out = ["| conversation | messages | own tokens | system | calls | input tokens "
           "| output tokens | input / message | input vs baseline |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        for label, s in (("memstrata", r.plain), ("memstrata + decision model", r.decided),
                         ("baseline", r.baseline)):
            out.append(f"| {r.name} | {r.messages:,} | {r.own_tokens:,} | {label} | "
                       f"{s.calls:,} | {s.tokens_in:,} | {s.tokens_out:,} | "
                       f"{s.tokens_in / max(r.messages, 1):.1f} | "
                       f"{_ratio(s.tokens_in, r.baseline.tokens_in)} |")
    return out


def _mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


def target_table(rows: Sequence[Row]) -> list[str]:
    out = ["| conversation | repeated deliveries (target 0) | input tokens | bound: 1.3 x own "
           "+ per-chunk overhead | within bound | messages as sent / own | input vs baseline "
           "(target ≤ 0.20) |",
           "|---|---|---:|---:|---|---:|---|"]
    for r in rows:
        p = r.plain
        share = p.tokens_in / r.baseline.tokens_in if r.baseline.tokens_in else 0.0
        out.append(f"| {r.name} | {p.repeated} (with decision model: {r.decided.repeated}) "
                   f"{_mark(p.repeated == 0 and r.decided.repeated == 0)} | "
                   f"{p.tokens_in:,} | {r.bound:,.0f} (1.3 x {r.own_tokens:,} + "
                   f"{p.overhead:,}) | {_mark(p.tokens_in <= r.bound)} | "
                   f"{(p.tokens_in - p.overhead) / max(r.own_tokens, 1):.2f} | {share:.3f} "
                   f"{_mark(share <= BASELINE_SHARE)} |")
    return out


def totals(rows: Sequence[Row]) -> Row:
    total = Row("**total**")
    for r in rows:
        total.messages += r.messages
        total.own_tokens += r.own_tokens
        total.plain.add(r.plain)
        total.decided.add(r.decided)
        total.baseline.add(r.baseline)
    return total


def checks(rows: Sequence[Row]) -> list[str]:
    """Lines on the bookkeeping: memstrata's own record against the server's count."""
    out = []
    for r in rows:
        for label, s in (("plain", r.plain), ("decision", r.decided)):
            same = (s.recorded_in, s.recorded_out) == (s.tokens_in, s.tokens_out)
            out.append(f"- {r.name} ({label}): stats() recorded {s.recorded_in:,} in / "
                       f"{s.recorded_out:,} out; server counted {s.tokens_in:,} / "
                       f"{s.tokens_out:,} ({'equal' if same else 'DIFFERENT'}); "
                       f"{s.never} messages never sent to the summary model")
    return out


def conversations(quick: bool) -> list[Conversation]:
    return [*locomo(limit=2 if quick else None), generated(500 if quick else 5000)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="2 LoCoMo + 500 generated")
    parser.add_argument("--every", type=int, default=60, help="messages between summaries")
    parser.add_argument("--estimate-tokens", action="store_true",
                        help="count chars/4 even when a tokenizer is installed")
    parser.add_argument("--fallback-baseline", action="store_true",
                        help="use the re-summarise-on-overflow baseline instead of LangChain")
    parser.add_argument("--llm", choices=("scripted", "local"), default="scripted",
                        help="the scripted counting server (default) or a real local model")
    parser.add_argument("--messages", type=int, default=24,
                        help="--llm local: messages summarised per run")
    parser.add_argument("--chunk-chars", default="1000,2000,4000",
                        help="--llm local: summary_chunk_chars values, comma-separated")
    parser.add_argument("--threads", type=int, default=1, help="--llm local: model threads")
    args = parser.parse_args(argv)
    if args.llm == "local":
        from _summary_local import run_local
        sizes = [int(part) for part in args.chunk_chars.split(",") if part.strip()]
        return run_local(args.messages, sizes, args.threads)
    tok = load(prefer_estimate=args.estimate_tokens)
    server = CountingServer(tok).start()
    rows: list[Row] = []
    began = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="memstrata-summary-") as tmp:
            for conv in conversations(args.quick):
                row, which = measure(conv, server, Path(tmp), args.every, args.fallback_baseline)
                rows.append(row)
                print(f"measured {conv.name} ({row.messages} messages)", file=sys.stderr)
    finally:
        server.stop()
    report(rows, tok, which, args.every, time.perf_counter() - began)
    total = totals(rows)
    return 0 if total.plain.repeated == 0 and total.decided.repeated == 0 else 1


def report(rows: Sequence[Row], tok: Tokenizer, which: str, every: int, seconds: float) -> None:
    everything = [*rows, totals(rows)]
    print(f"tokenizer: {tok.name}")
    print(f"baseline: {which}, max_token_limit={MAX_TOKEN_LIMIT}")
    print(f"memstrata: summarize() every {every} messages and at the end, "
          f"summary_chunk_chars={Settings().summary_chunk_chars}")
    print()
    print("\n".join(cost_table(everything)))
    print()
    print("\n".join(target_table(everything)))
    print()
    print("\n".join(checks(rows)))
    total = everything[-1]
    ok = total.plain.repeated == 0 and total.decided.repeated == 0
    print(f"\nat-most-once: {'PASS' if ok else 'FAIL'}")
    print(f"elapsed: {seconds:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
