"""The summary-cost baseline: LangChain's ``ConversationSummaryBufferMemory``.

The memory holds the newest messages up to ``max_token_limit`` tokens; when a new turn pushes
it over, it prunes the oldest messages and asks the LLM for a new running summary from the
previous summary and the pruned lines (one call per overflow). The LLM is a minimal
``BaseChatModel`` that POSTs to the benchmark's local server, and the memory's token counter is
the benchmark's tokenizer (``custom_get_token_ids``), so nothing is downloaded.

When LangChain cannot be imported, :class:`OverflowSummary` applies the same rule with the same
prompt text; the report says which one ran.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import httpx
from _summary_data import Turn
from _summary_tokens import Tokenizer

__all__ = ["MAX_TOKEN_LIMIT", "run_baseline"]

MAX_TOKEN_LIMIT = 2000
_PROMPT = ("Progressively summarize the lines of conversation provided, adding onto the "
           "previous summary returning a new summary.\n\nCurrent summary:\n{summary}\n\n"
           "New lines of conversation:\n{new_lines}\n\nNew summary:")


def _post(client: httpx.Client, url: str, prompt: str) -> str:
    reply = client.post(url + "/chat/completions", json={
        "model": "baseline", "messages": [{"role": "user", "content": prompt}]}, timeout=60)
    reply.raise_for_status()
    return str(reply.json()["choices"][0]["message"]["content"])


def _pairs(turns: Sequence[Turn]) -> list[tuple[str | None, str | None]]:
    """``(user, assistant)`` turns for ``save_context``; a lone message leaves one side empty."""
    out: list[tuple[str | None, str | None]] = []
    for t in turns:
        if t.role == "user":
            out.append((t.content, None))
        elif out and out[-1][1] is None and out[-1][0] is not None:
            out[-1] = (out[-1][0], t.content)
        else:
            out.append((None, t.content))
    return out


def _langchain(url: str, tok: Tokenizer, client: httpx.Client) -> Any:
    """A ``ConversationSummaryBufferMemory`` on the local server; raises ImportError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.memory import ConversationSummaryBufferMemory
        from langchain_core.language_models import BaseChatModel
        from langchain_core.messages import AIMessage, BaseMessage
        from langchain_core.outputs import ChatGeneration, ChatResult

        class LocalChat(BaseChatModel):
            """Chat completions from the benchmark server."""

            @property
            def _llm_type(self) -> str:
                return "bench-local"

            def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                          run_manager: Any = None, **kwargs: Any) -> ChatResult:
                prompt = "\n".join(str(m.content) for m in messages)
                text = _post(client, url, prompt)
                return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

        llm = LocalChat(custom_get_token_ids=tok.ids)
        warnings.simplefilter("ignore")  # importing LangChain installs its own filters
        return ConversationSummaryBufferMemory(llm=llm, max_token_limit=MAX_TOKEN_LIMIT)


def _feed_langchain(memory: Any, turns: Sequence[Turn]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for user, assistant in _pairs(turns):
            if user is not None and assistant is not None:
                memory.save_context({"input": user}, {"output": assistant})
                continue
            # A message without its partner: stored alone, then the same prune rule.
            if user is not None:
                memory.chat_memory.add_user_message(user)
            elif assistant is not None:
                memory.chat_memory.add_ai_message(assistant)
            memory.prune()


class OverflowSummary:
    """The same rule without LangChain: prune the oldest lines past the limit into the
    running summary with one call that carries the previous summary and the pruned lines."""

    def __init__(self, url: str, tok: Tokenizer, client: httpx.Client) -> None:
        self.url, self.tok, self.client = url, tok, client
        self.buffer: list[str] = []
        self.summary = ""

    def add(self, line: str) -> None:
        self.buffer.append(line)
        size = sum(self.tok.count(b) for b in self.buffer)
        if size <= MAX_TOKEN_LIMIT:
            return
        pruned: list[str] = []
        while size > MAX_TOKEN_LIMIT:
            pruned.append(self.buffer.pop(0))
            size = sum(self.tok.count(b) for b in self.buffer)
        self.summary = _post(self.client, self.url, _PROMPT.format(
            summary=self.summary, new_lines="\n".join(pruned)))


def run_baseline(turns: Sequence[Turn], url: str, tok: Tokenizer, *,
                 force_fallback: bool = False) -> str:
    """Feed ``turns`` to the baseline; returns which baseline ran (for the report)."""
    with httpx.Client() as client:
        try:
            if force_fallback:
                raise ImportError("fallback asked for")
            memory = _langchain(url, tok, client)
        except ImportError:
            fallback = OverflowSummary(url, tok, client)
            for t in turns:
                fallback.add(f"{'Human' if t.role == 'user' else 'AI'}: {t.content}")
            return "re-summarise-on-overflow (same rule, written here, not LangChain)"
        _feed_langchain(memory, turns)
    return "langchain_classic ConversationSummaryBufferMemory"
