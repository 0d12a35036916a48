"""The service's log as JSON lines: one object per record, for log collectors.

Each line holds ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``; an access
record adds ``client``, ``method``, ``path`` and ``status``, and a record with an exception
its traceback as ``exception``. A line break inside a message stays inside its JSON string,
so a record is always one line.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

__all__ = ["JsonLines", "json_log_config"]

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


def json_log_config(level: str = "INFO") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` (and uvicorn ``log_config``) that writes every record
    of uvicorn, memstrata and anything else as JSON lines on stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json",
               "stream": "ext://sys.stderr"}
    quiet = {"handlers": ["json"], "level": level, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLines}},
        "handlers": {"json": handler},
        "loggers": {"uvicorn": quiet, "uvicorn.error": quiet, "uvicorn.access": quiet,
                    "memstrata": quiet},
        "root": {"handlers": ["json"], "level": "WARNING"},
    }
