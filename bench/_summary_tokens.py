"""The one token counter of the summary benchmark, used for every side of every call.

A real BPE tokenizer (``o200k_base``, the encoding of current OpenAI chat models) when the
``quicktok`` package is installed, which ships its vocabularies and never downloads anything;
otherwise a documented estimate of one token per four characters (rounded up). Both the
server's counts and the LangChain baseline's buffer counter use the same instance.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["CHAT_MESSAGE_OVERHEAD", "CHAT_REPLY_PRIMING", "Tokenizer", "chat_tokens", "load"]

# OpenAI's documented chat-format framing: a few tokens per message, and the reply's priming.
CHAT_MESSAGE_OVERHEAD = 4
CHAT_REPLY_PRIMING = 3


@dataclass(frozen=True)
class Tokenizer:
    """``count(text)`` and ``ids(text)`` of one encoding; ``name`` says which."""

    name: str
    ids: Callable[[str], list[int]]
    count: Callable[[str], int]


def _estimate_ids(text: str) -> list[int]:
    return [0] * ((len(text) + 3) // 4)


def load(prefer_estimate: bool = False) -> Tokenizer:
    """``quicktok``'s ``o200k_base`` if installed (bundled files only), else chars/4."""
    if not prefer_estimate:
        try:
            quicktok = importlib.import_module("quicktok")
            encoding = quicktok.get_encoding("o200k_base")
        except Exception:
            encoding = None
        if encoding is not None:
            def ids(text: str) -> list[int]:
                return [int(i) for i in encoding.encode_ordinary(text)]

            def count(text: str) -> int:
                return len(encoding.encode_ordinary(text))

            return Tokenizer(name="o200k_base (quicktok, bundled vocabulary)", ids=ids,
                             count=count)
    return Tokenizer(name="estimate: ceil(characters / 4)", ids=_estimate_ids,
                     count=lambda text: (len(text) + 3) // 4)


def chat_tokens(tok: Tokenizer, messages: Sequence[Mapping[str, object]]) -> int:
    """Prompt tokens of a chat request: each message's text plus the chat-format framing."""
    total = CHAT_REPLY_PRIMING
    for m in messages:
        content = m.get("content")
        total += CHAT_MESSAGE_OVERHEAD + tok.count(content if isinstance(content, str) else "")
    return total
