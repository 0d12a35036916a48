"""What a user writes: memstrata's outputs passed straight to the OpenAI and Anthropic SDKs.
Type-checked (never run) by tests/test_sdk_typing.py: it must pass ``mypy --strict``."""

from __future__ import annotations

from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from memstrata import Memory, SyncMemory


async def reply(mem: Memory, openai: AsyncOpenAI, anthropic: AsyncAnthropic) -> None:
    ctx = await mem.context("trip", query="when do we leave?")
    messages = ctx.to_openai(system="You are a travel assistant.")
    messages.append({"role": "user", "content": "When do we leave?"})
    await openai.chat.completions.create(model="m", messages=messages,
                                         tools=mem.tools("trip").openai())
    await anthropic.messages.create(model="m", max_tokens=512, tools=mem.tools("trip").anthropic(),
                                    **ctx.to_anthropic(system="You are a travel assistant."))
    prompt = ctx.to_anthropic()
    await anthropic.messages.create(model="m", max_tokens=512, system=prompt["system"],
                                    messages=[*prompt["messages"],
                                              {"role": "user", "content": "When?"}])
    await mem.search("trip", "train", match="hybrid", time_range="7d")
    await mem.recent("trip", time_range="1m")
    await mem.add("trip", "assistant", "The 9:00 train.")
    await mem.reset("trip", mode="all")


def reply_sync(mem: SyncMemory, openai: AsyncOpenAI) -> object:
    return openai.chat.completions.create(model="m", messages=mem.context("trip").to_openai())
