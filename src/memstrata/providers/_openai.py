"""Clients for OpenAI-style HTTP APIs: ``/embeddings`` and ``/chat/completions``.

The same wire format is spoken by OpenAI, Azure-style gateways, Ollama, vLLM, llama.cpp's server
and LM Studio, so ``base_url`` (including the ``/v1``) is all that changes between them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ..errors import InvalidInput, ProviderError
from ._base import Completion, ReplySchema, Vectors, check_messages, estimate_tokens
from ._batching import embed_batched
from ._formats import (
    JSON_INSTRUCTION,
    ReplyFormat,
    accepted_format,
    format_field,
    is_refusal,
    refused,
    schema_instruction,
    weaker_of,
)
from ._retry import HttpClient, RetryPolicy, field, post_json

__all__ = ["OPENAI_BASE_URL", "OpenAIChat", "OpenAIEmbedder"]

log = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
DEFAULT_EMBEDDING_DIM = 256
# Models whose output can be shortened with the `dimensions` field, and their full size.
_SHORTENABLE = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072}
_FIXED_DIM = {"text-embedding-ada-002": 1536}


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


class OpenAIEmbedder:
    """Embeddings from ``POST {base_url}/embeddings``.

    ``dim`` defaults to 256 for the ``text-embedding-3-*`` models (sent as ``dimensions``); other
    models keep their native size, which must be given for models this class does not know.
    """

    def __init__(self, model: str = DEFAULT_EMBEDDING_MODEL, *, dim: int | None = None,
                 base_url: str | None = None, api_key: str | None = None,
                 max_retries: int = 3, timeout: float = 60.0, batch_size: int = 256,
                 retry: RetryPolicy | None = None, client: httpx.AsyncClient | None = None
                 ) -> None:
        self.model = model
        self._send_dimensions = model in _SHORTENABLE
        if dim is None:
            dim = DEFAULT_EMBEDDING_DIM if self._send_dimensions else _FIXED_DIM.get(model)
        if dim is None:
            raise InvalidInput("embedder", f"the dimension of {model!r} is not known; name it "
                               f"as 'openai:{model}@<dim>'")
        if dim < 1 or (model in _SHORTENABLE and dim > _SHORTENABLE[model]):
            raise InvalidInput("embedder", f"dimension {dim} is out of range for {model!r}")
        self.dim = dim
        self.model_id = f"openai:{model}@{dim}"
        self._url = (base_url or OPENAI_BASE_URL).rstrip("/") + "/embeddings"
        self._headers = _headers(api_key)
        self._policy = retry or RetryPolicy(max_retries=max_retries)
        self._http = HttpClient(timeout=timeout, client=client)
        self._batch_size = batch_size

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.model!r}, dim={self.dim}, url={self._url!r})"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await embed_batched(texts, self._embed_batch, dim=self.dim,
                                   batch_size=self._batch_size, provider=self.model_id)

    async def _embed_batch(self, batch: list[str]) -> list[Any]:
        # The API rejects empty strings; a lone space embeds as "nothing" just the same.
        body: dict[str, Any] = {"model": self.model, "input": [t or " " for t in batch],
                                "encoding_format": "float"}
        if self._send_dimensions:
            body["dimensions"] = self.dim
        data = await post_json(self._http, self._url, provider=self.model_id, body=body,
                               headers=self._headers, policy=self._policy)
        items = field(data, "data", provider=self.model_id)
        if not isinstance(items, list) or len(items) != len(batch):
            raise ProviderError(f"{self.model_id}: sent {len(batch)} texts, the response "
                                f"has {len(items) if isinstance(items, list) else 0} vectors")
        # The API may answer out of order; `index` says which input each vector belongs to.
        ordered = sorted(items, key=lambda item: field(item, "index", provider=self.model_id))
        return [field(item, "embedding", provider=self.model_id) for item in ordered]


class OpenAIChat:
    """Chat completions from ``POST {base_url}/chat/completions``.

    A reply with a ``schema`` is asked for the strongest way the endpoint accepts:
    ``response_format`` ``json_schema`` with ``strict``, then without it, then ``json_object``,
    then the schema as text in the system prompt only. A server that refuses a form (HTTP 400
    or 422 naming the response format or the schema) is asked again at once with the next one,
    and the endpoint is remembered, so the refused form is not sent again.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_retries: int = 3, timeout: float = 120.0, retry: RetryPolicy | None = None,
                 client: httpx.AsyncClient | None = None) -> None:
        if not model:
            raise InvalidInput("summary_model", "an OpenAI-style model name is required, e.g. "
                               "'openai:gpt-4o-mini'")
        self.model = model
        self.model_id = f"openai:{model}"
        self._url = (base_url or OPENAI_BASE_URL).rstrip("/") + "/chat/completions"
        self._headers = _headers(api_key)
        self._policy = retry or RetryPolicy(max_retries=max_retries)
        self._http = HttpClient(timeout=timeout, client=client)

    def __repr__(self) -> str:
        return f"OpenAIChat({self.model!r}, url={self._url!r})"

    @property
    def reply_format(self) -> ReplyFormat:
        """The strongest reply format this endpoint has not refused so far."""
        return accepted_format(self._url, self.model)

    async def complete(self, messages: Sequence[Mapping[str, str]], *,
                       system: str | None = None, max_tokens: int | None = None,
                       json_mode: bool = False, schema: ReplySchema | None = None
                       ) -> Completion:
        checked = check_messages(messages)
        want: ReplyFormat = "strict" if schema is not None else "object" if json_mode \
            else "text"
        form = weaker_of(want, self.reply_format)
        while True:
            sent = _messages(system, checked, form, schema)
            body: dict[str, Any] = {"model": self.model, "messages": sent}
            if max_tokens is not None:
                # `max_tokens` rather than `max_completion_tokens`: every compatible server
                # reads it.
                body["max_tokens"] = max_tokens
            response_format = format_field(form, schema)
            if response_format is not None:
                body["response_format"] = response_format
            try:
                data = await post_json(self._http, self._url, provider=self.model_id,
                                       body=body, headers=self._headers, policy=self._policy)
            except ProviderError as exc:
                if response_format is None or not is_refusal(exc):
                    raise
                form = refused(self._url, self.model, form)
                log.info("%s refused response_format %s; asking with %r from now on",
                         self._url, response_format.get("type"), form)
                continue
            return _completion(data, sent, self.model, self.model_id)


def _messages(system: str | None, checked: list[dict[str, str]], form: ReplyFormat,
              schema: ReplySchema | None) -> list[dict[str, str]]:
    """The messages sent: the system prompt first (with the JSON instruction, and the schema,
    as text when the server takes them no other way)."""
    if form == "prompt":
        instruction = schema_instruction(schema) if schema is not None else JSON_INSTRUCTION
        system = (system + "\n\n" if system else "") + instruction
    return ([{"role": "system", "content": system}] if system else []) + checked


def _completion(data: dict[str, Any], sent: list[dict[str, str]], model: str,
                model_id: str) -> Completion:
    choice = field(data, "choices", 0, provider=model_id)
    text = field(choice, "message", "content", provider=model_id)
    if not isinstance(text, str):
        raise ProviderError(f"{model_id}: the reply has no text content: {str(choice)[:200]}")
    usage = data.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    tokens_in = usage.get("prompt_tokens")
    tokens_out = usage.get("completion_tokens")
    return Completion(
        text=text,
        tokens_in=tokens_in if isinstance(tokens_in, int) else
        sum(estimate_tokens(m["content"]) for m in sent),
        tokens_out=tokens_out if isinstance(tokens_out, int) else estimate_tokens(text),
        model=str(data.get("model") or model),
        truncated=isinstance(choice, dict) and choice.get("finish_reason") == "length",
    )
