"""A local OpenAI-compatible chat server that answers like a summariser and counts tokens.

``POST /v1/chat/completions`` only. Every request body is kept; its prompt tokens (each
message's text plus the chat-format framing) and its reply's tokens are counted with the
benchmark's one tokenizer and returned as ``usage``, so the clients record the same numbers
the server tallies.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from _local_http import LocalServer
from _summary_replies import baseline_reply, decision_reply, kind_of, summary_reply
from _summary_tokens import Tokenizer, chat_tokens

__all__ = ["Call", "CountingServer"]


@dataclass(frozen=True)
class Call:
    """One request: who sent it, its messages, and the tokens both ways."""

    kind: str
    messages: list[dict[str, Any]]
    tokens_in: int
    tokens_out: int

    def content(self, role: str) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == role)


class CountingServer(LocalServer):
    """Start with ``start()``; ``take()`` hands over (and forgets) the calls so far."""

    def __init__(self, tok: Tokenizer) -> None:
        super().__init__()
        self.handler = _Handler
        self.tok = tok
        self._calls: list[Call] = []
        self._lock = threading.Lock()

    def take(self) -> list[Call]:
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    def answer(self, payload: dict[str, Any]) -> dict[str, Any]:
        messages = [m for m in payload.get("messages", []) if isinstance(m, dict)]
        first = str(messages[0].get("content", "")) if messages else ""
        kind = kind_of(first)
        user = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        if kind == "summary":
            text = summary_reply(first, user, self.tok)
        elif kind == "decision":
            text = decision_reply(user)
        elif kind == "baseline":
            text = baseline_reply(user, self.tok)
        else:
            text = "ok"
        call = Call(kind=kind, messages=messages, tokens_in=chat_tokens(self.tok, messages),
                    tokens_out=self.tok.count(text))
        with self._lock:
            self._calls.append(call)
        return {"id": f"chatcmpl-{len(self._calls)}", "object": "chat.completion",
                "model": str(payload.get("model", "bench")),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": call.tokens_in, "completion_tokens": call.tokens_out,
                          "total_tokens": call.tokens_in + call.tokens_out}}


class _Handler(BaseHTTPRequestHandler):
    owner: CountingServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, no delayed-ACK stall

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            payload = json.loads(self.rfile.read(length))
            status, body = 200, self.owner.answer(payload)
        except Exception as exc:
            status, body = 500, {"error": {"message": f"{type(exc).__name__}: {exc}"}}
        raw = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib's name)
        """Quiet."""
