"""Dates named in a search query, and how well a message's time fits them (pure).

"What did we do on 8 May, 2023?", "in June", "last summer in 2022": a conversational query that
names a date is usually about what was said then. :func:`query_time_spans` finds the dates
(English month names and numeric years), :func:`time_prior` scores message times against them.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

__all__ = ["TimeSpan", "query_time_spans", "time_prior"]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

_DAY_NS = 86_400 * 10**9
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MON = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_DATE_FORMS = [  # (pattern, (day group, month group, year group)); most specific first
    (re.compile(rf"\b{_ORD}\s+(?:of\s+)?{_MON},?\s+{_YEAR}\b", re.I), (1, 2, 3)),
    (re.compile(rf"\b{_MON}\s+{_ORD},?\s+{_YEAR}\b", re.I), (2, 1, 3)),
    (re.compile(rf"\b{_MON},?\s+{_YEAR}\b", re.I), (0, 1, 2)),
    (re.compile(rf"\b{_ORD}\s+(?:of\s+)?{_MON}\b", re.I), (1, 2, 0)),
    (re.compile(rf"\b{_MON}\s+{_ORD}\b(?!:)", re.I), (2, 1, 0)),
    (re.compile(rf"\b{_YEAR}\b"), (0, 0, 1)),
    # A bare month name must be capitalised: "May" the month, not "may" the verb.
    (re.compile("(" + "|".join(m for m in calendar.month_name if m) + r")\b"),
     (0, 1, 0)),
]

# "as of May 2023", "before June": a bound on the time, not the time of the event asked about.
_BOUND = re.compile(r"\b(?:as\s+of|since|until|till)\s+(?:the\s+)?$", re.I)


@dataclass(frozen=True)
class TimeSpan:
    """A date or period named in a query: ``year``/``month``/``day`` (0 when not given).

    A span with no year matches that month (and day) in any year.
    """

    year: int = 0
    month: int = 0
    day: int = 0


def query_time_spans(query: str) -> list[TimeSpan]:
    """The dates, months and years a query names ("on 8 May, 2023", "in June", "2022").

    A bare month name counts only when capitalised and spelt in full. A date right after
    "as of", "since" or "until" bounds the time rather than naming it, so it is left out. A day
    and month without a year take the query's only year, when the query names exactly one.
    """
    text, found = query, []
    for pattern, (dg, mg, yg) in _DATE_FORMS:
        for m in pattern.finditer(text):
            if _BOUND.search(text[: m.start()]):
                continue
            month = _MONTHS.get(m.group(mg).lower().rstrip("."), 0) if mg else 0
            day = int(m.group(dg)) if dg else 0
            if day > 31:
                continue
            found.append(TimeSpan(int(m.group(yg)) if yg else 0, month, day))
        text = pattern.sub(lambda m: " " * len(m.group()), text)
    years = {s.year for s in found if s.year}
    if len(years) == 1:
        only = years.pop()
        found = [s if s.year or not s.month else TimeSpan(only, s.month, s.day) for s in found]
        if any(s.month for s in found):
            found = [s for s in found if s.month or s.year != only or s.day]
    return found


def _day_range(span: TimeSpan, year: int) -> tuple[int, int]:
    """First day and the day after the last, as days since 1970-01-01 (UTC)."""
    if span.month == 0:
        start, end = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    elif span.day == 0:
        start = datetime(year, span.month, 1, tzinfo=UTC)
        end = datetime(year + span.month // 12, span.month % 12 + 1, 1, tzinfo=UTC)
    else:
        last = calendar.monthrange(year, span.month)[1]
        start = datetime(year, span.month, min(span.day, last), tzinfo=UTC)
        return int(start.timestamp()) // 86_400, int(start.timestamp()) // 86_400 + 1
    return int(start.timestamp()) // 86_400, int(end.timestamp()) // 86_400


def time_prior(times_ns: Sequence[int] | IntArray, spans: Sequence[TimeSpan],
               slack_days: float = 7.0) -> FloatArray:
    """How well each message's time fits the dates a query names: 1 inside a span, falling
    linearly to 0 at ``slack_days`` outside it (people mention an event days after it).

    ``times_ns`` are UTC Unix times in nanoseconds (``Message.at``). A span without a year is
    tried in every year the messages cover. No spans: all zeros.
    """
    t = np.asarray(times_ns, dtype=np.int64)
    out = np.zeros(t.shape, dtype=np.float32)
    if not spans or t.size == 0:
        return out
    days = t // _DAY_NS
    years = range(datetime.fromtimestamp(int(days.min()) * 86_400, UTC).year,
                  datetime.fromtimestamp(int(days.max()) * 86_400, UTC).year + 1)
    for span in spans:
        for year in [span.year] if span.year else years:
            if span.month and span.day and span.day > calendar.monthrange(year, span.month)[1]:
                continue
            start, end = _day_range(span, year)
            dist = np.maximum(np.maximum(start - days, days - (end - 1)), 0).astype(np.float32)
            fit = (dist == 0).astype(np.float32) if slack_days <= 0 else np.clip(
                1.0 - dist / np.float32(slack_days), 0.0, 1.0)
            np.maximum(out, fit, out=out)
    return out
