"""Errors → HTTP, at the edge. Every error body has OpenAI's shape
``{"error": {"message", "type", "param", "code"}}`` so OpenAI clients raise their usual
exceptions (``openai.BadRequestError``, ``AuthenticationError``, ``NotFoundError``...).

Library code raises :class:`veil.errors.VeilError` subclasses (each with ``http_status`` and
``code``); the server raises :class:`APIError` for HTTP-only conditions (auth, body size).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from veil.errors import VeilError
from veil.logging import get_logger
from veil.server.protocol import ErrorInfo, ErrorResponse

log = get_logger(__name__)

# OpenAI's error "type" per status
_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
    501: "not_implemented_error",
}


def error_type(status: int) -> str:
    return _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")


class APIError(Exception):
    def __init__(self, status: int, message: str, *, code: str | None = None, param: str | None = None,
                 type: str | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.type = type or error_type(status)
        self.headers = headers


def error_body(status: int, message: str, *, code: str | None = None, param: str | None = None,
               type: str | None = None) -> dict[str, Any]:
    info = ErrorInfo(message=message, type=type or error_type(status), param=param, code=code)
    return ErrorResponse(error=info).model_dump()


def error_response(status: int, message: str, *, code: str | None = None, param: str | None = None,
                   type: str | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, message, code=code, param=param, type=type), status_code=status,
                        headers=headers)


def _param(loc: tuple[Any, ...]) -> str | None:
    parts = [str(x) for x in loc if x not in ("body", "query", "path")]
    return ".".join(parts) or None


def install(app: FastAPI) -> None:
    @app.exception_handler(APIError)
    async def _api_error(request: Request, e: APIError) -> JSONResponse:
        return error_response(e.status, e.message, code=e.code, param=e.param, type=e.type, headers=e.headers)

    @app.exception_handler(VeilError)
    async def _veil_error(request: Request, e: VeilError) -> JSONResponse:
        return error_response(e.http_status, str(e), code=e.code)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        first = errs[0] if errs else {"loc": (), "msg": "invalid request"}
        param = _param(tuple(first.get("loc", ())))
        msg = first.get("msg", "invalid request")
        if first.get("type") == "json_invalid":
            msg, param = "the request body is not valid JSON", None
        more = f" (and {len(errs) - 1} more problems)" if len(errs) > 1 else ""
        return error_response(400, f"{param + ': ' if param else ''}{msg}{more}", code="invalid_value", param=param)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(e.status_code)
        return error_response(e.status_code, str(e.detail), code=code, headers=getattr(e, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, e: Exception) -> JSONResponse:
        log.error("unhandled_error", error=type(e).__name__, path=request.url.path)
        return error_response(500, "internal server error", code="internal_error")
