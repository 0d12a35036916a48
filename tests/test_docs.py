"""docs/cli.md shows the real ``--help`` of every command.

Each help block in the page follows a ``<!-- help: COMMAND -->`` marker. After changing the
CLI, refresh the page with ``python tests/test_docs.py`` (it rewrites only those blocks).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from memstrata import Settings
from memstrata.cli import app

DOCS = Path(__file__).resolve().parent.parent / "docs"
CLI_MD = DOCS / "cli.md"
CONFIGURATION_MD = DOCS / "configuration.md"
HELP_BLOCK = re.compile(r"(<!-- help:(?P<cmd>[^>]*?)-->\n```text\n)(?P<body>.*?)(```)", re.S)
# Box drawing and block elements, in case a help renderer frames its panels.
BOX = re.compile("[\u2500-\u259f]")


def real_help(command: str) -> str:
    args = [*command.split(), "--help"]
    result = CliRunner().invoke(app, args, prog_name="memstrata", env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.stdout


def normalise(text: str) -> str:
    """Compare words, not layout: wrapping depends on the terminal width."""
    return " ".join(BOX.sub(" ", text).split())


def documented() -> dict[str, str]:
    page = CLI_MD.read_text(encoding="utf-8")
    return {m["cmd"].strip(): m["body"] for m in HELP_BLOCK.finditer(page)}


def commands() -> list[str]:
    """Every command path: ``""`` (the top level), ``"add"``, …, ``"errors"``,
    ``"errors write"``, …"""
    out = [""]
    for name, command in sorted(getattr(get_command(app), "commands", {}).items()):
        out.append(name)
        out += [f"{name} {sub}" for sub in sorted(getattr(command, "commands", {}))]
    return out


def test_every_command_is_documented() -> None:
    assert sorted(documented()) == sorted(commands())


@pytest.mark.parametrize("command", commands())
def test_documented_help_is_the_real_help(command: str) -> None:
    shown = documented().get(command)
    assert shown is not None, f"docs/cli.md has no help block for {command or 'memstrata'!r}"
    assert normalise(shown) == normalise(real_help(command)), (
        "docs/cli.md is out of date; run: python tests/test_docs.py")


def rewrite() -> None:
    """Replace every help block of docs/cli.md with the current help text."""
    page = CLI_MD.read_text(encoding="utf-8")

    def fill(m: re.Match[str]) -> str:
        return m.group(1) + real_help(m["cmd"].strip()) + m.group(4)

    CLI_MD.write_text(HELP_BLOCK.sub(fill, page), encoding="utf-8")


def test_every_setting_is_in_the_configuration_reference() -> None:
    page = CONFIGURATION_MD.read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", page, re.M))
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert fields - rows == set(), "docs/configuration.md misses these settings"
    assert rows - fields == set(), "docs/configuration.md lists settings that do not exist"
    for name in fields:
        default = getattr(Settings(), name)
        shown = re.search(rf"^\| `{name}` \| `?([^|`]*)`? \|", page, re.M)
        assert shown is not None
        expected = ("None" if default is None else str(default).lower()
                    if isinstance(default, bool) else repr(default).replace("'", '"')
                    if isinstance(default, str) else str(default))
        assert shown.group(1).replace("_", "") == expected.replace("_", ""), name


if __name__ == "__main__":
    rewrite()
    sys.exit(0)
