"""The seams to models: ``Embedder`` (texts → unit vectors) and ``LLM`` (messages → text).

Import from here. Providers are built by name with :func:`make_embedder` / :func:`make_llm`;
new ones are added with :func:`register_embedder` / :func:`register_llm`.
"""

from __future__ import annotations

from ._anthropic import AnthropicChat
from ._base import LLM, Completion, Embedder, ReplySchema, Vectors, estimate_tokens
from ._fake import FakeCall, FakeLLM
from ._formats import forget_refusals
from ._hashing import HashEmbedder
from ._lane import ModelGate, background, foreground, searches_in_progress
from ._local import LOCAL_MODELS, LocalEmbedder, LocalModel, children_of
from ._openai import OpenAIChat, OpenAIEmbedder
from ._process import EmbedChildren
from ._registry import (
    EmbedderFactory,
    LLMFactory,
    ProviderSpec,
    embedder_names,
    llm_names,
    make_embedder,
    make_llm,
    register_embedder,
    register_llm,
)
from ._retry import RetryPolicy
from ._threads import blas_threads

__all__ = [
    "LLM",
    "LOCAL_MODELS",
    "AnthropicChat",
    "Completion",
    "EmbedChildren",
    "Embedder",
    "EmbedderFactory",
    "FakeCall",
    "FakeLLM",
    "HashEmbedder",
    "LLMFactory",
    "LocalEmbedder",
    "LocalModel",
    "ModelGate",
    "OpenAIChat",
    "OpenAIEmbedder",
    "ProviderSpec",
    "ReplySchema",
    "RetryPolicy",
    "Vectors",
    "background",
    "blas_threads",
    "children_of",
    "embedder_names",
    "estimate_tokens",
    "foreground",
    "forget_refusals",
    "llm_names",
    "make_embedder",
    "make_llm",
    "register_embedder",
    "register_llm",
    "searches_in_progress",
]
