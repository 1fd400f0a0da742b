"""The HTTP server end to end: real uvicorn on loopback, the stock ``openai`` client, engine llm
against a ScriptedLLM."""

from __future__ import annotations

import concurrent.futures
import json
import threading
import time

import httpx
import openai
import pytest

from tests.conftest_server import KEY_A, KEY_B, TEXT, responder, running_server
from veil.testing.scripted_llm import ScriptedLLM


@pytest.fixture(scope="module")
def llm():
    with ScriptedLLM(responder) as s:
        yield s


@pytest.fixture(scope="module")
def base(llm, tmp_path_factory):
    with running_server(llm, tmp_path_factory.mktemp("srv") / "veil.db", max_body_bytes=64 * 1024) as url:
        yield url


def client(base: str, key: str = KEY_A) -> openai.OpenAI:
    return openai.OpenAI(base_url=base + "/v1", api_key=key, max_retries=0, timeout=30)


def h(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_health_needs_no_key(base):
    r = httpx.get(base + "/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_models(base):
    models = client(base).models.list()
    assert [m.id for m in models.data] == ["veil-anonymize"]


def test_chat_completion_non_streaming(base):
    c = client(base)
    resp = c.chat.completions.create(
        model="veil-anonymize",
        messages=[{"role": "system", "content": "ignored"}, {"role": "user", "content": TEXT}],
        extra_body={"veil": {"name": "Alice Smith", "max_iterations": 2, "k": 5}},
    )
    text = resp.choices[0].message.content
    # the name goes deterministically before the model edits (no label given: "the person")
    assert "Alice" not in text and text.startswith("The person is a nurse in a European city")
    assert resp.choices[0].finish_reason == "stop"
    assert resp.id.startswith("run-")
    assert resp.usage.prompt_tokens > 0 and resp.usage.completion_tokens > 0
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    veil = resp.model_extra["veil"]
    assert veil["run_id"] == resp.id and veil["privacy_score"] == 6  # k=5: not in the top 5
    # the attacker found Alice in the original and not in the output
    assert veil["privacy_status"] == "protected" and veil["privacy_note"] is None and veil["rejections"] == []
    # options were honoured: identity profile with k=5 is in the stored run
    run = httpx.get(f"{base}/v1/runs/{resp.id}", headers=h(KEY_A)).json()
    assert run["config"]["profile"] == "identity" and run["config"]["k"] == 5 and run["config"]["max_iterations"] == 2
    assert run["status"] == "done" and len(run["iterations"]) == 2
    assert run["result"]["anonymized_text"] == text
    # the completion id opens its trace
    page = httpx.get(f"{base}/traces/{resp.id}", headers=h(KEY_A))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<del>Alice Smith</del>" in page.text and "<ins>The person</ins>" in page.text
    assert "privacy status" in page.text and ">protected<" in page.text
    assert "script-src" not in page.headers["content-security-policy"]  # default-src 'none': no script


def test_chat_completion_streaming(base):
    c = client(base)
    stream = c.chat.completions.create(
        model="veil-anonymize", messages=[{"role": "user", "content": TEXT}], stream=True,
        stream_options={"include_usage": True}, extra_body={"veil": {"name": "Alice Smith", "max_iterations": 1}},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    content = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
    finishes = [ch.choices[0].finish_reason for ch in chunks if ch.choices and ch.choices[0].finish_reason]
    assert finishes == ["stop"]
    assert len({ch.id for ch in chunks}) == 1
    run_id = chunks[0].id
    progress = [ch.model_extra["veil"] for ch in chunks if ch.model_extra.get("veil") and "iteration" in ch.model_extra["veil"]]
    assert [p["iteration"] for p in progress] == [0, 1]
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens > 0
    run = httpx.get(f"{base}/v1/runs/{run_id}", headers=h(KEY_A)).json()
    assert content == run["result"]["anonymized_text"] and "The person" in content


def test_stream_raw_sse_ends_with_done(base):
    with httpx.stream("POST", base + "/v1/chat/completions", headers=h(KEY_A), timeout=30,
                      json={"model": "veil-anonymize", "stream": True, "messages": [{"role": "user", "content": TEXT}],
                            "veil": {"max_iterations": 0}}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = [ln[6:] for ln in r.iter_lines() if ln.startswith("data: ")]
    assert events[-1] == "[DONE]"
    last = json.loads(events[-2])
    assert last["object"] == "chat.completion.chunk" and last["choices"][0]["finish_reason"] == "stop"


def test_unknown_model_is_openai_404(base):
    with pytest.raises(openai.NotFoundError) as e:
        client(base).chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert e.value.body["code"] == "model_not_found"


@pytest.mark.parametrize("veil, param", [
    ({"k": 0}, "veil.k"),
    ({"u_target": 2}, "veil.u_target"),
    ({"profile": "nope"}, "veil.profile"),
    ({"max_iterations": -1}, "veil.max_iterations"),
    ({"typo_option": 1}, "veil.typo_option"),
])
def test_bad_options_are_400_openai_format(base, veil, param):
    r = httpx.post(base + "/v1/chat/completions", headers=h(KEY_A),
                   json={"model": "veil-anonymize", "messages": [{"role": "user", "content": TEXT}], "veil": veil})
    assert r.status_code == 400
    err = r.json()["error"]
    assert set(err) == {"message", "type", "param", "code"}
    assert err["type"] == "invalid_request_error" and err["param"] == param and err["message"]
    with pytest.raises(openai.BadRequestError):
        client(base).chat.completions.create(model="veil-anonymize", messages=[{"role": "user", "content": TEXT}],
                                             extra_body={"veil": veil})


def test_no_user_message_and_bad_json_are_400(base):
    r = httpx.post(base + "/v1/chat/completions", headers=h(KEY_A),
                   json={"model": "veil-anonymize", "messages": [{"role": "system", "content": "x"}]})
    assert r.status_code == 400 and r.json()["error"]["param"] == "messages"
    r = httpx.post(base + "/v1/chat/completions", headers={**h(KEY_A), "content-type": "application/json"},
                   content=b"{not json")
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"


ROUTES = [
    ("GET", "/v1/models", None),
    ("POST", "/v1/chat/completions", {"model": "veil-anonymize", "messages": [{"role": "user", "content": "x"}]}),
    ("POST", "/v1/anonymize", {"documents": [{"id": "a", "text": "x"}]}),
    ("GET", "/v1/runs", None),
    ("GET", "/v1/runs/run-0000", None),
    ("POST", "/v1/audits", {"originals": ["a"], "sanitized": ["b"]}),
    ("GET", "/v1/audits/audit-0000", None),
    ("GET", "/traces", None),
    ("GET", "/traces/run-0000", None),
]


@pytest.mark.parametrize("method, path, body", ROUTES)
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong-key"}, {"Authorization": "Basic abc"}])
def test_every_route_but_health_needs_a_key(base, method, path, body, headers):
    r = httpx.request(method, base + path, headers=headers, json=body)
    assert r.status_code == 401, (path, r.text)
    err = r.json()["error"]
    assert err["type"] == "authentication_error" and err["code"] == "invalid_api_key"


def test_wrong_key_raises_openai_authentication_error(base):
    with pytest.raises(openai.AuthenticationError):
        client(base, "nope").models.list()


def test_rest_anonymize_many_and_cross_key_isolation(base, llm):
    docs = [{"id": f"d{i}", "text": TEXT, "name": "Alice Smith"} for i in range(3)]
    docs.append({"id": "g", "text": "I live in Paris and work nights.", "label": "nurse"})
    r = httpx.post(base + "/v1/anonymize", headers=h(KEY_A), timeout=60,
                   json={"documents": docs, "options": {"max_iterations": 1}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [d["id"] for d in body["data"]] == ["d0", "d1", "d2", "g"]
    assert body["failed"] == 0 and all(d["status"] == "done" for d in body["data"])
    assert all("Alice" not in d["anonymized_text"] for d in body["data"][:3])
    assert "a European city" in body["data"][3]["anonymized_text"]  # generic profile inferred the location
    assert body["usage"]["prompt_tokens"] == sum(d["usage"]["prompt_tokens"] for d in body["data"])
    run_id = body["data"][0]["run_id"]
    assert httpx.get(f"{base}/v1/runs/{run_id}", headers=h(KEY_A)).status_code == 200
    # key B does not see key A's run, its trace, nor it in its list
    r = httpx.get(f"{base}/v1/runs/{run_id}", headers=h(KEY_B))
    assert r.status_code == 404 and r.json()["error"]["type"] == "invalid_request_error"
    assert httpx.get(f"{base}/traces/{run_id}", headers=h(KEY_B)).status_code == 404
    assert httpx.get(f"{base}/traces/{run_id}?key={KEY_B}").status_code == 404
    ids_b = {x["run_id"] for x in httpx.get(f"{base}/v1/runs", headers=h(KEY_B)).json()["data"]}
    assert run_id not in ids_b
    ids_a = {x["run_id"] for x in httpx.get(f"{base}/v1/runs", headers=h(KEY_A)).json()["data"]}
    assert run_id in ids_a


def test_rest_validation(base):
    r = httpx.post(base + "/v1/anonymize", headers=h(KEY_A),
                   json={"documents": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]})
    assert r.status_code == 400 and r.json()["error"]["param"] == "documents.1.id"
    r = httpx.post(base + "/v1/anonymize", headers=h(KEY_A), json={"documents": []})
    assert r.status_code == 400 and r.json()["error"]["param"] == "documents"
    r = httpx.post(base + "/v1/anonymize", headers=h(KEY_A),
                   json={"documents": [{"id": "a", "text": "x"}], "options": {"k": 1000}})
    assert r.status_code == 400 and r.json()["error"]["param"] == "options.k"


def test_oversized_body_is_413(base):
    big = "x" * (70 * 1024)
    r = httpx.post(base + "/v1/chat/completions", headers=h(KEY_A),
                   json={"model": "veil-anonymize", "messages": [{"role": "user", "content": big}]})
    assert r.status_code == 413
    err = r.json()["error"]
    assert err["code"] == "request_too_large" and "65536" in err["message"]

    def chunks():  # no Content-Length: the limit applies to the streamed body too
        for _ in range(70):
            yield b"x" * 1024

    r = httpx.post(base + "/v1/anonymize", headers={**h(KEY_A), "content-type": "application/json"}, content=chunks())
    assert r.status_code == 413


def test_trace_cookie_from_query_key(base):
    c = client(base)
    resp = c.chat.completions.create(model="veil-anonymize", messages=[{"role": "user", "content": TEXT}],
                                     extra_body={"veil": {"name": "Alice Smith", "max_iterations": 1}})
    with httpx.Client(base_url=base) as browser:
        r = browser.get(f"/traces/{resp.id}", params={"key": KEY_A})
        assert r.status_code == 200 and "<svg" in r.text
        assert "veil_key" in r.headers["set-cookie"] and "httponly" in r.headers["set-cookie"].lower()
        r = browser.get(f"/traces/{resp.id}")  # the cookie alone
        assert r.status_code == 200
        r = browser.get("/traces")
        assert r.status_code == 200 and resp.id in r.text


def test_trace_page_escapes_text(base):
    c = client(base)
    resp = c.chat.completions.create(model="veil-anonymize", messages=[{"role": "user", "content": TEXT}],
                                     extra_body={"veil": {"profile": "generic", "max_iterations": 1}})
    page = httpx.get(f"{base}/traces/{resp.id}", headers=h(KEY_A)).text
    assert "<b>jazz</b>" not in page and "&lt;b&gt;jazz&lt;/b&gt;" in page
    assert "<script>" not in page and "&lt;script&gt;" in page  # the clue from the attacker
    assert "&amp;" in page


def test_concurrent_documents_overlap(tmp_path):
    with ScriptedLLM(responder, delay_s=0.1) as slow, running_server(slow, tmp_path / "v.db", concurrency=8) as url:
        docs = [{"id": f"d{i}", "text": TEXT, "name": "Alice Smith"} for i in range(8)]
        r = httpx.post(url + "/v1/anonymize", headers=h(KEY_A), timeout=60,
                       json={"documents": docs, "options": {"max_iterations": 1}})
        assert r.status_code == 200 and r.json()["failed"] == 0
        assert slow.max_in_flight >= 4


def test_llm_failure_is_502_and_run_is_failed(tmp_path):
    def broken(req):
        raise RuntimeError("boom")

    with ScriptedLLM(broken) as bad, running_server(bad, tmp_path / "v.db") as url:
        with pytest.raises(openai.APIStatusError) as e:
            client(url).chat.completions.create(model="veil-anonymize", messages=[{"role": "user", "content": TEXT}])
        assert e.value.status_code == 502 and e.value.body["code"] == "run_failed"
        r = httpx.post(url + "/v1/anonymize", headers=h(KEY_A), json={"documents": [{"id": "a", "text": TEXT}]})
        assert r.status_code == 200 and r.json()["failed"] == 1 and r.json()["data"][0]["error"]


def test_audits_501_or_accepted(base):
    r = httpx.post(base + "/v1/audits", headers=h(KEY_A), json={"originals": ["a b"], "sanitized": ["a"]})
    try:
        import veil.graphs.audit  # noqa: F401
    except ImportError:
        assert r.status_code == 501 and r.json()["error"]["code"] == "not_implemented"
    else:
        assert r.status_code in (200, 202, 400), r.text


def test_a_full_server_answers_429_with_retry_after(tmp_path):
    """A bounded queue: with one document running and no room to queue, the next request is
    told to come back (429, Retry-After) instead of waiting without end; /health still answers."""
    release = threading.Event()

    def held(req):
        release.wait(20)  # the first document holds the only running slot
        return responder(req)

    with ScriptedLLM(held) as slow, running_server(slow, tmp_path / "v.db", max_running=1, max_queued=0) as url:
        first = concurrent.futures.ThreadPoolExecutor(1).submit(
            httpx.post, url + "/v1/anonymize", headers=h(KEY_A), timeout=60,
            json={"documents": [{"id": "a", "text": TEXT, "name": "Alice Smith"}], "options": {"max_iterations": 1}})
        time.sleep(0.5)
        try:
            assert httpx.get(url + "/health", timeout=5).status_code == 200
            r = httpx.post(url + "/v1/anonymize", headers=h(KEY_B), timeout=10,
                           json={"documents": [{"id": "b", "text": TEXT}]})
            assert r.status_code == 429 and r.headers["Retry-After"] == "5"
            assert r.json()["error"]["type"] == "rate_limit_error" and r.json()["error"]["code"] == "server_busy"
            with pytest.raises(openai.RateLimitError):
                client(url, KEY_B).chat.completions.create(model="veil-anonymize",
                                                           messages=[{"role": "user", "content": TEXT}])
        finally:
            release.set()
        assert first.result().status_code == 200 and first.result().json()["failed"] == 0
        # the slot is free again
        r = httpx.post(url + "/v1/anonymize", headers=h(KEY_B), timeout=30,
                       json={"documents": [{"id": "b", "text": TEXT}], "options": {"max_iterations": 0}})
        assert r.status_code == 200
