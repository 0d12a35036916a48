"""What every embedder needs around its model call: checking the input, splitting it into
batches, and checking and normalising what comes back.

A provider implements only "embed this one batch"; :func:`embed_batched` does the rest, so the
guarantees of ``Embedder.embed`` (float32, ``(n, dim)``, unit rows) hold for every provider.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidInput, ProviderError
from ._base import Vectors

__all__ = ["check_texts", "embed_batched", "normalise_rows"]


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list, or ``InvalidInput`` if they are not a sequence of strings."""
    if isinstance(texts, str):
        # A bare string is a sequence of characters; embedding each one is never what was meant.
        raise InvalidInput("texts", "must be a list of strings, not a single string")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise InvalidInput(f"texts[{i}]", f"must be a string, got {type(text).__name__}")
    return items


def normalise_rows(matrix: Any, *, dim: int, provider: str) -> Vectors:
    """``matrix`` as float32 ``(n, dim)`` with unit rows; all-zero rows stay zero.

    Raises ``ProviderError`` if the shape is wrong or a value is not finite, so a broken model or
    server never puts garbage into the store.
    """
    array = np.asarray(matrix, dtype=np.float32)
    if array.ndim != 2 or array.shape[1] != dim:
        raise ProviderError(f"{provider}: expected vectors of shape (n, {dim}), "
                            f"got {array.shape}")
    if not np.isfinite(array).all():
        raise ProviderError(f"{provider}: the model returned non-finite values")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    np.divide(array, norms, out=array, where=norms > 0)
    return array


async def embed_batched(
    texts: Sequence[str],
    embed_batch: Callable[[list[str]], Awaitable[Any]],
    *,
    dim: int,
    batch_size: int,
    provider: str,
) -> Vectors:
    """Embed ``texts`` by calling ``embed_batch`` on slices of at most ``batch_size`` texts.

    ``embed_batch`` returns anything ``numpy.asarray`` accepts with one row per text.
    """
    items = check_texts(texts)
    if not items:
        return np.zeros((0, dim), dtype=np.float32)
    parts: list[Vectors] = []
    for start in range(0, len(items), batch_size):
        batch = items[start:start + batch_size]
        part = normalise_rows(await embed_batch(batch), dim=dim, provider=provider)
        if part.shape[0] != len(batch):
            raise ProviderError(f"{provider}: sent {len(batch)} texts, got "
                                f"{part.shape[0]} vectors back")
        parts.append(part)
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
