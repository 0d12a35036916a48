"""Calling a model's HTTP API: one JSON POST, retried only when the failure is transient.

Every HTTP provider goes through :func:`post_json`, so the retry rules, the backoff and the
translation of failures into ``ProviderError`` exist once. Transient means: the connection failed
or timed out, or the server answered 408, 409, 429 or 5xx. Everything else fails at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import ProviderError

__all__ = ["TRANSIENT_STATUS", "HttpClient", "RetryPolicy", "field", "post_json", "retry_delay"]

TRANSIENT_STATUS = frozenset({408, 409, 429})
_EXCERPT = 200


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How often and how patiently transient failures are retried.

    ``base_delay`` doubles with each attempt (plus jitter) up to ``max_delay``; a ``Retry-After``
    header replaces the computed delay but is capped at ``max_retry_after`` so one unhappy server
    cannot park a caller for minutes.
    """

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 30.0


def retry_delay(policy: RetryPolicy, attempt: int, retry_after: float | None = None) -> float:
    """Seconds to wait before retry number ``attempt + 1`` (``attempt`` counts from 0)."""
    if retry_after is not None:
        return max(0.0, min(retry_after, policy.max_retry_after))
    ceiling = min(policy.max_delay, policy.base_delay * 2.0**attempt)
    # "Equal jitter": keep at least half the backoff, randomise the rest, so callers that failed
    # together do not retry together.
    return ceiling / 2 + random.uniform(0.0, ceiling / 2)


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "…"


def _is_transient_status(status: int) -> bool:
    return status in TRANSIENT_STATUS or 500 <= status <= 599


class HttpClient:
    """Where a provider's requests go out: a client passed in, or a fresh one per call.

    A fresh ``httpx.AsyncClient`` per ``post_json`` call (shared by its retries) means providers
    hold no sockets between calls, need no closing, and work under any event loop; the extra
    connection set-up is small next to a model call. Pass a long-lived ``client`` (e.g. with a
    ``MockTransport``, or for connection pooling) and it is used as is and never closed here.
    """

    def __init__(self, *, timeout: float, client: httpx.AsyncClient | None = None) -> None:
        self._timeout = timeout
        self._given = client

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._given is not None:
            yield self._given
            return
        async with httpx.AsyncClient(timeout=httpx.Timeout(self._timeout)) as client:
            yield client


async def post_json(
    http: HttpClient,
    url: str,
    *,
    provider: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    policy: RetryPolicy,
) -> dict[str, Any]:
    """POST ``body`` as JSON and return the decoded JSON object of a 2xx answer.

    Raises ``ProviderError`` (from the cause) naming ``provider``, the status and a body excerpt
    when the answer is not a 2xx JSON object or the transient retries ran out.
    """
    async with http.session() as client:
        return await _post_with_retries(client, url, provider=provider, body=body,
                                        headers=headers, policy=policy)


async def _post_with_retries(
    client: httpx.AsyncClient,
    url: str,
    *,
    provider: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    policy: RetryPolicy,
) -> dict[str, Any]:
    attempt = 0
    while True:
        retry_after: float | None = None
        try:
            response = await client.post(url, json=body, headers=dict(headers))
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            failure: ProviderError = ProviderError(
                f"{provider}: {type(exc).__name__} calling {url}: {exc or 'no detail'}")
            cause: BaseException = exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            # Bad URL, unsupported scheme, proxy misconfiguration: retrying cannot help.
            raise ProviderError(f"{provider}: cannot call {url}: {exc}") from exc
        else:
            if 200 <= response.status_code < 300:
                return _decode(response, provider, url)
            message = (f"{provider}: HTTP {response.status_code} from {url}: "
                       f"{_excerpt(response.text)}")
            if not _is_transient_status(response.status_code):
                raise ProviderError(message) from _status_error(response)
            failure, cause = ProviderError(message), _status_error(response)
            retry_after = _parse_retry_after(response.headers.get("retry-after"))
        if attempt >= policy.max_retries:
            tries = f" (after {attempt + 1} attempts)" if attempt else ""
            raise ProviderError(f"{failure}{tries}") from cause
        await asyncio.sleep(retry_delay(policy, attempt, retry_after))
        attempt += 1


def _status_error(response: httpx.Response) -> httpx.HTTPStatusError:
    return httpx.HTTPStatusError(f"HTTP {response.status_code}", request=response.request,
                                 response=response)


def _decode(response: httpx.Response, provider: str, url: str) -> dict[str, Any]:
    try:
        data = json.loads(response.content)
    except ValueError as exc:
        raise ProviderError(f"{provider}: HTTP {response.status_code} from {url} is not JSON: "
                            f"{_excerpt(response.text)}") from exc
    if not isinstance(data, dict):
        raise ProviderError(f"{provider}: expected a JSON object from {url}, got "
                            f"{_excerpt(response.text)}")
    return data


def field(data: Any, *path: str | int, provider: str) -> Any:
    """``data[path[0]][path[1]]…``, or a ``ProviderError`` naming the missing piece."""
    current = data
    for step in path:
        try:
            current = current[step]
        except (KeyError, IndexError, TypeError) as exc:
            where = "".join(f"[{s!r}]" for s in path)
            raise ProviderError(f"{provider}: the response has no {where}: "
                                f"{_excerpt(json.dumps(data)[:1000])}") from exc
    return current
