"""Opening a Memory: the target (path or URL), the models the settings name, and the
awaitable / ``async with`` handle that ``Memory.open`` returns. No I/O happens here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .config import Settings
from .errors import InvalidInput
from .providers.base import LLM, Embedder
from .providers.registry import make_embedder, make_llm

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["UNSET", "Models", "Opening", "Unset", "choose_models", "open_target"]


class Unset:
    """Marks an argument that was not passed (``None`` means "none", not "default")."""


UNSET = Unset()



def open_target(target: str) -> str:
    """A SQLite path from a path or URL; other schemes are refused with the supported ones."""
    if target == ":memory:":
        return target
    if "://" in target:
        scheme, _, rest = target.partition("://")
        if scheme != "sqlite":
            raise InvalidInput("target", f"unsupported database URL scheme {scheme!r}; use a "
                               "file path, ':memory:' or sqlite:///path/to/file.db")
        path = rest[1:] if rest.startswith("/") else rest
        if rest.startswith("//"):
            path = rest[1:]  # sqlite:////abs/path -> /abs/path
        if not path:
            raise InvalidInput("target", "the sqlite URL names no file")
        return path
    if not target:
        raise InvalidInput("target", "must be a file path, ':memory:' or a sqlite:/// URL")
    return target


class Opening:
    """``Memory.open(...)``: awaitable, and usable as ``async with``."""

    def __init__(self, make: Callable[[], Awaitable[Memory]]) -> None:
        self._make = make
        self._memory: Memory | None = None

    def __await__(self) -> Generator[Any, None, Memory]:
        return self._make().__await__()

    async def __aenter__(self) -> Memory:
        self._memory = await self._make()
        return self._memory

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._memory is not None:
            await self._memory.close()


Models = tuple[Embedder | None, LLM | None, LLM | None]


def choose_models(settings: Settings, embedder: Embedder | Unset | None,
                  llm: LLM | Unset | None, decision_llm: LLM | Unset | None) -> Models:
    """The embedder, summary model and decision model: those passed in, else those named by
    the settings (built without I/O; the local model loads on its first use)."""
    if isinstance(embedder, Unset):
        embedder = (make_embedder(settings.embedder, base_url=settings.llm_base_url,
                                  api_key=settings.llm_api_key,
                                  max_retries=settings.llm_max_retries)
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
                    max_retries=settings.llm_max_retries, field=field)
