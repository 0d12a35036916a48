"""Opening a Memory: the models the settings name, and the awaitable / ``async with`` handle
that ``Memory.open`` returns. No I/O happens here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

from .config import Settings
from .providers import LLM, Embedder, make_embedder, make_llm

__all__ = ["UNSET", "Models", "Opening", "Unset", "choose_models"]


class Unset:
    """Marks an argument that was not passed (``None`` means "none", not "default")."""

    def __repr__(self) -> str:
        return "<from settings>"  # what help() shows as the default


UNSET = Unset()


class Closable(Protocol):
    async def close(self) -> None: ...


C = TypeVar("C", bound=Closable)


class Opening(Generic[C]):
    """``Memory.open(...)``: awaitable, and usable as ``async with`` (which closes it).

    It is not a coroutine: ``asyncio.run`` refuses it, and its error shows this object's
    ``repr``, which says what to write instead (a memory opened by ``asyncio.run`` would
    outlive the event loop it was opened on). Event-loop helpers that take any awaitable
    (``run_until_complete``, ``gather``, ``wait_for``) accept it."""

    def __init__(self, make: Callable[[], Awaitable[C]], name: str = "Memory.open(...)") -> None:
        self._make = make
        self._name = name
        self._opened: C | None = None

    def __await__(self) -> Generator[Any, None, C]:
        return self._make().__await__()

    def __repr__(self) -> str:
        return (f"{self._name}, which is not run on its own: inside a coroutine write `mem = "
                f"await {self._name}` or `async with {self._name} as mem:`; without asyncio "
                "use memstrata.SyncMemory.open(...), which runs the memory on a thread of its "
                "own")

    async def __aenter__(self) -> C:
        self._opened = await self._make()
        return self._opened

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._opened is not None:
            await self._opened.close()


Models = tuple[Embedder | None, LLM | None, LLM | None]


def choose_models(settings: Settings, embedder: Embedder | Unset | None,
                  llm: LLM | Unset | None, decision_llm: LLM | Unset | None) -> Models:
    """The embedder, summary model and decision model: those passed in, else those named by
    the settings (built without I/O; the local model loads on its first use)."""
    if isinstance(embedder, Unset):
        embedder = (make_embedder(settings.embedder, base_url=settings.llm_base_url,
                                  api_key=settings.llm_api_key,
                                  max_retries=settings.llm_max_retries,
                                  workers=settings.embed_workers or 0)
                    if settings.embedder is not None else None)
    chosen_llm = _model(llm, settings.summary_model, settings.llm_base_url,
                        settings.llm_api_key, settings, "summary_model")
    chosen_decision = _model(decision_llm, settings.decision_model,
                             settings.decision_base_url or settings.llm_base_url,
                             settings.decision_api_key or settings.llm_api_key, settings,
                             "decision_model")
    return embedder, chosen_llm, chosen_decision


def _model(given: LLM | Unset | None, name: str | None, base_url: str | None,
           api_key: str | None, settings: Settings, field: str) -> LLM | None:
    """The LLM passed in, else the one the settings name (no I/O happens here)."""
    if not isinstance(given, Unset):
        return given
    if name is None:
        return None
    return make_llm(name, base_url=base_url, api_key=api_key,
                    max_retries=settings.llm_max_retries, timeout=settings.llm_timeout,
                    field=field)
