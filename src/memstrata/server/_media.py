"""Bodies in the media type a route reads: a JSON route refuses any other with 415.

Without this a body sent as ``text/plain`` (``fetch`` with a string body) or as a form
(``curl -d``) reached the JSON parser as bytes and came back as "Input should be a valid
dictionary", which says nothing of the real mistake.
"""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException

__all__ = ["JSON", "declares_json", "json_body"]

JSON = "application/json"


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


def declares_json(headers: Headers) -> bool:
    """The request says its body is JSON."""
    content_type = headers.get("content-type")
    return content_type is not None and _is_json(content_type)


def _has_body(request: Request) -> bool:
    length = request.headers.get("content-length")
    if length is not None:
        return length.strip() not in ("", "0")
    return "transfer-encoding" in request.headers


async def json_body(request: Request) -> None:
    """Refuse (415) a body that is not declared as JSON; a request without one passes (its
    route says whether a body is required)."""
    if _has_body(request) and not declares_json(request.headers):
        content_type = request.headers.get("content-type")
        sent = f"got {content_type!r}" if content_type else "none was sent"
        raise HTTPException(415, f"the body must be JSON: send Content-Type: {JSON} ({sent})")
