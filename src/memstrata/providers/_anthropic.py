"""A client for Anthropic's Messages API (``POST {base_url}/v1/messages``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ..errors import InvalidInput, ProviderError
from ._base import Completion, ReplySchema, check_messages, estimate_tokens
from ._formats import JSON_INSTRUCTION
from ._retry import HttpClient, RetryPolicy, field, post_json

__all__ = ["ANTHROPIC_BASE_URL", "ANTHROPIC_VERSION", "AnthropicChat"]

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
# The Messages API requires max_tokens; this is used when the caller gives none.
DEFAULT_MAX_TOKENS = 4096


class AnthropicChat:
    """Claude models through the Messages API.

    The API has no JSON switch, so ``json_mode`` adds an instruction to the system prompt. A
    ``schema`` becomes the input schema of a tool the model is made to call, and the tool call's
    input is the reply's text (as JSON).
    Messages with the role ``system`` are moved into the top-level ``system`` field, which is the
    only place the API accepts them.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_retries: int = 3, timeout: float = 120.0, retry: RetryPolicy | None = None,
                 client: httpx.AsyncClient | None = None) -> None:
        if not model:
            raise InvalidInput("summary_model", "an Anthropic model name is required, e.g. "
                               "'anthropic:claude-haiku-4-5'")
        self.model = model
        self.model_id = f"anthropic:{model}"
        base = (base_url or ANTHROPIC_BASE_URL).rstrip("/")
        # Accept a base URL given with /v1, as OpenAI-style settings are.
        base = base.removesuffix("/v1")
        self._url = base + "/v1/messages"
        self._headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            self._headers["x-api-key"] = api_key
        self._policy = retry or RetryPolicy(max_retries=max_retries)
        self._http = HttpClient(timeout=timeout, client=client)

    def __repr__(self) -> str:
        return f"AnthropicChat({self.model!r}, url={self._url!r})"

    async def complete(self, messages: Sequence[Mapping[str, str]], *,
                       system: str | None = None, max_tokens: int | None = None,
                       json_mode: bool = False, schema: ReplySchema | None = None
                       ) -> Completion:
        checked = check_messages(messages)
        system_parts = [system] if system else []
        system_parts += [m["content"] for m in checked if m["role"] == "system"]
        if json_mode and schema is None:
            system_parts.append(JSON_INSTRUCTION)
        turns = [m for m in checked if m["role"] != "system"]
        body: dict[str, Any] = {"model": self.model, "messages": turns,
                                "max_tokens": max_tokens or DEFAULT_MAX_TOKENS}
        if system_parts:
            body["system"] = "\n\n".join(system_parts)
        if schema is not None:
            body["tools"] = [{"name": schema.name, "input_schema": dict(schema.schema),
                              "description": schema.description or
                              "Record the reply, as structured data."}]
            body["tool_choice"] = {"type": "tool", "name": schema.name}
        data = await post_json(self._http, self._url, provider=self.model_id, body=body,
                               headers=self._headers, policy=self._policy)
        blocks = field(data, "content", provider=self.model_id)
        if not isinstance(blocks, list):
            raise ProviderError(f"{self.model_id}: 'content' is not a list of blocks")
        text = _reply_text(blocks, schema)
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        tokens_in = usage.get("input_tokens")
        tokens_out = usage.get("output_tokens")
        prompt = body.get("system", "") + "".join(m["content"] for m in turns)
        return Completion(
            text=text,
            tokens_in=tokens_in if isinstance(tokens_in, int) else estimate_tokens(prompt),
            tokens_out=tokens_out if isinstance(tokens_out, int) else estimate_tokens(text),
            model=str(data.get("model") or self.model),
            truncated=data.get("stop_reason") == "max_tokens",
        )


def _reply_text(blocks: list[Any], schema: ReplySchema | None) -> str:
    """The text blocks joined, or with a ``schema`` the input of its tool call as JSON (the
    text blocks when the model did not call it)."""
    if schema is not None:
        for block in blocks:
            if (isinstance(block, dict) and block.get("type") == "tool_use"
                    and block.get("name") == schema.name and isinstance(block.get("input"),
                                                                        dict)):
                return json.dumps(block["input"], ensure_ascii=False)
    return "".join(b.get("text", "") for b in blocks
                   if isinstance(b, dict) and b.get("type") == "text")
