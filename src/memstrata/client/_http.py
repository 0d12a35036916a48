"""The client's one HTTP connection pool: requests with the key, replies checked.

Every reply goes through :func:`~memstrata.client._wire.raise_for`, and every transport
failure becomes :class:`~memstrata.client.Unreachable`, so nothing above sees httpx's errors.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from ..errors import Closed, InvalidInput, NotFound
from . import _wire as wire

__all__ = ["TENANT_HEADER", "Http"]

TENANT_HEADER = "X-Memstrata-Tenant"
"""Names the tenant of a request made with a key for a tenant prefix."""

# Calls that may wait on a model (summaries, a reset that summarises, a large import).
_SLOW_READ_S = 900.0


class Http:
    """Requests to one server with one API key."""

    def __init__(self, base_url: str, key: str, *,
                 transport: httpx.AsyncBaseTransport | None = None, timeout: float,
                 tenant: str | None = None) -> None:
        self.base_url = base_url
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
        if tenant is not None:  # a key for a tenant prefix: the tenant of every request
            headers[TENANT_HEADER] = tenant
        self._client = httpx.AsyncClient(
            base_url=base_url, transport=transport, timeout=httpx.Timeout(timeout),
            headers=headers)
        self._closed = False

    async def close(self) -> None:
        self._closed = True
        await self._client.aclose()

    def _live(self) -> None:
        if self._closed:
            raise Closed("this RemoteMemory is closed")

    async def _request(self, method: str, path: str, *, slow: bool = False,
                       **kwargs: Any) -> httpx.Response:
        self._live()
        timeout = httpx.Timeout(self._client.timeout.connect, read=_SLOW_READ_S,
                                write=_SLOW_READ_S, pool=None) if slow else None
        try:
            if timeout is not None:
                response = await self._client.request(method, path, timeout=timeout,
                                                      **kwargs)
            else:
                response = await self._client.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise wire.Unreachable(f"no answer from the memstrata server at {self.base_url}: "
                                   f"{_reason(exc)}") from exc
        wire.raise_for(response)
        return response

    async def get_json(self, path: str,
                       params: Mapping[str, str | int | float] | None = None) -> Any:
        response = await self._request("GET", path, params=params)
        return _json(response)

    async def send_json(self, method: str, path: str, body: Any, *,
                        slow: bool = False) -> Any:
        if body is None:
            response = await self._request(method, path, slow=slow)
        else:
            response = await self._request(method, path, content=encode(body), slow=slow,
                                           headers={"Content-Type": "application/json"})
        return _json(response) if response.content else {}

    async def send_bytes(self, method: str, path: str, body: bytes,
                         content_type: str) -> Any:
        response = await self._request(method, path, content=body, slow=True,
                                       headers={"Content-Type": content_type})
        return _json(response)

    async def delete(self, path: str) -> bool:
        """``True`` when the server deleted something, ``False`` when there was nothing."""
        try:
            response = await self._request("DELETE", path)
        except NotFound:
            return False
        if response.status_code == 204 or not response.content:
            return True
        data = _json(response)
        return bool(data.get("removed", True)) if isinstance(data, dict) else True

    async def stream_lines(self, path: str) -> AsyncIterator[dict[str, Any]]:
        """The JSON objects of an ``application/x-ndjson`` reply, as they arrive."""
        self._live()
        try:
            async with self._client.stream("GET", path, timeout=httpx.Timeout(
                    self._client.timeout.connect, read=_SLOW_READ_S)) as response:
                if not response.is_success:
                    await response.aread()
                    wire.raise_for(response)
                async for line in response.aiter_lines():
                    if line.strip():
                        yield json.loads(line)
        except httpx.TransportError as exc:
            raise wire.Unreachable(f"the memstrata server at {self.base_url} stopped "
                                   f"answering: {_reason(exc)}") from exc


def encode(body: Any) -> bytes:
    """A request body as JSON. Text that is not valid Unicode (a lone surrogate) is sent
    escaped, so the server refuses it by its field as a local call does; a value JSON cannot
    hold (NaN, infinity, an object) is refused here, naming where it is in the body."""
    try:
        text = json.dumps(body, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        field = _unencodable(body, "") or "request"
        raise InvalidInput(field, f"must be JSON-serialisable: {exc}") from exc
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # rare: escaped, it costs up to twice the bytes
        return json.dumps(body, ensure_ascii=True, allow_nan=False).encode("ascii")


def _unencodable(value: Any, where: str) -> str | None:
    """The path (``items[1].meta``) of the first part of ``value`` JSON cannot hold."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            inner = _unencodable(item, f"{where}.{key}" if where else str(key))
            if inner is not None:
                # The field is the top part of the message (``meta``), as locally.
                return _field(inner)
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            inner = _unencodable(item, f"{where}[{i}]")
            if inner is not None:
                return inner
        return None
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return where
    return None


def _field(path: str) -> str:
    """``items[1].meta.a.b`` → ``items[1].meta``; ``meta.a`` → ``meta``."""
    head, _, rest = path.partition("].")
    if rest:
        return f"{head}].{rest.split('.')[0]}"
    return path.split(".")[0]


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise wire.ServerError(f"the server's reply to {response.request.url.path} is not "
                               "JSON; is this a memstrata server?",
                               status=response.status_code) from exc


def _reason(exc: httpx.TransportError) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
