"""The app factory: ``create_app(settings)`` wires settings, the anonymize service (started and
stopped with the app's lifespan), auth, the routers, the error handlers and two pure-ASGI
middlewares: request logging (request id, route, status, sizes, timing; never bodies, query
strings or keys) and the request-size limit (413 before the body is read)."""

from __future__ import annotations

import time
import uuid
from contextlib import asynccontextmanager
from typing import Any

import structlog
from fastapi import FastAPI

from veil import __version__
from veil.logging import get_logger
from veil.server import errors, routes
from veil.server.auth import KeyChecker
from veil.server.errors import error_body
from veil.server.serving import AnonymizeService, OpenAIServingChat, OpenAIServingModels
from veil.server.settings import ServerSettings

log = get_logger("veil.server")


async def _send_json(send: Any, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None) -> None:
    import json

    raw = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode()),
                            *(headers or [])]})
    await send({"type": "http.response.body", "body": raw})


class BodyLimitMiddleware:
    """Answers 413 to a body over ``max_bytes``: at once when Content-Length says so, else as
    soon as the streamed body passes the limit (then the connection is closed)."""

    def __init__(self, app: Any, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        message = (f"request body too large: the limit is {self.max_bytes} bytes "
                   "(send fewer or smaller documents, or start the server with a larger --max-body-bytes)")
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = False
                if too_big:
                    scope.setdefault("state", {})["body_bytes"] = int(value)
                    return await _send_json(send, 413, error_body(413, message, code="request_too_large"),
                                            [(b"connection", b"close")])
        # no (or a small) Content-Length: read the body here, up to the limit, then replay it
        chunks: list[bytes] = []
        seen = 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                return  # client went away
            body = msg.get("body", b"")
            seen += len(body)
            scope.setdefault("state", {})["body_bytes"] = seen
            if seen > self.max_bytes:
                return await _send_json(send, 413, error_body(413, message, code="request_too_large"),
                                        [(b"connection", b"close")])
            chunks.append(body)
            if not msg.get("more_body", False):
                break
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()  # after the body: wait for http.disconnect

        await self.app(scope, replay, send)


class AccessLogMiddleware:
    """One structured log line per request: id, method, route template, status, request and
    response bytes, milliseconds. The request id comes from ``X-Request-ID`` or is generated and
    returned in that header."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid = dict(scope.get("headers", [])).get(b"x-request-id", b"").decode("latin-1")[:64] or uuid.uuid4().hex[:16]
        t0 = time.perf_counter()
        status = 500
        sent = 0

        async def send_wrapper(msg: dict) -> None:
            nonlocal status, sent
            if msg["type"] == "http.response.start":
                status = msg["status"]
                msg = {**msg, "headers": [*msg.get("headers", []), (b"x-request-id", rid.encode())]}
            elif msg["type"] == "http.response.body":
                sent += len(msg.get("body", b""))
            await send(msg)

        structlog.contextvars.bind_contextvars(request_id=rid)
        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            log.info(
                "request", method=scope.get("method"), route=getattr(route, "path", None) or "(unmatched)",
                status=status, request_bytes=(scope.get("state") or {}).get("body_bytes", 0), response_bytes=sent,
                ms=round((time.perf_counter() - t0) * 1000, 1),
            )
            structlog.contextvars.unbind_contextvars("request_id")


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    settings = settings or ServerSettings()
    service = AnonymizeService(settings)
    models = OpenAIServingModels()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(title="veil", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.settings = settings
    app.state.service = service
    app.state.models = models
    app.state.chat = OpenAIServingChat(service, models)
    app.state.keys = KeyChecker(settings.api_keys)
    errors.install(app)
    for router in (routes.health, routes.openai_api, routes.rest, routes.traces):
        app.include_router(router)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(AccessLogMiddleware)  # outermost: logs the 413s too
    return app
