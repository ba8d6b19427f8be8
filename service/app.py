"""The app factory: the REST API, and mounted beside it the web pages and Slack. ``create_app`` builds it."""

from __future__ import annotations

import logging
import secrets
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from anyio import to_thread
from fastapi import FastAPI, Request, Response
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from service.api import deps, errors
from service.api.account_routes import router as account_router
from service.api.deps import rate_limit_headers
from service.api.fleet_routes import router as fleet_router
from service.api.job_routes import router as job_router
from service.api.routes import router
from service.pipeline import Engine
from service.settings import Settings, get_settings
from service.slack.routes import router as slack_router
from service.store.idempotency import IdempotencyKeys
from service.web import router as web_router
from service.web.shared import router as shared_router

log = logging.getLogger("crashdoc.api")

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'",
}
# /docs is Swagger UI 5 served from this process (vendored in service/web/swagger-ui/): it works offline. Its page
# is started by an inline script, so only that page gets 'unsafe-inline' for scripts.
DOCS_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self' 'unsafe-inline'; worker-src 'self' blob:; frame-ancestors 'none'")
DOCS_ASSETS = "/docs-assets"


def _configure_logging(level: str) -> None:
    """crashdoc's own loggers to stderr. They log ids, statuses and timings: never log text or secrets."""
    root = logging.getLogger("crashdoc")
    root.setLevel(level.upper())
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        root.addHandler(handler)
        root.propagate = False


# The routes that take a log: their bodies are capped at max_upload_bytes while read (deps.read_body,
# the web form's parser). Every other body is capped here at max_json_bytes.
LOG_ROUTES = frozenset({("POST", "/v1/diagnoses"), ("POST", "/")})


class BodyCap:
    """ASGI middleware: a body that is not a log is read (at most ``max_json_bytes``) before the app sees it, so a
    100 MB JSON question is a 413 after 64 KiB, not a parse of 100 MB."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (scope["method"], scope["path"]) in LOG_ROUTES or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        over = declared.isdigit() and int(declared) > self.limit
        messages: list[Any] = []
        size = 0
        while not over:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            over = size > self.limit
            if not message.get("more_body"):
                break
        if over:
            rid = headers.get(b"x-request-id", b"").decode("latin-1")[:64]
            rid = rid if rid and rid.replace("-", "").isalnum() else secrets.token_hex(8)
            body = errors.error_body("too_large", f"The request body is over the {self.limit // 1024} KiB limit of this route. "
                                     "Send the question or the code alone.", rid)
            response = JSONResponse(body, status_code=413, headers={"X-Request-ID": rid, **SECURITY_HEADERS})
            await response(scope, receive, send)
            return

        async def replay() -> Any:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


_REQUEST_THREADS = 40  # anyio's default: the threads sync routes and diagnoses run in


def operation_id(route: APIRoute) -> str:
    """A readable operation id: the handler's name in camelCase (``create_diagnosis`` -> ``createDiagnosis``)."""
    head, *rest = route.name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> FastAPI:
    settings = settings or get_settings()
    engine = engine or Engine(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        # A diagnosis waiting on the model holds its request thread until its deadline: the request threads
        # grow by the LLM pool's size, so that a full pool of waits leaves the default 40 to everyone else.
        limiter = to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, _REQUEST_THREADS + settings.llm_concurrency)
        await to_thread.run_sync(engine.warm)
        _ = engine.store
        IdempotencyKeys(engine.store).purge()
        if settings.retention_days > 0:
            purged = engine.store.purge(settings.retention_days)
            if purged:
                log.info("purged %d diagnoses older than %d days", purged, settings.retention_days)
        queue = deps.queue(app)  # on SQLite this starts the runner: jobs left by a process that died are taken up
        yield
        await to_thread.run_sync(queue.stop)

    app = FastAPI(
        title="crashdoc",
        version="0.1.0",
        summary="Why did my GPU training run die, and how do I fix it?",
        lifespan=lifespan,
        responses=errors.ERROR_RESPONSES,
        docs_url=None,  # served below from local assets, not a CDN
        redoc_url=None,  # ReDoc exists only as a CDN script
        generate_unique_id_function=operation_id,
    )
    _configure_logging(settings.log_level)
    app.state.engine = engine
    app.state.settings = settings
    errors.install(app)
    app.add_middleware(BodyCap, limit=settings.max_json_bytes)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Content-Encoding", "Idempotency-Key", "Accept"],
                           expose_headers=["Location", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining",
                                           "RateLimit-Reset", "RateLimit-Policy", "Idempotent-Replayed", "X-Request-ID"])

    @app.middleware("http")
    async def request_id(request: Request, call_next: Any) -> Response:
        rid = request.headers.get("x-request-id", "")[:64] or secrets.token_hex(8)
        if not rid.replace("-", "").isalnum():
            rid = secrets.token_hex(8)
        request.state.request_id = rid
        t0 = time.perf_counter()
        response: Response = await call_next(request)
        response.headers["X-Request-ID"] = rid
        for k, v in rate_limit_headers(request).items():
            response.headers.setdefault(k, v)
        if request.url.path == "/docs":
            response.headers.setdefault("Content-Security-Policy", DOCS_CSP)
        for k, v in SECURITY_HEADERS.items():
            response.headers.setdefault(k, v)
        log.info("%s %s %s %d %.0fms", rid, request.method, request.url.path, response.status_code, (time.perf_counter() - t0) * 1000)
        return response

    _mount_docs(app)
    app.include_router(router)
    app.include_router(account_router)
    app.include_router(job_router)
    app.include_router(fleet_router)
    app.include_router(slack_router)
    app.include_router(web_router)  # the pages, outside the OpenAPI schema
    app.include_router(shared_router)  # /s/{token}: a diagnosis opened from its share link
    return app


SWAGGER_UI = Path(__file__).resolve().parent / "web" / "swagger-ui"
SWAGGER_UI_VERSION = "5.35.0"  # swagger-ui-dist, Apache-2.0 (service/web/swagger-ui/VENDORED.md)


def _mount_docs(app: FastAPI) -> None:
    """Swagger UI at /docs, its scripts and styles vendored in ``service/web/swagger-ui`` (it reads OpenAPI 3.1)."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=str(SWAGGER_UI)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title="crashdoc API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js?v={SWAGGER_UI_VERSION}",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css?v={SWAGGER_UI_VERSION}",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
        )
