"""Provider names → provider objects: the one place that knows ``"openai:..."`` means
``OpenAIEmbedder``.

A name is ``prefix`` or ``prefix:rest``; the prefix picks a factory and ``rest`` (possibly empty)
is handed to it inside a :class:`ProviderSpec`. Built-ins are registered at the bottom of this
module with the same ``register_*`` calls a third-party package would use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidInput
from ._anthropic import AnthropicChat
from ._base import LLM, Embedder
from ._fake import FakeLLM
from ._hashing import HashEmbedder
from ._local import DEFAULT_LOCAL_MODEL, LocalEmbedder
from ._openai import DEFAULT_EMBEDDING_MODEL, OpenAIChat, OpenAIEmbedder

__all__ = [
    "EmbedderFactory",
    "LLMFactory",
    "ProviderSpec",
    "embedder_names",
    "llm_names",
    "make_embedder",
    "make_llm",
    "register_embedder",
    "register_llm",
]

DEFAULT_TIMEOUT = 120.0


@dataclass(frozen=True, kw_only=True)
class ProviderSpec:
    """What a factory gets: the full ``name``, the part after the prefix (``model``, ``""`` if
    none), where the provider is, and how patient to be."""

    name: str
    model: str
    base_url: str | None = None
    api_key: str | None = None
    max_retries: int = 3
    timeout: float = DEFAULT_TIMEOUT
    field: str = "embedder"
    workers: int = 0
    """Child processes for background embedding (local models only; others ignore it)."""


EmbedderFactory = Callable[[ProviderSpec], Embedder]
LLMFactory = Callable[[ProviderSpec], LLM]

_EMBEDDERS: dict[str, EmbedderFactory] = {}
_LLMS: dict[str, LLMFactory] = {}


def _check_prefix(prefix: str) -> None:
    if not prefix or ":" in prefix or prefix != prefix.strip():
        raise InvalidInput("prefix", f"must be a non-empty word without ':', got {prefix!r}")


def register_embedder(prefix: str, factory: EmbedderFactory) -> None:
    """Make ``make_embedder("<prefix>:...")`` call ``factory``; replaces an earlier entry."""
    _check_prefix(prefix)
    _EMBEDDERS[prefix] = factory


def register_llm(prefix: str, factory: LLMFactory) -> None:
    """Make ``make_llm("<prefix>:...")`` call ``factory``; replaces an earlier entry."""
    _check_prefix(prefix)
    _LLMS[prefix] = factory


def embedder_names() -> list[str]:
    """The registered embedder prefixes, sorted."""
    return sorted(_EMBEDDERS)


def llm_names() -> list[str]:
    """The registered LLM prefixes, sorted."""
    return sorted(_LLMS)


def _split(name: object, field: str, kind: str, known: list[str]) -> tuple[str, str]:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(field, f"must be a {kind} name such as '{known[0]}:...'; "
                           f"known: {', '.join(known)}")
    prefix, _, rest = name.strip().partition(":")
    if prefix not in known:
        raise InvalidInput(field, f"unknown {kind} {name!r}; known: {', '.join(known)}")
    return prefix, rest


def make_embedder(name: str, *, base_url: str | None = None, api_key: str | None = None,
                  max_retries: int = 3, timeout: float = DEFAULT_TIMEOUT,
                  workers: int = 0) -> Embedder:
    """Build the embedder called ``name`` (e.g. ``"local"``, ``"hash:64"``,
    ``"openai:text-embedding-3-small@256"``). ``workers``: child processes that embed
    background batches, for the local models (``Settings.embed_workers``). Does no I/O."""
    prefix, rest = _split(name, "embedder", "embedder", embedder_names())
    spec = ProviderSpec(name=name.strip(), model=rest, base_url=base_url, api_key=api_key,
                        max_retries=max_retries, timeout=timeout, field="embedder",
                        workers=workers)
    return _EMBEDDERS[prefix](spec)


def make_llm(name: str, *, base_url: str | None = None, api_key: str | None = None,
             max_retries: int = 3, timeout: float = DEFAULT_TIMEOUT,
             field: str = "summary_model") -> LLM:
    """Build the chat model called ``name`` (e.g. ``"openai:gpt-4o-mini"``,
    ``"anthropic:claude-haiku-4-5"``, ``"fake"``). ``field`` names the setting in errors
    (``"summary_model"`` or ``"decision_model"``). Does no I/O."""
    prefix, rest = _split(name, field, "LLM", llm_names())
    spec = ProviderSpec(name=name.strip(), model=rest, base_url=base_url, api_key=api_key,
                        max_retries=max_retries, timeout=timeout, field=field)
    return _LLMS[prefix](spec)


# --- built-ins, registered like anyone else's -------------------------------------------------

def _local(spec: ProviderSpec) -> Embedder:
    return LocalEmbedder(spec.model or DEFAULT_LOCAL_MODEL, workers=spec.workers)


def _hash(spec: ProviderSpec) -> Embedder:
    if not spec.model:
        return HashEmbedder()
    if not spec.model.isdigit() or not 8 <= int(spec.model) <= 4096:
        raise InvalidInput(spec.field, f"'hash:<dim>' needs a whole number from 8 to 4096, "
                           f"got {spec.name!r}")
    return HashEmbedder(int(spec.model))


def _openai_embedder(spec: ProviderSpec) -> Embedder:
    model, _, dim_text = (spec.model or DEFAULT_EMBEDDING_MODEL).partition("@")
    if dim_text and not dim_text.isdigit():
        raise InvalidInput(spec.field, f"'@<dim>' must be a whole number in {spec.name!r}")
    return OpenAIEmbedder(model or DEFAULT_EMBEDDING_MODEL,
                          dim=int(dim_text) if dim_text else None, base_url=spec.base_url,
                          api_key=spec.api_key, max_retries=spec.max_retries,
                          timeout=spec.timeout)


def _need_model(spec: ProviderSpec, example: str) -> str:
    if not spec.model:
        raise InvalidInput(spec.field, f"{spec.name!r} names no model; e.g. {example!r}")
    return spec.model


def _openai_chat(spec: ProviderSpec) -> LLM:
    return OpenAIChat(_need_model(spec, "openai:gpt-4o-mini"), base_url=spec.base_url,
                      api_key=spec.api_key, max_retries=spec.max_retries, timeout=spec.timeout)


def _anthropic_chat(spec: ProviderSpec) -> LLM:
    return AnthropicChat(_need_model(spec, "anthropic:claude-haiku-4-5"), base_url=spec.base_url,
                         api_key=spec.api_key, max_retries=spec.max_retries,
                         timeout=spec.timeout)


def _fake_llm(spec: ProviderSpec) -> LLM:
    # Named by a setting, nobody scripts it: answer every call with an empty JSON object, which
    # is valid both as text and in json_mode.
    return FakeLLM(default="{}", model_id=spec.name)


register_embedder("local", _local)
register_embedder("hash", _hash)
register_embedder("openai", _openai_embedder)
register_llm("openai", _openai_chat)
register_llm("anthropic", _anthropic_chat)
register_llm("fake", _fake_llm)
