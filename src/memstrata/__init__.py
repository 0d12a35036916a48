"""memstrata: layered long-term conversation memory for LLM agents.

The strata: the context window with a rolling summary, the full-text archive of every message,
semantic recall over recent messages, and a cross-session memory of tool errors.
"""

from ._context import Context
from ._sync import SyncErrors, SyncMemory, SyncTools
from .config import Settings
from .errormem import ErrorMemory
from .errors import (
    Closed,
    DatabaseCorrupt,
    DatabaseUnavailable,
    DiskFull,
    FlushTimeout,
    InvalidInput,
    KeyConflict,
    MemstrataError,
    NotFound,
    ProviderError,
    StoreError,
)
from .memory import Memory
from .tools import Tools
from .types import ErrorOutcome, ErrorRecord, Hit, Message, SessionInfo, SessionStats, Summary

__version__ = "0.1.0"

__all__ = [
    "Closed",
    "Context",
    "DatabaseCorrupt",
    "DatabaseUnavailable",
    "DiskFull",
    "ErrorMemory",
    "ErrorOutcome",
    "ErrorRecord",
    "FlushTimeout",
    "Hit",
    "InvalidInput",
    "KeyConflict",
    "Memory",
    "MemstrataError",
    "Message",
    "NotFound",
    "ProviderError",
    "SessionInfo",
    "SessionStats",
    "Settings",
    "StoreError",
    "Summary",
    "SyncErrors",
    "SyncMemory",
    "SyncTools",
    "Tools",
    "__version__",
]
