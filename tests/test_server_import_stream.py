"""An import is parsed as it arrives: a bad first line is answered while the client is still
sending (the body is never buffered whole before parsing), and a body sent in many small
chunks, lines split across them, is imported exactly."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from server_helpers import auth, make_key, running_server


def test_a_bad_first_line_is_answered_before_the_body_ends(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    key = make_key(db, "acme")
    with running_server(db) as url:
        where = urlsplit(url)
        with socket.create_connection((where.hostname, where.port), timeout=20) as conn:
            conn.sendall(f"POST /v1/sessions/s/import HTTP/1.1\r\nHost: x\r\n"
                         f"Authorization: Bearer {key}\r\n"
                         "Content-Type: application/x-ndjson\r\n"
                         "Transfer-Encoding: chunked\r\n\r\n".encode())
            first = b"not json\n" + b'{"type": "message", "role": "user", "content": "x"}\n'
            conn.sendall(b"%x\r\n%s\r\n" % (len(first), first))
            # The rest of the body never comes: only a parser reading as it arrives answers.
            answer = conn.recv(65536).decode()
    assert answer.startswith("HTTP/1.1 422"), answer
    assert '"field":"line 1"' in answer


def test_lines_split_across_chunks_are_imported_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    key = make_key(db, "acme")
    records = [{"type": "message", "role": "user" if i % 2 == 0 else "assistant",
                "content": f"message {i} " + "é" * (i % 50), "key": f"k{i}"}
               for i in range(300)]
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 7):  # splits lines, and UTF-8 characters too
            yield body[start:start + 7]

    with running_server(db) as url, httpx.Client(base_url=url, headers=auth(key),
                                                 timeout=60) as client:
        answer = client.post("/v1/sessions/s/import", content=chunks(),
                             headers={"Content-Type": "application/x-ndjson"})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"imported": 300}
        exported = [json.loads(line) for line in
                    client.get("/v1/sessions/s/export").text.splitlines()]
    assert [r["content"] for r in exported] == [r["content"] for r in records]
