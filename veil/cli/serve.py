"""``veil serve``: the HTTP API (OpenAI-compatible chat completions, REST, trace viewer).

Auth: Bearer API keys from ``$VEIL_API_KEYS`` (comma-separated) and/or ``--api-keys-file``
(one per line). Without any key, auth is off and the server only binds to a loopback address;
``--insecure-no-auth`` lifts that (anyone who can reach the port can then use it). A browser
opens a trace with ``http://HOST:PORT/traces/RUN_ID?key=KEY`` (the key is then kept in an
HttpOnly cookie for /traces).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from veil.cli.common import add_db_arg, add_engine_args, add_store_text_arg, engine_options, llm_settings
from veil.errors import UserInputError
from veil.server.settings import DEFAULT_MAX_BODY_BYTES, ServerSettings, is_loopback


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the OpenAI-compatible and REST API and the trace viewer")
    p.add_argument("--host", default=os.environ.get("VEIL_HOST", "127.0.0.1"),
                   help="address to bind (default: $VEIL_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, default=int(os.environ.get("VEIL_PORT", "8080")),
                   help="default: $VEIL_PORT or 8080")
    p.add_argument("--api-keys-file", help="file of API keys, one per line (also: $VEIL_API_KEYS, comma-separated)")
    p.add_argument("--insecure-no-auth", action="store_true",
                   help="allow binding a non-loopback address with no API key configured")
    p.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES,
                   help="largest request body accepted (default 1 MiB); larger ones get 413")
    p.add_argument("--concurrency", type=int, default=16, help="documents of one request in flight at once (default 16)")
    p.add_argument("--max-running", type=int, default=64, help="documents in flight over the whole server (default 64)")
    p.add_argument("--max-queued", type=int, default=256,
                   help="documents accepted beyond --max-running; a request past that gets 429 with Retry-After "
                        "(default 256)")
    add_engine_args(p)
    add_db_arg(p)
    add_store_text_arg(p)
    p.set_defaults(func=run)


def settings_from_args(args: argparse.Namespace) -> ServerSettings:
    from veil.server.auth import load_keys

    keys = load_keys(keys_file=args.api_keys_file)
    if not keys and not is_loopback(args.host) and not args.insecure_no_auth:
        raise UserInputError(
            f"refusing to serve on {args.host} without API keys: set $VEIL_API_KEYS or --api-keys-file "
            "(or pass --insecure-no-auth to serve without auth)"
        )
    if args.max_body_bytes < 1024:
        raise UserInputError("--max-body-bytes must be at least 1024")
    if args.concurrency < 1 or args.max_running < 1 or args.max_queued < 0:
        raise UserInputError("--concurrency and --max-running must be at least 1, --max-queued at least 0")
    return ServerSettings(
        host=args.host, port=args.port, engine=args.engine, llm=llm_settings(args), engine_options=engine_options(args),
        db_path=args.db, api_keys=keys, insecure_no_auth=args.insecure_no_auth, max_body_bytes=args.max_body_bytes,
        concurrency=args.concurrency, max_running=args.max_running, max_queued=args.max_queued,
    )


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from veil.logging import configure
    from veil.server.app import create_app

    if args.store_text:  # read by every MemoryStore of this process (the server's own)
        os.environ["VEIL_STORE_TEXT"] = args.store_text
    settings = settings_from_args(args)
    configure(level=os.environ.get("VEIL_LOG_LEVEL", "INFO"))
    if not settings.api_keys:
        print("veil: warning: no API key configured, auth is off", file=sys.stderr)
    app = create_app(settings)
    engine = settings.engine + (f", model {settings.llm.model} at {settings.llm.base_url}"
                                if settings.engine == "llm" and settings.llm else "")
    auth = f"{len(settings.api_keys)} API key(s)" if settings.api_keys else "no auth"

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:  # bound: say where (the real port when --port 0)
                host, port = self.servers[0].sockets[0].getsockname()[:2] if self.servers else (settings.host,
                                                                                                 settings.port)
                shown = f"[{host}]" if ":" in str(host) else host
                print(f"veil: listening on http://{shown}:{port} (engine {engine}; {auth}); Ctrl-C to stop",
                      file=sys.stderr, flush=True)

    # uvicorn's access log would print query strings (?key=...): ours logs the route template only
    Server(uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None, access_log=False,
                          timeout_graceful_shutdown=10)).run()
    return 0
