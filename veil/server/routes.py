"""Thin routers, one per endpoint group: they authenticate, parse and call the serving classes.

    health   GET  /health                      (no auth)
    openai   GET  /v1/models                   POST /v1/chat/completions
    rest     POST /v1/anonymize                GET  /v1/runs/{id}      GET /v1/runs
             POST /v1/audits                   GET  /v1/audits/{id}
    traces   GET  /traces/{run_id}             GET  /traces            (key as Bearer, ?key= or cookie)
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse

from veil.errors import NotFoundError
from veil.server.auth import COOKIE, Principal, require_key, require_key_browser
from veil.server.protocol import (
    AnonymizeRequest,
    AnonymizeResponse,
    AuditRequest,
    ChatCompletionRequest,
    ChatCompletionResponse,
    ModelList,
    RunInfo,
)
from veil.server.serving import AnonymizeService, OpenAIServingChat, OpenAIServingModels
from veil.server.trace_page import CSP, render_list, render_trace

health = APIRouter()
openai_api = APIRouter(prefix="/v1", dependencies=[Depends(require_key)])
rest = APIRouter(prefix="/v1", dependencies=[Depends(require_key)])
traces = APIRouter()


def _service(request: Request) -> AnonymizeService:
    return request.app.state.service


def _base_url(request: Request) -> str:
    return str(request.base_url)


@health.get("/health")
async def get_health(request: Request) -> dict:
    return {"status": "ok", "engine": request.app.state.settings.engine}


# -- OpenAI-compatible ------------------------------------------------------------------------


@openai_api.get("/models", response_model=ModelList)
async def list_models(request: Request) -> ModelList:
    models: OpenAIServingModels = request.app.state.models
    return models.list()


@openai_api.post("/chat/completions", response_model=ChatCompletionResponse, response_model_exclude_none=False)
async def chat_completions(body: ChatCompletionRequest, request: Request, who: Principal = Depends(require_key)):
    chat: OpenAIServingChat = request.app.state.chat
    if body.stream:
        stream = chat.create_stream(body, who.owner, _base_url(request))
        return StreamingResponse(stream, media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    return await chat.create(body, who.owner, _base_url(request))


# -- veil REST --------------------------------------------------------------------------------


@rest.post("/anonymize", response_model=AnonymizeResponse)
async def anonymize(body: AnonymizeRequest, request: Request, who: Principal = Depends(require_key)):
    return await _service(request).anonymize_many(body, who.owner, _base_url(request))


@rest.get("/runs", response_model=dict)
async def list_runs(request: Request, limit: int = Query(50, ge=1, le=500), who: Principal = Depends(require_key)):
    return {"object": "list", "data": _service(request).list_runs(who.owner, limit)}


@rest.get("/runs/{run_id}", response_model=RunInfo)
async def get_run(run_id: str, request: Request, who: Principal = Depends(require_key)):
    return _service(request).run_info(run_id, who.owner, _base_url(request))


@rest.post("/audits", response_model=RunInfo)
async def create_audit(body: AuditRequest, request: Request, who: Principal = Depends(require_key)):
    status, info = await _service(request).start_audit(body, who.owner, _base_url(request))
    return JSONResponse(info.model_dump(mode="json"), status_code=status)


@rest.get("/audits/{run_id}", response_model=RunInfo)
async def get_audit(run_id: str, request: Request, who: Principal = Depends(require_key)):
    info = _service(request).run_info(run_id, who.owner, _base_url(request))
    if info.kind != "audit":
        raise NotFoundError(f"no audit {run_id!r}")
    return info


# -- trace viewer -----------------------------------------------------------------------------


def _html(request: Request, html: str) -> HTMLResponse:
    resp = HTMLResponse(html, headers={
        "Content-Security-Policy": CSP, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
    })
    key = request.query_params.get("key")
    if key:  # authenticated by ?key=: remember it so the page need not keep it in the URL
        resp.set_cookie(COOKIE, key, httponly=True, samesite="strict", secure=request.url.scheme == "https",
                        path="/traces")
    return resp


@traces.get("/traces", response_class=HTMLResponse)
async def trace_list(request: Request, who: Principal = Depends(require_key_browser)):
    return _html(request, render_list(_service(request).list_runs(who.owner, 100)))


@traces.get("/traces/{run_id}", response_class=HTMLResponse)
async def trace(run_id: str, request: Request, who: Principal = Depends(require_key_browser)):
    service = _service(request)
    run = service.get_run(run_id, who.owner)
    return _html(request, render_trace(run, service.memory.iterations(run_id)))
