"""Misspelled choices are type errors (checked by tests/test_sdk_typing.py); each line that
must fail says so with ``# error``."""

from __future__ import annotations

from memstrata import Memory


async def misspelled(mem: Memory) -> None:
    await mem.search("trip", "train", match="semntic")  # error
    await mem.search("trip", "train", time_range="2w")  # error
    await mem.recent("trip", time_range="week")  # error
    await mem.add("trip", "robot", "beep")  # error
    await mem.reset("trip", mode="everything")  # error
