"""Trimming a summary to what matters for the next user input (decision model; no SQL).

Before a turn, the decision model may pick the ``key_decisions``, ``past_discussions`` and
``current_discussion`` entries relevant to the new input, so the context carries less. Failure
is never fatal here: without a model, without a query, or when the call or its reply fails, the
whole summary is kept. When the model finds nothing relevant, the result is ``None`` and the
caller leaves the summary block out.

General rules about the reply's language, format or workflow are always relevant: a key
decision that :func:`is_general_rule` recognises (by keywords, in English and Chinese) is kept
whatever the model picked, so a model that forgets the rule cannot drop it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ProviderError
from ..providers import LLM
from ._prompts import relevance_system_prompt, relevance_user_message
from ._schema import CURRENT, DECISIONS, PAST, first_object
from ._shapes import relevance_schema, token_bound

__all__ = ["Relevance", "is_general_rule", "select_relevant"]

log = logging.getLogger(__name__)

# Words that make a key decision a rule about how to reply rather than about a topic. English
# matches whole words, case-insensitively; Chinese and Japanese match as substrings. Words that
# also name everyday things ("table", "length", "Japanese food") are left out on purpose.
_GENERAL_WORDS = re.compile(r"\b(?:" + "|".join([
    # replying at all
    r"repl(?:y|ies|ied|ying)", r"respon(?:d|ds|ded|ding|se|ses)", r"answer(?:s|ed|ing)?",
    # language
    r"languages?", r"(?:traditional|simplified) chinese",
    r"in (?:english|chinese|mandarin|cantonese|taiwanese|japanese|korean|french|german|"
    r"spanish)",
    # format
    r"format(?:s|ted|ting)?", r"markdown", r"bullet(?:s| points?)?", r"json", r"code blocks?",
    r"headings?", r"emojis?", r"concise", r"verbose", r"tone", r"word count",
    # workflow
    r"workflow", r"step[- ]by[- ]step", r"always", r"every time", r"from now on",
    r"before (?:answering|replying|responding)", r"ask (?:me )?(?:first|before)",
    r"confirm (?:with me )?(?:first|before)",
]) + r")\b", re.IGNORECASE)
_GENERAL_CJK = (
    # language
    "語言", "语言", "中文", "英文", "日文", "繁體", "繁体", "簡體", "简体", "日本語",
    # format
    "格式", "條列", "条列", "列點", "表情符號", "表情符号", "語氣", "语气", "簡潔", "简洁",
    "精簡", "精简", "字數", "字数", "箇条書き", "形式",
    # replying and workflow
    "回答", "回覆", "回复", "回應", "回应", "返信", "流程", "步驟", "步骤", "每次", "一律",
    "總是", "总是",
)


def is_general_rule(decision: object) -> bool:
    """Whether a key decision is a general rule about the reply's language, format or
    workflow (always relevant), judged by its words: e.g. ``Do: answer in Traditional
    Chinese``, ``Don't: use emojis``, ``Do: 回覆一律用繁體中文``."""
    if not isinstance(decision, str):
        return False
    return bool(_GENERAL_WORDS.search(decision)) or any(w in decision for w in _GENERAL_CJK)


@dataclass(frozen=True, kw_only=True)
class Relevance:
    """The trimmed summary (``None``: nothing relevant), whether the model's answer was used,
    and the tokens the call cost."""

    body: dict[str, Any] | None
    filtered: bool
    tokens_in: int = 0
    tokens_out: int = 0


def _picked(value: object, size: int) -> set[int] | None:
    """1-based numbers → 0-based indices; ``None`` when the value is not a list."""
    if not isinstance(value, list):
        return None
    out: set[int] = set()
    for item in value:
        if isinstance(item, bool):
            continue
        number = item if isinstance(item, int) else None
        if isinstance(item, str) and item.strip().isdigit():
            number = int(item.strip())
        if number is not None and 1 <= number <= size:
            out.add(number - 1)
    return out


def _trim(summary: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any] | None:
    """Apply the model's answer; ``ValueError`` when it does not have the expected shape."""
    decisions = list(summary.get(DECISIONS) or [])
    past = list(summary.get(PAST) or [])
    keep_decisions = _picked(answer.get(DECISIONS, []), len(decisions))
    keep_past = _picked(answer.get(PAST, []), len(past))
    keep_current = answer.get(CURRENT, False)
    if keep_decisions is None or keep_past is None or not isinstance(keep_current, bool):
        raise ValueError("the relevance reply has the wrong shape")
    keep_decisions |= {i for i, d in enumerate(decisions) if is_general_rule(d)}
    trimmed = dict(summary)
    trimmed[DECISIONS] = [d for i, d in enumerate(decisions) if i in keep_decisions]
    trimmed[PAST] = [p for i, p in enumerate(past) if i in keep_past]
    trimmed[CURRENT] = (summary.get(CURRENT) or {}) if keep_current else {}
    if not trimmed[DECISIONS] and not trimmed[PAST] and not trimmed[CURRENT]:
        return None
    return trimmed


def _has_entries(summary: Mapping[str, Any]) -> bool:
    return bool(summary.get(DECISIONS) or summary.get(PAST) or summary.get(CURRENT))


async def select_relevant(summary: Mapping[str, Any] | None, query: str | None,
                          llm: LLM | None, *, max_tokens: int | None = None) -> Relevance:
    """The parts of ``summary`` relevant to ``query``, as judged by ``llm``.

    A digest (``{"text": …}``) or an empty summary has no entries to choose from and is
    returned as is, without a call. ``max_tokens`` caps the reply (``None``: what its schema
    can hold); a reply cut there keeps the whole summary.
    """
    if summary is None:
        return Relevance(body=None, filtered=False)
    whole = dict(summary)
    if llm is None or not query or not query.strip() or not _has_entries(summary):
        return Relevance(body=whole, filtered=False)
    schema = relevance_schema(decisions=len(summary.get(DECISIONS) or []),
                              past=len(summary.get(PAST) or []))
    limit = max_tokens or token_bound(schema)
    try:
        reply = await llm.complete(
            [{"role": "user", "content": relevance_user_message(summary, query)}],
            system=relevance_system_prompt(), max_tokens=limit, json_mode=True, schema=schema)
    except ProviderError as exc:
        log.warning("relevance filter failed, keeping the whole summary: %s", exc)
        return Relevance(body=whole, filtered=False)
    try:
        if reply.truncated:
            raise ValueError(f"the relevance reply was cut at max_tokens={limit}")
        body = _trim(summary, first_object(reply.text))
    except ValueError as exc:
        log.warning("relevance reply unusable, keeping the whole summary: %s", exc)
        return Relevance(body=whole, filtered=False, tokens_in=reply.tokens_in,
                         tokens_out=reply.tokens_out)
    return Relevance(body=body, filtered=True, tokens_in=reply.tokens_in,
                     tokens_out=reply.tokens_out)
