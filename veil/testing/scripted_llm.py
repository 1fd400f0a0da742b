"""A scripted OpenAI-compatible chat-completions server on loopback.

It speaks real HTTP, so the real ``openai`` client is exercised end to end (no monkeypatching).
A *responder* decides each answer from the request (typically from the name of the requested
JSON schema, which tells which agent is asking: :func:`schema_name` finds it in every
structured-output shape veil sends). Faults can be queued to test retries: an HTTP status,
malformed JSON, a truncated answer, a delay or a broken HTTP body; or drawn at random for a share
of the calls (``fault_rate``, ``rate_faults``, ``seed``: fault injection).

It can pose as a given kind of endpoint: ``formats`` are the structured-output shapes it accepts
(``{"text", "json_object"}`` answers a ``json_schema`` request as llama-cpp-python does: HTTP 500
"Input should be 'text' or 'json_object'"), ``owned_by`` what ``GET /models`` says (``"me"`` is
llama-cpp-python) and ``slots`` how many requests it works on at once (the others wait inside
the server, as llama.cpp's do). veil's structured-output probes (schema ``VeilProbe``) are
answered by the server itself and listed in ``probes``, not in ``requests``.

    def responder(req: dict) -> dict | str | Fault:
        ...
    with ScriptedLLM(responder) as llm:
        LLMSettings(base_url=llm.base_url, ...)

Also used by the throughput benchmark as an endpoint with a fixed latency (``delay_s``).
"""

from __future__ import annotations

import json
import random
import re
import socket
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Fault:
    """A scripted misbehaviour: ``status`` (e.g. 500), ``malformed`` JSON, ``truncated``
    (finish_reason=length), ``delay_s`` before answering normally, or a ``broken_body``: HTTP 200
    whose body is not a whole response: ``"cut"`` (the Content-Length promises the full body,
    half of it is sent, then the connection is closed), ``"garbled"`` (a complete body of the
    announced length that is not JSON) or ``"partial_json"`` (a complete body holding the first
    half of the JSON document)."""

    status: int | None = None
    malformed: bool = False
    truncated: bool = False
    delay_s: float = 0.0
    broken_body: str | None = None  # cut | garbled | partial_json

    def __post_init__(self) -> None:
        if self.broken_body not in (None, "cut", "garbled", "partial_json"):
            raise ValueError(f"unknown broken_body {self.broken_body!r}")


Responder = Callable[[dict[str, Any]], "dict[str, Any] | str | Fault"]


_TITLE = re.compile(r'"title":\s*"(\w+)"')


def request_format(request: dict[str, Any]) -> str:
    """The structured-output shape of a request: json_schema, json_object, structured_outputs,
    guided_json or text."""
    rf = request.get("response_format") or {}
    if rf.get("type") in ("json_schema", "json_object"):
        return rf["type"]
    if isinstance(request.get("structured_outputs"), dict) and "json" in request["structured_outputs"]:
        return "structured_outputs"
    if "guided_json" in request:
        return "guided_json"
    return "text"


def schema_name(request: dict[str, Any]) -> str:
    """The name of the requested schema, whatever the shape: ``json_schema.name``, the schema's
    ``title`` (``json_object`` + ``schema``, ``guided_json``) or, for a schema stated in the
    prompt, the title in the system message."""
    rf = request.get("response_format") or {}
    if rf.get("json_schema"):
        return rf["json_schema"].get("name", "")
    so = request.get("structured_outputs")
    for schema in (rf.get("schema"), so.get("json") if isinstance(so, dict) else None, request.get("guided_json")):
        if isinstance(schema, dict):
            return str(schema.get("title", ""))
    for m in request.get("messages", []):
        if m.get("role") == "system" and "JSON schema" in str(m.get("content", "")):
            found = _TITLE.search(str(m["content"]))
            if found:
                return found.group(1)
    return ""


def last_user_message(request: dict[str, Any]) -> str:
    for m in reversed(request.get("messages", [])):
        if m.get("role") == "user":
            c = m.get("content")
            return c if isinstance(c, str) else json.dumps(c)
    return ""


def _completion(request: dict[str, Any], content: str, finish: str, prompt_tokens: int) -> dict[str, Any]:
    completion_tokens = max(1, len(content) // 4)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class ScriptedLLM:
    def __init__(self, responder: Responder, *, delay_s: float = 0.0, prompt_tokens: int | None = None,
                 formats: set[str] | None = None, owned_by: str = "veil", slots: int | None = None,
                 fault_rate: float = 0.0, rate_faults: list[Fault] | None = None, seed: int = 0):
        """``fault_rate``: the share of answered calls (probes excluded) that get one of
        ``rate_faults`` instead, drawn with a ``seed``-ed generator (fault injection);
        ``faults_served`` lists every fault served, queued or drawn."""
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError("fault_rate must be in [0, 1]")
        if fault_rate and not rate_faults:
            raise ValueError("fault_rate needs rate_faults")
        self.fault_rate = fault_rate
        self.rate_faults = list(rate_faults or [])
        self._rng = random.Random(seed)
        self.faults_served: list[Fault] = []
        self.responder = responder
        self.delay_s = delay_s
        self.prompt_tokens = prompt_tokens
        self.formats = formats  # None: every shape
        self.owned_by = owned_by
        self._slots = threading.Semaphore(slots) if slots else None
        self.requests: list[dict[str, Any]] = []
        self.probes: list[dict[str, Any]] = []
        self.faults: deque[Fault] = deque()
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> "ScriptedLLM":
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body are separate writes: without NODELAY, Nagle + delayed ACK
                # add ~40 ms to every call
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send_broken(self, kind: str, body: bytes) -> None:
                """HTTP 200 with a body that is not a whole JSON response (see Fault.broken_body)."""
                if kind == "garbled":
                    body = bytes((b * 7 + 13) % 256 for b in body)
                elif kind == "partial_json":
                    body = body[: max(1, len(body) // 2)]
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    if kind == "cut":
                        self.wfile.write(body[: max(1, len(body) // 2)])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                    else:
                        self.wfile.write(body)
                except OSError:
                    pass

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    body = {"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": outer.owned_by}]}
                    self._send(200, json.dumps(body).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                shape = request_format(request)
                probe = schema_name(request) == "VeilProbe"
                if probe:
                    with outer._lock:
                        outer.probes.append(request)
                if outer.formats is not None and shape not in outer.formats:
                    accepted = " or ".join(f"'{f}'" for f in sorted(outer.formats))
                    self._send(500, json.dumps({"error": {
                        "message": f"1 validation error: {{'type': 'literal_error', 'loc': ('body', 'response_format', "
                                   f"'type'), 'msg': \"Input should be {accepted}\", 'input': '{shape}'}}",
                        "type": "internal_server_error"}}).encode())
                    return
                if probe:
                    self._send(200, json.dumps(_completion(request, '{"ok": true}', "stop", 20)).encode())
                    return
                if outer._slots is not None:
                    outer._slots.acquire()
                try:
                    self._answer(request)
                finally:
                    if outer._slots is not None:
                        outer._slots.release()

            def _answer(self, request: dict[str, Any]) -> None:
                with outer._lock:
                    outer.requests.append(request)
                    fault = outer.faults.popleft() if outer.faults else None
                    if fault is None and outer.fault_rate and outer._rng.random() < outer.fault_rate:
                        fault = outer._rng.choice(outer.rate_faults)
                    if fault is not None:
                        outer.faults_served.append(fault)
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    delay = outer.delay_s + (fault.delay_s if fault else 0.0)
                    if delay:
                        time.sleep(delay)
                    if fault and fault.status:
                        self._send(fault.status, json.dumps({"error": {"message": "scripted failure"}}).encode())
                        return
                    try:
                        answer = outer.responder(request)
                    except Exception as e:  # a responder bug is the endpoint's 500, not a hang-up
                        self._send(500, json.dumps({"error": {"message": f"responder: {e!r}"}}).encode())
                        return
                    if isinstance(answer, Fault):
                        if answer.delay_s:
                            time.sleep(answer.delay_s)
                        if answer.status:
                            self._send(answer.status, b'{"error": {"message": "scripted failure"}}')
                            return
                        fault = answer
                        answer = {}
                    content = answer if isinstance(answer, str) else json.dumps(answer)
                    finish = "stop"
                    if fault and fault.malformed:
                        content = content[: max(1, len(content) // 2)] + " <<not json"
                    if fault and fault.truncated:
                        content, finish = content[: max(1, len(content) // 2)], "length"
                    prompt_chars = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
                    ptoks = outer.prompt_tokens if outer.prompt_tokens is not None else max(1, prompt_chars // 4)
                    body = json.dumps(_completion(request, content, finish, ptoks)).encode()
                    if fault and fault.broken_body:
                        self._send_broken(fault.broken_body, body)
                        return
                    self._send(200, body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

        class Server(ThreadingHTTPServer):
            request_queue_size = 1024  # the stdlib's 5 drops connections when many clients open at once

            def handle_error(self, request: Any, client_address: Any) -> None:
                # a client that went away (a test kills the CLI with -9 mid-request) is no server
                # error: the stdlib's traceback on stderr landed in a test's captured output
                if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
                    return
                super().handle_error(request, client_address)

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        from veil.llm import forget_endpoints

        # a port an earlier server of this process used is a new endpoint: the probe cached for it
        # (another kind, another mode) must not apply ("llama.cpp gets one request at a time" saw 6
        # requests in flight when the port had served a vLLM-like server before)
        forget_endpoints(self.base_url)
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ScriptedLLM":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def requests_for(self, name: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if schema_name(r) == name]
