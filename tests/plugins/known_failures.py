"""The known-failures list of a plugin that runs a framework's own tests against memstrata:
each listed test becomes a strict expected failure (a listed test that passes, or an unlisted
one that fails, fails the run)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest


def mark_known_failures(items: list[pytest.Item], known: Mapping[str, str]) -> None:
    """Mark ``items`` listed in ``known`` (test name, with or without its parameters, to the
    reason it fails) as strict xfail."""
    for item in items:
        name = item.nodeid.split("::", 1)[-1]
        reason = known.get(name) or known.get(name.split("[", 1)[0])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
