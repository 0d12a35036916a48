"""Settings: one frozen object with every default, validated when built.

The core only ever receives a ``Settings``; ``from_env`` and ``from_toml`` exist for the CLI and
the server, which are the only places that read files or the environment.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args, get_type_hints

from croniter import croniter  # type: ignore[import-untyped]

from ._compaction import CompactionPolicy
from .errors import InvalidInput

__all__ = ["ENV_PREFIX", "MAX_EMBED_WORKERS", "Settings", "check_cron"]

ENV_PREFIX = "MEMSTRATA_"
MAX_EMBED_WORKERS = 8
"""The most child processes ``embed_workers`` may ask for."""


def check_cron(expr: str, field: str = "summary_cron") -> str:
    """``expr`` stripped, or ``InvalidInput`` naming ``field`` when it is not a cron
    expression (five fields; a sixth, seconds, is accepted)."""
    if not isinstance(expr, str) or not expr.strip():
        raise InvalidInput(field, "must be a cron expression such as '*/15 * * * *' "
                           "(or None to turn the scheduler off)")
    text = " ".join(expr.split())
    if len(text.split(" ")) not in (5, 6) or not croniter.is_valid(text):
        raise InvalidInput(field, f"{expr!r} is not a valid cron expression; expected five "
                           "fields 'minute hour day-of-month month day-of-week', e.g. "
                           "'*/15 * * * *'")
    return text


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Every tunable of memstrata, with the documented defaults."""

    # window and content
    window_messages: int = 16
    max_content_chars: int = 10_000
    timezone: str = "UTC"
    # compaction of the hot tier
    compact_bytes: bool = True
    max_history_bytes: int = 4_194_304
    compact_ratio: float = 0.8
    compact_turns: bool = False
    max_turns: int = 101
    keep_turns: int = 20
    # storage
    durability: Literal["normal", "full"] = "normal"
    # models
    embedder: str | None = "local"
    summary_model: str | None = None
    decision_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    decision_base_url: str | None = None
    decision_api_key: str | None = None
    llm_max_retries: int = 3
    llm_timeout: float = 120.0
    # child processes embedding the indexer's batches (local models); None: 0 for a Memory,
    # 1 for memstrata serve
    embed_workers: int | None = None
    # summary
    reply_lang: str = "auto"
    summary_chunk_chars: int = 32_000
    # max_tokens of the model calls; None: what the reply's JSON Schema can hold
    summary_max_tokens: int | None = None
    decision_max_tokens: int | None = None
    max_key_decisions: int = 8
    max_past_discussions: int = 8
    noise_confidence: float = 0.7
    summary_cron: str | None = "*/15 * * * *"
    # search
    expand_before: int = 2
    expand_after: int = 1
    search_limit: int = 8
    search_limit_max: int = 32
    search_min_score: float | None = None
    ranker: Literal["learned", "fusion"] = "learned"
    # error memory
    error_limit: int = 4
    error_limit_max: int = 16
    error_ttl_days: int = 90
    error_min_similarity: float = 0.35
    # lifecycle
    temp_idle_minutes: int = 30
    vector_cache_mb: int = 256
    # service limits (memstrata serve), for keys that set none of their own
    key_rate_per_second: float | None = None
    tenant_messages_per_day: int | None = None
    tenant_stored_bytes: int | None = None
    max_open_tenants: int = 1000

    def __post_init__(self) -> None:
        _check_types(self)
        _positive(self, "window_messages", "max_content_chars", "max_history_bytes",
                  "max_turns", "keep_turns", "summary_chunk_chars", "search_limit",
                  "search_limit_max", "error_limit", "error_limit_max", "error_ttl_days",
                  "temp_idle_minutes", "vector_cache_mb", "max_open_tenants")
        _non_negative(self, "llm_max_retries", "expand_before", "expand_after",
                      "max_key_decisions", "max_past_discussions")
        if self.embed_workers is not None and not 0 <= self.embed_workers <= MAX_EMBED_WORKERS:
            raise InvalidInput("embed_workers", f"must be a whole number from 0 to "
                               f"{MAX_EMBED_WORKERS} or None (0 for a Memory, 1 for memstrata "
                               f"serve), got {self.embed_workers!r}")
        if not self.llm_timeout > 0:
            raise InvalidInput("llm_timeout", f"must be a positive number of seconds, got "
                               f"{self.llm_timeout!r}")
        for name in ("summary_max_tokens", "decision_max_tokens"):
            if getattr(self, name) is not None and getattr(self, name) <= 0:
                raise InvalidInput(name, f"must be a positive integer or None (None: what the "
                                   f"reply's schema can hold), got {getattr(self, name)!r}")
        for name in ("key_rate_per_second", "tenant_messages_per_day", "tenant_stored_bytes"):
            if getattr(self, name) is not None and getattr(self, name) <= 0:
                raise InvalidInput(name, f"must be positive or None (no limit), got "
                                   f"{getattr(self, name)!r}")
        if not 0.0 < self.compact_ratio < 1.0:
            raise InvalidInput("compact_ratio", f"must be between 0 and 1 (exclusive), got "
                               f"{self.compact_ratio!r}")
        if not 0.0 <= self.noise_confidence <= 1.0:
            raise InvalidInput("noise_confidence", "must be between 0 and 1")
        if self.search_min_score is not None and not -1.0 <= self.search_min_score <= 1.0:
            raise InvalidInput("search_min_score", "must be a number from -1 to 1 (a "
                               "probability for the learned ranker, a similarity for the "
                               "fusion; -1: no floor)")
        if self.ranker not in ("learned", "fusion"):
            raise InvalidInput("ranker", f"must be 'learned' or 'fusion', got "
                               f"{self.ranker!r}")
        if not -1.0 <= self.error_min_similarity <= 1.0:
            raise InvalidInput("error_min_similarity", "must be a cosine between -1 and 1")
        if self.durability not in ("normal", "full"):
            raise InvalidInput("durability", f"must be 'normal' or 'full', got "
                               f"{self.durability!r}")
        if self.keep_turns < self.window_messages:
            raise InvalidInput("keep_turns", f"must be at least window_messages "
                               f"({self.window_messages}), got {self.keep_turns}")
        if self.keep_turns >= self.max_turns:
            raise InvalidInput("keep_turns", f"must be below max_turns ({self.max_turns})")
        if self.search_limit > self.search_limit_max:
            raise InvalidInput("search_limit", "must not exceed search_limit_max")
        if self.error_limit > self.error_limit_max:
            raise InvalidInput("error_limit", "must not exceed error_limit_max")
        if self.summary_cron is not None:
            check_cron(self.summary_cron)
        try:
            zoneinfo.ZoneInfo(self.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            raise InvalidInput("timezone", f"unknown IANA time zone {self.timezone!r} "
                               "(e.g. 'UTC', 'Asia/Taipei')") from exc

    def compaction(self) -> CompactionPolicy:
        """The compaction policy these settings describe."""
        return CompactionPolicy(by_bytes=self.compact_bytes, max_bytes=self.max_history_bytes,
                                ratio=self.compact_ratio, by_turns=self.compact_turns,
                                max_turns=self.max_turns, keep_turns=self.keep_turns)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (validated again)."""
        unknown = sorted(set(changes) - _FIELD_NAMES)
        if unknown:
            raise InvalidInput(unknown[0], f"unknown setting; known: {_KNOWN}")
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Settings:
        """Build from a mapping of field names (e.g. a parsed TOML table)."""
        unknown = sorted(set(values) - _FIELD_NAMES)
        if unknown:
            raise InvalidInput(unknown[0], f"unknown setting; known: {_KNOWN}")
        return cls(**dict(values))

    @classmethod
    def from_toml(cls, path: str | Path) -> Settings:
        """Read a TOML file; its keys are field names (optionally under a ``[memstrata]`` table)."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise InvalidInput("config", f"cannot read TOML file {str(path)!r}: {exc}") from exc
        table = data.get("memstrata", data)
        if not isinstance(table, dict):
            raise InvalidInput("config", "the [memstrata] entry must be a table")
        return cls.from_mapping(table)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None,
                 base: Settings | None = None) -> Settings:
        """Apply ``MEMSTRATA_<FIELD>`` variables on top of ``base`` (default: the defaults)."""
        env = os.environ if environ is None else environ
        changes: dict[str, Any] = {}
        for name in _FIELD_NAMES:
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is not None:
                changes[name] = _parse_env(name, raw)
        return (base or cls()).replace(**changes) if changes else (base or cls())


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Settings))
_KNOWN = ", ".join(sorted(_FIELD_NAMES))
_HINTS = get_type_hints(Settings)
_NONE_WORDS = {"", "none", "null", "off"}


def _parse_env(name: str, raw: str) -> Any:
    hint = _HINTS[name]
    text = raw.strip()
    if name == "embed_workers":
        return _parse_workers(raw)
    optional = "None" in str(hint)
    if optional and text.lower() in _NONE_WORDS:
        return None
    # `int | None` and `float | None` parse as their number type.
    inner = [arg for arg in get_args(hint) if arg is not type(None)]
    if optional and len(inner) == 1:
        hint = inner[0]
    if hint is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise InvalidInput(ENV_PREFIX + name.upper(), f"must be true or false, got {raw!r}")
    try:
        if hint is int:
            return int(text)
        if hint is float:
            return float(text)
    except ValueError as exc:
        raise InvalidInput(ENV_PREFIX + name.upper(), f"must be a number, got {raw!r}") from exc
    return text


def _parse_workers(raw: str) -> int | None:
    """``MEMSTRATA_EMBED_WORKERS``: a count, or ``auto`` (or empty) for the default. Words
    such as ``off`` or ``none`` are refused rather than read as the default, which for the
    service is one worker, not none."""
    text = raw.strip().lower()
    if text in ("", "auto"):
        return None
    if text.isdigit() and int(text) <= MAX_EMBED_WORKERS:
        return int(text)
    raise InvalidInput(ENV_PREFIX + "EMBED_WORKERS", f"must be a whole number from 0 to "
                       f"{MAX_EMBED_WORKERS} (0: embed in the process) or 'auto' (0 for a "
                       f"Memory, 1 for memstrata serve), got {raw!r}")


def _check_types(s: Settings) -> None:
    for name in _FIELD_NAMES:
        value = getattr(s, name)
        hint = str(_HINTS[name])
        if value is None:
            if "None" not in hint:
                raise InvalidInput(name, "must not be None")
            continue
        if "bool" in hint:
            ok = isinstance(value, bool)
        elif "int" in hint:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif "float" in hint:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise InvalidInput(name, f"has the wrong type ({type(value).__name__}); "
                               f"expected {_type_name(hint)}")


def _positive(s: Settings, *names: str) -> None:
    for name in names:
        if getattr(s, name) <= 0:
            raise InvalidInput(name, f"must be a positive integer, got {getattr(s, name)!r}")


def _non_negative(s: Settings, *names: str) -> None:
    for name in names:
        if getattr(s, name) < 0:
            raise InvalidInput(name, f"must be zero or more, got {getattr(s, name)!r}")


def _type_name(hint: str) -> str:
    return hint.replace("typing.", "").replace("<class '", "").replace("'>", "")
