"""``crashdoc serve``: the REST API, the web pages and the Slack endpoints."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="run the service (REST API, web pages, Slack) on the embedded defaults")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    if args.workers > 1:
        from service.pipeline import Engine
        from service.settings import get_settings

        # Migrate the database and build the index (and the encoder export) once, here: N workers starting
        # together would otherwise all do it at the same moment. Each worker then finds them ready.
        engine = Engine(get_settings())
        _ = engine.store, engine.index
        engine.store.engine.dispose()
    uvicorn.run(
        "service.app:create_app", factory=True, host=args.host, port=args.port, workers=args.workers,
        log_level="info", access_log=False,
        # The app reads X-Forwarded-For itself, and only from CRASHDOC_TRUSTED_PROXIES (api/deps.client_address):
        # uvicorn's default would believe it from any loopback caller.
        proxy_headers=False,
    )
    return 0
