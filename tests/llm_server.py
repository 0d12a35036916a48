"""A real HTTP server on 127.0.0.1 that stands in for LLM and embedding endpoints in tests.

It speaks the shapes memstrata's clients use:

* OpenAI-style ``POST /v1/chat/completions`` and ``POST /v1/embeddings``
  (point a client at ``server.openai_url``, which ends in ``/v1``);
* Anthropic ``POST /v1/messages`` (point a client at ``server.url``).

Each request takes the next scripted :class:`Reply` (or calls a scripted function of the
:class:`Request`); when the script is empty it answers with a well-formed default reply for the
path: chat text ``server.default_text``, or deterministic embeddings of the requested
``dimensions`` (8 if none). Every request is recorded in ``server.requests``, and the token usage
the server reported is summed in ``server.tokens_in`` / ``server.tokens_out``.

    with LLMServer() as server:
        server.script(Reply(status=500), Reply(text="hello", tokens_in=7, tokens_out=2))
        llm = OpenAIChat("m", base_url=server.openai_url)
        ...
        assert len(server.requests) == 2

``Reply(delay=...)`` waits before answering, which forces a client timeout when it is longer
than the client's; ``Reply(body="not json")`` sends a raw body.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = ["LLMServer", "Reply", "Request", "anthropic_body", "chat_body", "embeddings_body"]


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes

    @property
    def json(self) -> Any:
        """The body decoded as JSON (``None`` if it is not JSON)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass
class Reply:
    """One scripted answer.

    ``body``: a dict/list is sent as JSON, ``str``/``bytes`` as is; ``None`` means "the default
    reply for the path", in which ``text`` and the token counts (if given) are used.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    text: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None


Script = Reply | Callable[[Request], Reply]


def _tokens(text: str) -> int:
    return (len(text) + 3) // 4


def chat_body(text: str, *, model: str = "fake-model", tokens_in: int | None = None,
              tokens_out: int | None = None) -> dict[str, Any]:
    """An OpenAI chat-completions response; ``usage`` is left out if neither count is given."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
    }
    if tokens_in is not None or tokens_out is not None:
        body["usage"] = {"prompt_tokens": tokens_in or 0, "completion_tokens": tokens_out or 0,
                         "total_tokens": (tokens_in or 0) + (tokens_out or 0)}
    return body


def anthropic_body(text: str, *, model: str = "fake-model", tokens_in: int | None = None,
                   tokens_out: int | None = None) -> dict[str, Any]:
    """An Anthropic Messages response."""
    body: dict[str, Any] = {
        "id": "msg_test", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
    }
    if tokens_in is not None or tokens_out is not None:
        body["usage"] = {"input_tokens": tokens_in or 0, "output_tokens": tokens_out or 0}
    return body


def embeddings_body(vectors: list[list[float]], *, model: str = "fake-embedding",
                    tokens_in: int = 0) -> dict[str, Any]:
    """An OpenAI embeddings response with the vectors in order."""
    return {"object": "list", "model": model,
            "data": [{"object": "embedding", "index": i, "embedding": v}
                     for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": tokens_in, "total_tokens": tokens_in}}


def fake_vector(text: str, dim: int) -> list[float]:
    """A deterministic, text-dependent vector (not normalised, so clients must normalise)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(digest[i % len(digest)] - 127) for i in range(dim)]


class LLMServer:
    """The server; see the module docstring. Use as a context manager or start()/stop()."""

    def __init__(self, *, default_text: str = "ok") -> None:
        self.default_text = default_text
        self.requests: list[Request] = []
        self.tokens_in = 0
        self.tokens_out = 0
        self._script: deque[Script] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LLMServer:
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (the Anthropic-style base URL)."""
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """The OpenAI-style base URL, ending in ``/v1``."""
        return self.url + "/v1"

    # --- scripting ---------------------------------------------------------------------------
    def script(self, *replies: Script) -> None:
        """Queue replies (or functions of the request returning one) for the next requests."""
        with self._lock:
            self._script.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._script)

    def bodies(self) -> list[Any]:
        """The JSON bodies of all requests so far, in order."""
        return [r.json for r in self.requests]

    # --- answering (called from handler threads) ---------------------------------------------
    def _answer(self, request: Request) -> tuple[Reply, bytes]:
        with self._lock:
            self.requests.append(request)
            scripted = self._script.popleft() if self._script else Reply()
        reply = scripted(request) if callable(scripted) else scripted
        if reply.body is None:
            body: Any = self._default_body(request, reply) if reply.status < 400 else {
                "error": {"message": f"scripted status {reply.status}", "type": "test"}}
        else:
            body = reply.body
        if isinstance(body, Mapping):
            self._count(body)
        if isinstance(body, bytes):
            raw = body
        elif isinstance(body, str):
            raw = body.encode("utf-8")
        else:
            raw = json.dumps(body).encode("utf-8")
        return reply, raw

    def _default_body(self, request: Request, reply: Reply) -> Any:
        payload = request.json if isinstance(request.json, dict) else {}
        model = str(payload.get("model", "fake-model"))
        if request.path.endswith("/embeddings"):
            inputs = payload.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else list(inputs)
            dim = int(payload.get("dimensions", 8))
            return embeddings_body([fake_vector(str(t), dim) for t in inputs], model=model,
                                   tokens_in=sum(_tokens(str(t)) for t in inputs))
        text = self.default_text if reply.text is None else reply.text
        prompt = json.dumps(payload.get("messages", []), ensure_ascii=False)
        prompt += str(payload.get("system", ""))
        tokens_in = _tokens(prompt) if reply.tokens_in is None else reply.tokens_in
        tokens_out = _tokens(text) if reply.tokens_out is None else reply.tokens_out
        if request.path.endswith("/messages"):
            return anthropic_body(text, model=model, tokens_in=tokens_in, tokens_out=tokens_out)
        if request.path.endswith("/chat/completions"):
            return chat_body(text, model=model, tokens_in=tokens_in, tokens_out=tokens_out)
        return {"error": {"message": f"no such path {request.path}"}}

    def _count(self, body: Mapping[str, Any]) -> None:
        usage = body.get("usage")
        if not isinstance(usage, Mapping):
            return
        with self._lock:
            self.tokens_in += int(usage.get("prompt_tokens", usage.get("input_tokens", 0)))
            self.tokens_out += int(usage.get("completion_tokens",
                                             usage.get("output_tokens", 0)))


class _Handler(BaseHTTPRequestHandler):
    owner: LLMServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do

    def handle(self) -> None:
        try:
            super().handle()
        except ConnectionResetError:
            self.close_connection = True  # the client was killed mid-request: nobody to tell

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = Request(method=self.command, path=self.path,
                          headers={k.lower(): v for k, v in self.headers.items()},
                          body=self.rfile.read(length) if length else b"")
        reply, raw = self.owner._answer(request)
        if reply.delay and self.owner._stopping.wait(reply.delay):
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)
        except OSError:
            # The client gave up (e.g. it timed out during a delay); nothing to tell it.
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib's name)
        """Keep test output quiet."""
