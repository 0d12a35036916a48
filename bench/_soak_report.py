"""The soak's figures as text: one line per sampling window (while it runs) and a markdown
table with one row per period (a minute in the long run), ready to publish."""

from __future__ import annotations

import math
from array import array

from _load import percentile
from _soak_watch import Window

__all__ = ["period_rows", "render_table", "window_line"]

HEAD = ["t (s)", "req/s", "p50 ms", "p95 ms", "p99 ms", "RSS MB", "anon MB", "fds",
        "threads", "CPU %", "db MB", "WAL MB", "5xx", "failed", "LLM calls", "backlog",
        "summarised", "compacted", "live msgs", "removed", "temp expired"]


def window_line(w: Window) -> str:
    return (f"t={w.t:6.0f}s {w.requests / max(w.seconds, 1e-9):6.1f} req/s p50 {w.p50_ms:6.1f}"
            f" p95 {w.p95_ms:6.1f} p99 {w.p99_ms:6.1f} ms | rss {w.rss_mb:6.1f} anon "
            f"{w.anon_mb:6.1f} MB fds {w.fds} thr {w.threads} cpu {w.cpu_pct:4.0f}% | db "
            f"{w.db_mb:5.2f} wal {w.wal_mb:5.2f} MB | 5xx {w.server_errors} failed "
            f"{w.failures} | llm {w.llm_calls} backlog {w.backlog} summarised "
            f"{w.summarised}/{w.live_sessions} compacted {w.compacted} | live msgs "
            f"{w.live_messages} removed {w.removed} forgotten {w.forgotten} errors "
            f"{w.error_records} temp expired {w.temp_expired}")


def period_rows(windows: list[Window], every_s: float) -> list[list[str]]:
    """One row per ``every_s`` seconds: rates and percentiles over the period's requests,
    and the state (memory, files, counters) at its end."""
    groups: dict[int, list[Window]] = {}
    for w in windows:
        groups.setdefault(max(0, math.ceil(w.t / every_s) - 1), []).append(w)
    # The sample taken as the load stops may open a period of its own, a fraction of a
    # second long: it belongs to the period before.
    if len(groups) > 1:
        last = max(groups)
        if sum(w.seconds for w in groups[last]) < every_s / 4:
            groups[last - 1] = groups.get(last - 1, []) + groups.pop(last)
    rows = []
    for k, group in sorted(groups.items()):
        merged = array("f")
        for w in group:
            merged.extend(w.latencies)
        ordered = sorted(merged)
        end = group[-1]
        seconds = sum(w.seconds for w in group)
        cpu = sum(w.cpu_pct * w.seconds for w in group) / seconds if seconds else 0.0
        rate = f"{len(ordered) / seconds:.1f}" if seconds else "—"
        rows.append([
            f"{min((k + 1) * every_s, end.t):.0f}", rate,
            f"{percentile(ordered, 50):.1f}", f"{percentile(ordered, 95):.1f}",
            f"{percentile(ordered, 99):.1f}", f"{end.rss_mb:.1f}", f"{end.anon_mb:.1f}",
            str(end.fds), str(end.threads), f"{cpu:.0f}", f"{end.db_mb:.2f}",
            f"{end.wal_mb:.2f}", str(end.server_errors), str(end.failures),
            str(end.llm_calls), str(end.backlog), f"{end.summarised}/{end.live_sessions}",
            str(end.compacted), str(end.live_messages), str(end.removed),
            str(end.temp_expired)])
    return rows


def render_table(rows: list[list[str]]) -> str:
    widths = [max(len(x) for x in col) for col in zip(HEAD, *rows, strict=False)]
    lines = ["| " + " | ".join(h.rjust(w) for h, w in zip(HEAD, widths, strict=True)) + " |",
             "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"]
    lines += ["| " + " | ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) + " |"
              for row in rows]
    return "\n".join(lines)
