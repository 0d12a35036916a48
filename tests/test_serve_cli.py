"""``memstrata keys`` and ``memstrata serve``: keys made on the command line open the service;
``serve`` refuses to listen beyond loopback without a key, names the missing extra, and on
SIGTERM finishes what it acknowledged: every 2xx write is in the database afterwards."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import auth, free_port, wait_until_up
from typer.testing import CliRunner, Result

from memstrata import Memory, Settings
from memstrata.cli import app
from memstrata.cli._serve import is_loopback

ENV = {"MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none", "COLUMNS": "200"}


def cli(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *args], env=ENV)


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_keys_create_list_and_revoke(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    made = as_json(cli(db, "--json", "keys", "create", "--tenant", "acme", "--name", "ci"))
    assert made["tenant"] == "acme" and made["name"] == "ci" and made["revoked_at"] is None
    assert made["key"].startswith(f"ms_{made['id']}_")
    plain = cli(db, "keys", "create", "--tenant", "bob")
    assert plain.exit_code == 0 and plain.stdout.strip().startswith("ms_")
    assert len(plain.stdout.strip().splitlines()) == 1  # the key alone on stdout
    listed = as_json(cli(db, "keys", "list", "--json"))
    assert (listed[0]["id"], listed[0]["tenant"]) == (made["id"], "acme")
    assert {k["tenant"] for k in listed} == {"acme", "bob"}
    assert all("key" not in k for k in listed)  # never shown again
    table = cli(db, "keys", "list")
    assert made["id"] in table.stdout and made["key"] not in table.stdout
    revoked = as_json(cli(db, "--json", "keys", "revoke", made["id"]))
    assert revoked["id"] == made["id"] and revoked["revoked_at"] is not None
    after = {k["id"]: k for k in as_json(cli(db, "--json", "keys", "list"))}
    assert after[made["id"]]["revoked_at"] == revoked["revoked_at"]
    missing = cli(db, "keys", "revoke", "zzzz9999")
    assert missing.exit_code == 2 and "zzzz9999" in missing.output


def test_serve_refuses_a_public_host_without_a_key(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    refused = cli(db, "--json", "serve", "--host", "0.0.0.0", "--port", str(free_port()))
    assert refused.exit_code == 2
    error = json.loads(refused.stderr.strip().splitlines()[-1])["error"]
    assert error["field"] == "--host" and "keys create" in error["message"]


def test_loopback_hosts() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.5", "example.com"))


def test_serve_without_the_extra_names_it(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['uvicorn'] = None; sys.modules['fastapi'] = None; "
            "from memstrata.cli import main; sys.argv = ['memstrata', '--db', sys.argv[1], "
            "'serve']; main()")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.db")],
                          capture_output=True, text=True, env={**os.environ, **ENV},
                          timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert "pip install 'memstrata[server]'" in done.stderr


def _writer(url: str, key: str, name: str, acked: list[str], stop: threading.Event) -> None:
    """Write messages until told to stop or the server goes away; note each one acknowledged."""
    with httpx.Client(base_url=url, headers=auth(key), timeout=30) as client:
        n = 0
        while not stop.is_set():
            content = f"{name} message {n}"
            try:
                r = client.post(f"/v1/sessions/{name}/messages",
                                json={"role": "user", "content": content})
            except httpx.TransportError:
                return  # the server stopped accepting
            if r.status_code == 201:
                acked.append(content)
            elif r.status_code != 503:
                raise AssertionError(r.text)
            n += 1


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_sigterm_during_writes_keeps_every_acknowledged_message(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    key = as_json(cli(db, "--json", "keys", "create", "--tenant", "acme"))["key"]
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "memstrata", "--db", str(db), "serve", "--port", str(port)],
        env={**os.environ, **ENV}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    stop = threading.Event()
    acked: dict[str, list[str]] = {f"w{i}": [] for i in range(3)}
    writers = [threading.Thread(target=_writer, args=(url, key, name, acked[name], stop))
               for name in acked]
    try:
        wait_until_up(url)
        for w in writers:
            w.start()
        while sum(len(a) for a in acked.values()) < 60:
            assert server.poll() is None
            stop.wait(0.02)
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=60)
    finally:
        stop.set()
        for w in writers:
            w.join(60)
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0, output
    assert "Application shutdown complete" in output
    assert key.split("_", 2)[2] not in output  # the key is never logged

    async def stored() -> dict[str, list[str]]:
        async with Memory.open(str(db), tenant="acme", background=False,
                               settings=Settings(embedder=None)) as mem:
            return {name: [m.content for m in await _all(mem, name)] for name in acked}

    kept = asyncio.run(stored())
    for name, contents in acked.items():
        assert contents, name
        assert set(contents) <= set(kept[name]), name


async def _all(mem: Memory, session: str) -> list[Any]:
    """Every message of a session, newest first, page by page."""
    out: list[Any] = []
    before = None
    while True:
        page = await mem.recent(session, limit=32, before_id=before)
        if not page:
            return out
        out += page
        before = page[-1].id


README = Path(__file__).resolve().parent.parent / "README.md"


def _service_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Run it as a service"):]
    start = section.index("```sh\n") + len("```sh\n")
    return section[start:section.index("```", start)]


@pytest.mark.skipif(shutil.which("curl") is None or shutil.which("bash") is None,
                    reason="the README example uses curl and bash")
def test_the_readmes_service_example_runs(tmp_path: Path) -> None:
    port = free_port()
    script = _service_example().replace("8765", str(port)).replace(
        "serve &", f"serve --port {port} &")
    env = {**os.environ, **ENV, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script + "\nwait\n"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # curl prints no newline and the server logs to the same stdout: pick out the objects.
    found = _objects(done.stdout)
    first = next(o for o in found if "content" in o)
    context = next(o for o in found if "format" in o)
    search = next(o for o in found if "hits" in o)
    assert first["content"] == "Take the train to Hualien."
    assert context["messages"][-1]["content"].endswith("Take the train to Hualien.")
    assert search["hits"][0]["message"]["id"] == first["id"]


def _objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects in ``text``, wherever they start."""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    at = text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            out.append(value)
        at = text.find("{", end)
    return out
