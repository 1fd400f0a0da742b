"""Helpers for the server, folder and trace-page tests (not a conftest: import what you need).

``responder`` plays every LLM agent for texts about "Alice Smith" from "Paris": the attacker
finds Alice while her name is in the text, the optimizer replaces the name and the city.
``running_server`` serves a real app with uvicorn on a free loopback port in a thread.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import uvicorn

from veil.llm import LLMSettings
from veil.server.app import create_app
from veil.server.settings import ServerSettings
from veil.testing.scripted_llm import ScriptedLLM, last_user_message, schema_name

KEY_A = "sk-test-key-a-0123456789"
KEY_B = "sk-test-key-b-9876543210"
TEXT = "Alice Smith is a nurse in Paris. She has worked at the Saint-Louis hospital since 2009 & loves <b>jazz</b>."

_TEXT_RE = re.compile(r"<text>\n?(.*?)\n?</text>", re.S)


def current_text(req: dict[str, Any]) -> str:
    msg = last_user_message(req)
    m = _TEXT_RE.search(msg)
    return m.group(1) if m else msg


def responder(req: dict[str, Any]) -> dict[str, Any]:
    name = schema_name(req)
    text = current_text(req)
    if name == "IdentityAnswer":
        if "Alice" in text:
            return {"guesses": [{"name": "Alice Smith", "clues": ["Alice Smith", "nurse in Paris"]}]}
        return {"guesses": [{"name": "Bob Jones", "clues": []}]}
    if name == "AttributeAnswer":
        city = "Paris" if "Paris" in text else "London"
        return {"attributes": [{"attribute": "location", "guesses": [city], "clues": [f"{city} <script>x</script>"]}]}
    if name == "InferenceAnswer":
        return {"inferences": [{"attribute": "location", "guesses": ["Paris"], "certainty": 5, "evidence": "Paris"}]}
    if name == "UtilityAnswer":
        return {"confidence": 90, "explanation": "the occupation is still clear"}
    if name == "OptimizerAnswer":
        new = text.replace("Alice Smith", "A person").replace("Paris", "a European city")
        return {
            "text": new,
            "edits": [{"before": "Alice Smith", "after": "A person", "operation": "obscure", "reason": "name"}],
            "rationale": "removed the name",
        }
    raise AssertionError(f"unexpected schema {name!r}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(llm: ScriptedLLM | None, db_path: Path, **overrides: Any) -> Iterator[str]:
    """Serve ``create_app`` (engine llm → ``llm``; ``llm=None`` and ``engine="local"`` for the
    embedded engine) on 127.0.0.1; yields the base URL."""
    values: dict[str, Any] = dict(
        engine="llm",
        llm=LLMSettings(base_url=llm.base_url, model="scripted", api_key="x", max_retries=0, timeout_s=10)
        if llm is not None else None,
        db_path=db_path,
        api_keys=[KEY_A, KEY_B],
    )
    settings = ServerSettings(**{**values, **overrides})
    app = create_app(settings)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
