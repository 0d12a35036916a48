"""A shorter way through FastAPI for the routes an agent calls on every turn.

FastAPI answers a request by solving the route's dependencies, validating each parameter
with its field, reading the body into the model and wrapping the endpoint in its own
exception and exit-stack layers: about half of the server's CPU for a small ``context``
read. A :class:`QuickRoute` first tries a plain reader of its own (:func:`quick`) that
accepts only a well-formed request, with nothing unusual in it: every parameter sent once,
of a known name and in its plain form, a JSON body the route's model takes as it is. Such a
request goes straight to the same endpoint, with the caller's ``Memory`` from the same
``memory_for``; anything else (a missing or malformed parameter, a body of the wrong type)
goes the whole way through FastAPI, which answers it exactly as before, its errors
included. A reader therefore never has to word an error: it only says "mine" or "not mine",
and what it says "mine" to, FastAPI would have accepted with the same values.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.datastructures import QueryParams
from starlette.types import Message, Receive, Scope, Send

from ._auth import memory_for
from ._media import declares_json

__all__ = ["QuickRoute", "Sent", "as_bool", "as_float", "as_int", "model_of", "plain_query",
           "quick"]

Endpoint = TypeVar("Endpoint", bound=Callable[..., Awaitable[Response]])


@dataclass(frozen=True, slots=True)
class Sent:
    """What a reader sees of a request: its query, its path parameters and its body
    (``b""`` for a route without one)."""

    query: QueryParams
    path: Mapping[str, Any]
    body: bytes


Reader = Callable[[Sent], "dict[str, Any] | None"]


@dataclass(frozen=True, slots=True)
class _Quick:
    read: Reader
    body: bool


_READERS: dict[Callable[..., Any], _Quick] = {}


def quick(read: Reader, *, body: bool = False) -> Callable[[Endpoint], Endpoint]:
    """Register ``read`` for the endpoint below it (put it under the route's decorator).
    ``read`` returns the endpoint's arguments (all but the ``Memory`` and the ``Request``)
    for a request it takes, or ``None`` to leave the request to FastAPI. ``body``: the route
    reads a JSON body."""
    def register(endpoint: Endpoint) -> Endpoint:
        _READERS[endpoint] = _Quick(read, body)
        return endpoint
    return register


class QuickRoute(APIRoute):
    """An ``APIRoute`` whose endpoint takes a well-formed request without FastAPI's
    parameter machinery when a reader was registered for it with :func:`quick`."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        self._quick = _READERS.get(endpoint)
        params = inspect.signature(endpoint).parameters
        self._wants_request = "request" in params

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        how = self._quick
        if how is None or scope["type"] != "http" or scope["method"] not in (self.methods or ()):
            await super().handle(scope, receive, send)
            return
        request = Request(scope, receive)
        body = b""
        if how.body:
            if not declares_json(request.headers):
                await super().handle(scope, receive, send)
                return
            body = await request.body()
            receive = _replay(body, receive)
        args = how.read(Sent(request.query_params, scope.get("path_params", {}), body))
        if args is None:
            await super().handle(scope, receive, send)
            return
        args["mem"] = await memory_for(request, None)
        if self._wants_request:
            args["request"] = request
        response: Response = await self.endpoint(**args)
        await response(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` that gives the body already read once more, then waits on the client."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> Message:
        return pending.pop() if pending else await receive()
    return again


# -- what a reader takes -----------------------------------------------------------------

_INT = re.compile(r"(0|[1-9][0-9]{0,8})")
_FLOAT = re.compile(r"-?(0|[1-9][0-9]{0,8})(\.[0-9]{1,12})?")
_BOOLS = {"true": True, "false": False}


def plain_query(query: QueryParams, names: Collection[str]) -> bool:
    """Every parameter one of ``names``, each sent once."""
    items = query.multi_items()
    return len(items) == len(query) and all(name in names for name, _ in items)


def as_int(text: str | None) -> int | None:
    """Digits as an int (``None`` for anything else: a sign, a space, a leading zero)."""
    return int(text) if text is not None and _INT.fullmatch(text) else None


def as_float(text: str | None) -> float | None:
    """A plain decimal as a float (``None`` for an exponent, ``nan``, a sign of ``+``)."""
    return float(text) if text is not None and _FLOAT.fullmatch(text) else None


def as_bool(text: str | None) -> bool | None:
    """``true`` or ``false``, lower case (``None`` for the other spellings FastAPI takes)."""
    return _BOOLS.get(text) if text is not None else None


ModelT = TypeVar("ModelT", bound=BaseModel)


def model_of(model: type[ModelT], body: bytes) -> ModelT | None:
    """``body`` as ``model`` when it is JSON the model takes, else ``None``."""
    try:
        return model.model_validate(json.loads(body))
    except (ValueError, ValidationError):
        return None
