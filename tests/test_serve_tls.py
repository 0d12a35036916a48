"""``memstrata serve --tls-cert FILE --tls-key FILE``: HTTPS with a self-signed certificate
made in the test, and clear errors for options that cannot work."""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from server_helpers import free_port
from typer.testing import CliRunner

from memstrata.cli import app

ENV = {"MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none", "COLUMNS": "200"}


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key; the two PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "memstrata test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_serve_speaks_https_with_the_certificate(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "memstrata", "--db", str(tmp_path / "s.db"), "serve",
         "--port", str(port), "--tls-cert", str(cert), "--tls-key", str(key)],
        env={**os.environ, **ENV}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    trusted = ssl.create_default_context(cafile=str(cert))
    url = f"https://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"{url}/healthz", verify=trusted, timeout=5)
                break
            except httpx.ConnectError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert answer.json() == {"status": "ok"}
        assert httpx.get(f"{url}/v1/sessions", verify=trusted).status_code == 401
        # Plain HTTP on the same port is not served.
        try:
            plain = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code
        except httpx.HTTPError:
            plain = None
        assert plain != 200
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=60)
    assert f"on https://127.0.0.1:{port}" in output


def test_tls_options_that_cannot_work_are_refused(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    db = str(tmp_path / "s.db")

    def serve(*args: str) -> tuple[int, str]:
        done = CliRunner().invoke(app, ["--db", db, "serve", *args], env=ENV)
        return done.exit_code, done.stderr

    code, text = serve("--tls-cert", str(cert))
    assert code == 2 and "--tls-key" in text and "both" in text
    code, text = serve("--tls-cert", str(tmp_path / "missing.pem"), "--tls-key", str(key))
    assert code == 2 and "no such file" in text
    code, text = serve("--tls-cert", str(key), "--tls-key", str(cert))
    assert code == 2 and "cannot be used together" in text
