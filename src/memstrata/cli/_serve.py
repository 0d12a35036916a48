"""``memstrata serve``: the HTTP service (API, MCP, web inspector) with uvicorn.

On SIGTERM or Ctrl-C the server stops accepting connections, lets the requests in flight
finish, then closes the memory (background work stopped, database closed): every write it
acknowledged is committed. It refuses to listen beyond the loopback interface while the
database holds no valid API key, since every request would then be refused anyway and the
port would be open for nothing. Needs the server extra (``pip install 'memstrata[server]'``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import signal
import ssl
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from ._app import app, fail, get_state, note
from ._keys import with_keys

__all__: list[str] = []

EXTRA_HINT = "pip install 'memstrata[server]'"
# Child processes embedding the indexer's batches when the settings leave it open.
SERVE_EMBED_WORKERS = 1
# In-flight requests get this long to finish after a stop signal before they are cut.
_GRACEFUL_S = 30


def is_loopback(host: str) -> bool:
    """Whether ``host`` listens only on this machine (127.0.0.0/8, ::1, localhost)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


class LogFormat(StrEnum):
    """How `serve` writes its log."""

    text = "text"
    json = "json"


def _load_server() -> tuple[Any, Any]:
    """uvicorn and memstrata's app factory, or a clear error naming the extra."""
    try:
        import uvicorn

        from ..server import create_app
    except ImportError as exc:
        fail(f"memstrata serve needs the server extra ({exc.name or 'fastapi'} is not "
             f"installed): {EXTRA_HINT}", code=1, kind="MissingExtra")
    return uvicorn, create_app


@app.command()
def serve(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(
        "--db", metavar="TARGET", help="Database file, sqlite:/// or postgresql:// URL (as the "
        "global --db).",
        show_default=False)] = None,
    host: Annotated[str, typer.Option(metavar="HOST", help="Interface to listen on; anything "
                                      "beyond loopback needs an API key to exist.")
                    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", min=0, max=65535,
                                      help="TCP port.")] = 8765,
    access_log: Annotated[bool, typer.Option(
        "--access-log", help="Log every request (method, path, status) to stderr; off by "
        "default, since it costs about a third of the throughput.")] = False,
    limit_concurrency: Annotated[int | None, typer.Option(
        metavar="N", min=1, help="Most connections and requests at once; past it new ones are "
        "answered 503.")] = None,
    timeout_keep_alive: Annotated[int, typer.Option(
        metavar="S", min=1, help="Close an idle connection after this many seconds.")] = 5,
    header_timeout: Annotated[float, typer.Option(
        metavar="S", min=0.1, help="Close a connection whose request headers take longer.")
    ] = 10.0,
    body_timeout: Annotated[float, typer.Option(
        metavar="S", min=0.1, help="Answer 408 to a request body that stops arriving this "
        "long.")] = 30.0,
    max_imports: Annotated[int, typer.Option(
        metavar="N", min=1, help="Imports running at once; more are answered 429.")] = 2,
    log_format: Annotated[LogFormat, typer.Option(
        help="text for people, json for one JSON object per line.")] = LogFormat.text,
    tls_cert: Annotated[Path | None, typer.Option(
        "--tls-cert", metavar="FILE", help="Serve HTTPS with this certificate (PEM, the chain "
        "after it); needs --tls-key.", show_default=False)] = None,
    tls_key: Annotated[Path | None, typer.Option(
        "--tls-key", metavar="FILE", help="The certificate's private key (PEM, not "
        "encrypted).", show_default=False)] = None,
) -> None:
    """Serve the memory over HTTP: the /v1 API, MCP at /mcp and the web inspector at /.

    Every /v1 request needs 'Authorization: Bearer KEY' (memstrata keys create); the key picks
    the tenant. Stops gracefully on SIGTERM or Ctrl-C: requests in flight finish first.
    """
    state = get_state(ctx)
    uvicorn, create_app = _load_server()
    if db:
        state.db = db
    target = state.target()
    active = with_keys(state, lambda keys: keys.count_active())
    if active == 0 and not is_loopback(host):
        fail(f"refusing to listen on {host}: the database has no valid API key, so nobody "
             "could use the service; make one first with memstrata keys create --tenant NAME "
             "(or listen on 127.0.0.1)", field="--host", kind="NoApiKey")
    if active == 0:
        note("no API key yet: every /v1 request will be refused; make one with memstrata keys "
             "create --tenant NAME")
    tls = _tls_files(tls_cert, tls_key)
    settings = state.settings()
    if settings.embed_workers is None:
        # A service indexes other tenants' backlogs while it answers searches: the batches go
        # to a child process so a search does not share the interpreter and cores with them.
        settings = settings.replace(embed_workers=SERVE_EMBED_WORKERS)
    application = create_app(target, settings=settings, body_timeout=body_timeout,
                             max_imports=max_imports)
    from ..server import header_timeout_protocol, json_log_config, serving_runtime, text_log_config

    # Last: it runs once the database and models are open, so gc.freeze keeps them.
    application.state.lifespan_hooks.append(serving_runtime)

    extra: dict[str, Any] = {"http": header_timeout_protocol(header_timeout),
                             "log_config": json_log_config() if log_format is LogFormat.json
                             else text_log_config()}
    config = uvicorn.Config(application, host=host, port=port, lifespan="on", **extra,
                            log_level="info", access_log=access_log,
                            timeout_graceful_shutdown=_GRACEFUL_S,
                            limit_concurrency=limit_concurrency,
                            timeout_keep_alive=timeout_keep_alive,
                            ssl_certfile=tls[0] if tls else None,
                            ssl_keyfile=tls[1] if tls else None)
    server = uvicorn.Server(config)
    url = f"{'https' if tls else 'http'}://{host}:{port}"
    if log_format is LogFormat.json:  # every line on stderr is then a JSON object
        logging.getLogger("memstrata.server").info("serving on %s", url)
    else:
        note(f"serving {target} on {url} (Ctrl-C or SIGTERM stops)", db=target, url=url)
    # uvicorn handles the stop signals while it serves and, once shut down, raises the signal
    # again for the handler that was there before; a handler that does nothing makes a
    # graceful stop exit with 0 instead of dying by the signal it already handled.
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, _stopped)
    # uvicorn's choice of event loop: uvloop when installed (the server extra brings it).
    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        runner.run(server.serve())


def _tls_files(cert: Path | None, key: Path | None) -> tuple[str, str] | None:
    """The certificate and key files for HTTPS (``None``: plain HTTP), checked by loading
    them, so a wrong file is a clear error before the server starts."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        fail("HTTPS needs both --tls-cert and --tls-key", field="--tls-cert" if cert is None
             else "--tls-key", kind="InvalidInput")
    for option, path in (("--tls-cert", cert), ("--tls-key", key)):
        if not path.is_file():
            fail(f"no such file: {path}", field=option, kind="InvalidInput")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as exc:
        fail(f"the certificate and key cannot be used together ({exc.strerror or exc}); "
             "both must be PEM files, the key not encrypted", field="--tls-cert",
             kind="InvalidInput")
    return str(cert), str(key)


def _stopped(signum: int, frame: object) -> None:
    """The stop signal was handled already (by uvicorn's graceful shutdown)."""
