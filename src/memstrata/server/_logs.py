"""The service's log on stderr: plain text lines for people, or JSON lines for collectors.

Both are plain ``logging`` configurations that replace whatever handler a library put on the
root logger before (the MCP SDK installs one that renders tracebacks with syntax highlighting,
which took the event loop for most of a second per failed request during a database outage).
A text line reads ``2026-12-03T13:49:24Z ERROR memstrata.server: …``, a traceback below it
as plain text.

A JSON line holds ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``; an access
record adds ``client``, ``method``, ``path`` and ``status``, and a record with an exception
its traceback as ``exception``. A line break inside a message stays inside its JSON string,
so a record is always one line.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

__all__ = ["JsonLines", "json_log_config", "text_log_config"]

_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class JsonLines(logging.Formatter):
    """A ``logging.Formatter`` writing each record as one JSON object."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat().replace(
                "+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and \
                len(args) == len(_ACCESS_FIELDS):
            out.update(zip(_ACCESS_FIELDS, args, strict=True))
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class TextLines(logging.Formatter):
    """``time LEVEL logger: message``, the time in UTC."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s",
                         datefmt="%Y-%m-%dT%H:%M:%SZ")

    def formatTime(self, record: logging.LogRecord,
                   datefmt: str | None = None) -> str:
        return time.strftime(datefmt or "%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created))


def json_log_config(level: str = "INFO") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` (and uvicorn ``log_config``) that writes every record
    of uvicorn, memstrata and anything else as JSON lines on stderr."""
    return _config(JsonLines, level)


def text_log_config(level: str = "INFO") -> dict[str, Any]:
    """The same as :func:`json_log_config`, as plain text lines."""
    return _config(TextLines, level)


def _config(formatter: type[logging.Formatter], level: str) -> dict[str, Any]:
    handler = {"class": "logging.StreamHandler", "formatter": "lines",
               "stream": "ext://sys.stderr"}
    quiet = {"handlers": ["lines"], "level": level, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"lines": {"()": formatter}},
        "handlers": {"lines": handler},
        "loggers": {"uvicorn": quiet, "uvicorn.error": quiet, "uvicorn.access": quiet,
                    "memstrata": quiet},
        "root": {"handlers": ["lines"], "level": "WARNING"},
    }
