"""A large import does not stall the service: while ``memstrata serve`` writes one, ``/healthz``
and ``/readyz`` (which reads the database) keep answering promptly, and the import succeeds."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
from serve_process import serve_process
from server_helpers import auth, make_key

# Generous for a shared test machine; a probe that waited for the import's write (seconds)
# or for a parse holding the interpreter would exceed it.
BOUND_S = 1.0
RECORDS = 24_000


def _body() -> bytes:
    return "".join(json.dumps({"type": "message", "role": "user" if i % 2 == 0 else "assistant",
                               "content": f"message {i}: " + "an ordinary sentence. " * 20})
                   + "\n" for i in range(RECORDS)).encode()


def test_health_and_readiness_answer_while_a_big_import_runs(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    key = make_key(db, "acme")
    body = _body()
    with serve_process(db, {"MEMSTRATA_EMBEDDER": "none"}) as url:
        answers: list[httpx.Response] = []

        def send() -> None:
            answers.append(httpx.post(f"{url}/v1/sessions/big/import", content=body,
                                      timeout=600, headers={
                                          **auth(key), "Content-Type": "application/x-ndjson"}))

        importer = threading.Thread(target=send)
        probes: dict[str, list[tuple[float, int]]] = {"/healthz": [], "/readyz": []}
        with httpx.Client(base_url=url, timeout=60) as client:
            importer.start()
            while importer.is_alive():
                for path, seen in probes.items():
                    start = time.perf_counter()
                    status = client.get(path).status_code
                    seen.append((time.perf_counter() - start, status))
                time.sleep(0.02)
        importer.join()
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json() == {"imported": RECORDS}
    for path, seen in probes.items():
        assert len(seen) >= 10, f"the import ended before {path} was probed enough"
        assert {status for _, status in seen} == {200}, path
        slowest = max(took for took, _ in seen)
        assert slowest < BOUND_S, f"{path} took {slowest:.2f} s during the import"
