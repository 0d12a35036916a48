"""``FakeLLM``: a scripted stand-in for a chat model, for memstrata's tests and for users'.

It answers from a list of replies, in order, and records every call so a test can check what
was sent. It does no I/O and is deterministic.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ProviderError
from ._base import Completion, ReplySchema, check_messages, estimate_tokens

__all__ = ["FakeCall", "FakeLLM", "Reply"]

Responder = Callable[[list[dict[str, str]], str | None], str]
Reply = str | BaseException | Responder
"""A scripted reply: the text itself, an exception to raise, or a function of
``(messages, system)`` returning the text."""


@dataclass(frozen=True, kw_only=True)
class FakeCall:
    """What one ``complete`` call was given."""

    messages: list[dict[str, str]]
    system: str | None
    max_tokens: int | None
    json_mode: bool
    schema: ReplySchema | None = None


class FakeLLM:
    """An ``LLM`` that replies from a script.

    ``replies`` are used one per call. When they run out, ``default`` answers (a reply of the
    same kinds); without a default, an exhausted script raises ``ProviderError``. Tokens are
    estimated at four characters per token.
    """

    def __init__(self, replies: Iterable[Reply] = (), *, default: Reply | None = None,
                 model_id: str = "fake") -> None:
        self.model_id = model_id
        self.calls: list[FakeCall] = []
        self._replies: deque[Reply] = deque(replies)
        self._default = default

    def __repr__(self) -> str:
        return f"FakeLLM({len(self._replies)} replies left, {len(self.calls)} calls)"

    @property
    def remaining(self) -> int:
        """How many scripted replies have not been used yet."""
        return len(self._replies)

    def add(self, *replies: Reply) -> None:
        """Append more replies to the script."""
        self._replies.extend(replies)

    async def complete(self, messages: Sequence[Mapping[str, str]], *,
                       system: str | None = None, max_tokens: int | None = None,
                       json_mode: bool = False, schema: ReplySchema | None = None
                       ) -> Completion:
        checked = check_messages(messages)
        self.calls.append(FakeCall(messages=checked, system=system, max_tokens=max_tokens,
                                   json_mode=json_mode or schema is not None, schema=schema))
        if self._replies:
            reply = self._replies.popleft()
        elif self._default is not None:
            reply = self._default
        else:
            raise ProviderError(f"{self.model_id}: no scripted reply left for call "
                                f"{len(self.calls)}")
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else reply(checked, system)
        prompt = (system or "") + "".join(m["content"] for m in checked)
        return Completion(text=text, tokens_in=estimate_tokens(prompt),
                          tokens_out=estimate_tokens(text), model=self.model_id)
