"""The command line against a server (``--server`` / ``--key``) prints what it prints against
a database file.

Two fresh databases get the same commands: one through ``--db``, the other served by a real
uvicorn server on 127.0.0.1 and reached through ``--server``. Every step must give the same
exit code, stdout and stderr on both sides, in human and in ``--json`` output; only the random
ids of error records (and the times they were written) differ, and are masked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_helpers import make_key, revoke_key, running_server
from typer.testing import CliRunner, Result

from memstrata import Settings
from memstrata.cli import app
from memstrata.providers import HashEmbedder

WINDOW = 4
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "MEMSTRATA_EMBEDDER": "hash:64",
       "MEMSTRATA_WINDOW_MESSAGES": str(WINDOW), "MEMSTRATA_SUMMARY_CRON": "none",
       "MEMSTRATA_URL": "", "MEMSTRATA_KEY": "", "MEMSTRATA_DB": ""}
CHAT = [
    ("user", "Let's take the train to Hualien.", "Mei", "2025-04-12T14:30"),
    ("assistant", "Agreed: the train on April 14, leaving at 9.", "Atlas", "2025-04-12T14:31"),
    ("user", "我妹妹想去花蓮看太魯閣。", "Mei", "2025-04-12T14:32"),
    ("assistant", "太魯閣 is an hour from Hualien station by bus.", "Atlas", "2025-04-12T14:33"),
    ("user", "Book the beef noodle place near the night market.", "Mei", "2025-04-12T14:40"),
    ("assistant", "Done: a table for two at seven.", "Atlas", "2025-04-13T09:00"),
]
RECORD_ID = re.compile(r"\b[0-9a-f]{32}\b|\b[0-9a-f]{8}\b")
TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?Z?|\b1\d{18}\b")


@dataclass
class Sides:
    """Run one command line on the local file and on the server; return both results."""

    local_db: Path
    url: str
    key: str

    def local(self, *args: str, stdin: str | None = None) -> Result:
        return _invoke(["--db", str(self.local_db), *args], stdin)

    def remote(self, *args: str, stdin: str | None = None, key: str | None = None) -> Result:
        return _invoke(["--server", self.url, "--key", key or self.key, *args], stdin)

    def same(self, *args: str, stdin: str | None = None,
             mask: Callable[[str], str] = lambda s: s) -> Result:
        here, there = self.local(*args, stdin=stdin), self.remote(*args, stdin=stdin)
        assert there.exit_code == here.exit_code, (args, here.output, there.output,
                                                   there.exception)
        assert mask(there.stdout) == mask(here.stdout), args
        assert mask(there.stderr) == mask(here.stderr), args
        return here


def _invoke(argv: list[str], stdin: str | None) -> Result:
    return CliRunner().invoke(app, argv, input=stdin, env=ENV)


def masked(text: str) -> str:
    return TIME.sub("<time>", RECORD_ID.sub("<id>", text))


@pytest.fixture
def sides(tmp_path: Path) -> Iterator[Sides]:
    served = str(tmp_path / "served.db")
    key = make_key(served, "default")
    settings = Settings(summary_cron=None, window_messages=WINDOW)
    with running_server(served, settings=settings, embedder=HashEmbedder(64)) as url:
        yield Sides(tmp_path / "local.db", url, key)


def _chat(sides: Sides, session: str = "trip") -> None:
    for n, (role, text, sender, at) in enumerate(CHAT):
        flags = ["--json"] if n == 0 else []
        sides.same(*flags, "add", session, role, text, "--sender", sender, "--at", at)


def test_writes_and_reads_print_the_same(sides: Sides) -> None:
    _chat(sides)
    for args in (["context", "trip"], ["context", "trip", "--json"],
                 ["context", "trip", "--format", "openai"],
                 ["search", "trip", "train"], ["search", "trip", "train", "--json"],
                 ["search", "--all", "花蓮", "--match", "keyword"],
                 ["search", "trip", "Taroko gorge bus", "--match", "semantic", "--json"],
                 ["search", "trip", "nothing-like-this", "--match", "keyword"],
                 ["sessions"], ["sessions", "--json"],
                 ["stats", "trip"], ["stats", "trip", "--json"]):
        sides.same(*args)
    # The digest summary (no LLM on either side), then the context that carries it.
    sides.same("summarize", "trip")
    sides.same("summarize", "trip", "--json")
    for args in (["context", "trip"], ["context", "trip", "--json", "--query", "train"],
                 ["context", "trip", "--format", "anthropic"], ["stats", "trip", "--json"]):
        sides.same(*args)


def test_one_file_reads_the_same_through_the_server_and_directly(sides: Sides) -> None:
    for role, text, sender, at in CHAT:
        assert sides.remote("add", "trip", role, text, "--sender", sender, "--at", at
                            ).exit_code == 0
    served = str(sides.local_db.parent / "served.db")
    for args in (["context", "trip"], ["context", "trip", "--json"], ["sessions", "--json"],
                 ["search", "trip", "train", "--match", "keyword"], ["export", "trip"],
                 ["search", "--all", "Hualien", "--json", "--match", "semantic"],
                 ["stats", "trip", "--json"]):
        here = _invoke(["--db", served, *args], None)
        there = sides.remote(*args)
        assert (there.exit_code, there.stdout, there.stderr) == (
            here.exit_code, here.stdout, here.stderr), args


def test_import_export_and_deletes_print_the_same(sides: Sides, tmp_path: Path) -> None:
    _chat(sides)
    exported = sides.same("export", "trip").stdout
    assert exported.count('"type": "message"') == len(CHAT)
    sides.same("import", "copy", "-", stdin=exported)
    sides.same("import", "copy", "-", "--json", stdin=exported)  # the keys make it a no-op
    history = json.dumps([{"role": "user", "content": "from the Go runtime", "sendAt":
                           1_744_000_000 * 10**9, "sender": "Mei"},
                          {"role": "tool", "content": "skipped"}])
    sides.same("import", "go", "-", stdin=history)
    sides.same("export", "go")
    out_file = tmp_path / "out.jsonl"
    sides.same("export", "copy", "-o", str(out_file), mask=lambda s: s.replace(
        str(out_file), "<file>"))
    sides.same("forget", "2")
    sides.same("forget", "2")  # gone now: the same error on both sides
    sides.same("reset", "copy", "--mode", "all", "--yes")
    sides.same("reset", "trip", "--yes", "--json")
    sides.same("remove", "go", "--yes")
    sides.same("remove", "go", "--yes", "--json")
    sides.same("sessions", "--json")


def test_bad_input_and_missing_things_fail_the_same(sides: Sides) -> None:
    _chat(sides)
    for args in (["add", "trip", "robot", "hi"], ["add", "trip", "robot", "hi", "--json"],
                 ["add", "bad session!", "user", "hi"], ["add", "trip", "user", "   "],
                 ["context", "tirp"], ["context", "tirp", "--json"],
                 ["search", "trip", "train", "--match", "fuzzy"],
                 ["search", "trip", "train", "--time-range", "3w", "--json"],
                 ["search", "trip", "train", "--limit", "99"],
                 ["stats", "nowhere"], ["stats", "nowhere", "--json"],
                 ["export", "tirp"], ["forget", "99999"], ["forget", "99999", "--json"],
                 ["remove", "nowhere", "--yes"], ["reset", "trip", "--mode", "all", "--yes",
                                                  "--json"],
                 ["import", "x", "-"], ["errors", "read", "0123456789abcdef"],
                 ["errors", "delete", "0123456789abcdef", "--json"],
                 ["errors", "search", "timeout", "--limit", "0"]):
        stdin = '{"type": "message", "role": "user"}\n' if args[0] == "import" else None
        sides.same(*args, stdin=stdin)
    # Too long: the server refuses it (413) before the library would, in its own words.
    for result in (sides.local("add", "trip", "user", "x" * 10_001),
                   sides.remote("add", "trip", "user", "x" * 10_001)):
        assert result.exit_code == 2
        assert result.stderr.startswith("error: content: is 10,001 characters; at most 10,000")


def test_error_memory_prints_the_same(sides: Sides) -> None:
    write = ["errors", "write", "--tool", "web_fetch", "--keyword", "timeout", "--keyword",
             "proxy", "--symptom", "the fetch timed out behind the office proxy",
             "--action", "set HTTPS_PROXY and retry", "--cause", "proxy not configured"]
    sides.same(*write, mask=masked)
    sides.same(*write, "--json", mask=masked)
    here = json.loads(sides.local("errors", "list", "--json").stdout)
    there = json.loads(sides.remote("errors", "list", "--json").stdout)
    assert [r["symptom"] for r in here] == [r["symptom"] for r in there]
    for args in (["errors", "list"], ["errors", "search", "proxy timeout"],
                 ["errors", "search", "proxy timeout", "--json", "--tool", "web_fetch"],
                 ["errors", "hint", "web_fetch", "request timed out (proxy?)"],
                 ["errors", "hint", "shell", "permission denied", "--json"]):
        sides.same(*args, mask=masked)
    for side, record in ((sides.local, here[0]), (sides.remote, there[0])):
        shown = side("errors", "read", record["id"][:8], "--json")
        assert json.loads(shown.stdout)["action"] == "set HTTPS_PROXY and retry"
        assert side("errors", "delete", record["id"]).stdout.startswith("deleted ")
        assert side("errors", "read", record["id"]).exit_code == 2


@pytest.mark.parametrize("args", [["check"], ["reindex"], ["worker", "--once"], ["demo"],
                                  ["salvage", "a.db", "b.db"], ["serve"]])
def test_local_only_commands_say_they_need_a_database_file(sides: Sides,
                                                           args: list[str]) -> None:
    result = sides.remote(*args)
    assert result.exit_code == 2, result.output
    assert "has no remote equivalent" in result.stderr
    assert "--db" in result.stderr
    as_json = sides.remote(*args, "--json")
    error = json.loads(as_json.stderr.splitlines()[-1])["error"]
    assert error["field"] == "--server"


def test_server_problems_are_one_clear_line(sides: Sides) -> None:
    refused = sides.remote("sessions", key="ms_nothere_" + "x" * 32)
    assert refused.exit_code == 1
    assert "refused the key" in refused.stderr
    revoked = make_key(str(sides.local_db.parent / "served.db"), "default", "old")
    revoke_key(str(sides.local_db.parent / "served.db"), revoked)
    assert "refused the key" in sides.remote("sessions", key=revoked).stderr
    no_key = _invoke(["--server", sides.url, "sessions"], None)
    assert no_key.exit_code == 2
    assert "MEMSTRATA_KEY" in no_key.stderr
    nobody = _invoke(["--server", "http://127.0.0.1:9", "--key", sides.key, "sessions"],
                     None)
    assert nobody.exit_code == 1
    assert "no answer from the memstrata server at http://127.0.0.1:9" in nobody.stderr
    other = sides.remote("--tenant", "acme", "sessions")
    assert other.exit_code == 2
    assert "belongs to tenant 'default'" in other.stderr
    both = _invoke(["--db", str(sides.local_db), "--server", sides.url, "--key", sides.key,
                    "sessions"], None)
    assert both.exit_code == 2
    assert "not both" in both.stderr


def test_the_environment_names_the_server(sides: Sides) -> None:
    sides.same("add", "trip", "user", "hello", "--at", "2025-04-12T14:30")
    env = {**ENV, "MEMSTRATA_URL": sides.url, "MEMSTRATA_KEY": sides.key}
    result = CliRunner().invoke(app, ["sessions", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert [s["id"] for s in json.loads(result.stdout)] == ["trip"]
    # A file named on the command line wins over the server in the environment.
    local = CliRunner().invoke(app, ["--db", str(sides.local_db), "sessions", "--json"],
                               env=env)
    assert local.exit_code == 0, local.output
    assert [s["id"] for s in json.loads(local.stdout)] == ["trip"]
    assert CliRunner().invoke(app, ["--db", str(sides.local_db), "check"], env=env
                              ).stdout == "ok\n"
