"""LLMClient.structured over a real HTTP server: structured-output requests, bounded retries
with backoff, typed errors, token/latency accounting; and, through the Anonymizer, an LLM
failure fails one document without stopping the others of a batch."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from tests.conftest import AgentScript, anonymize_docs, llm_settings, utility_answer
from veil.agents.u_evaluator import UtilityAnswer
from veil.errors import LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError
from veil.llm import LLMClient, LLMSettings, UsageMeter
from veil.testing.scripted_llm import Fault

MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "<text>\nhello\n</text>"}]


def fixed(answer):
    return lambda request: answer


async def call(server, schema=UtilityAnswer, agent="u_evaluator", **settings):
    client = LLMClient(llm_settings(server, **settings))
    try:
        parsed, usage = await client.structured(MESSAGES, schema, agent=agent)
    finally:
        await client.aclose()
    return parsed, usage, client.meter


async def test_request_asks_for_the_json_schema_and_parses_the_answer(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(73)))
    parsed, usage, meter = await call(llm, model="my-model", temperature=0.0, max_tokens=123)
    assert parsed == UtilityAnswer(confidence=73, explanation="scripted")
    [req] = llm.requests
    assert req["model"] == "my-model"
    assert req["max_tokens"] == 123
    assert req["messages"] == MESSAGES
    rf = req["response_format"]
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["name"] == "UtilityAnswer"
    assert rf["json_schema"]["schema"]["properties"].keys() == {"confidence", "explanation"}
    assert usage.calls == 1 and usage.retries == 0
    assert usage.latency_ms > 0


async def test_json_fence_is_tolerated(scripted_llm):
    llm = scripted_llm(fixed("```json\n" + json.dumps(utility_answer(40)) + "\n```"))
    parsed, usage, _ = await call(llm)
    assert parsed.confidence == 40
    assert usage.retries == 0


@pytest.mark.parametrize(
    "fault",
    [Fault(status=500), Fault(status=503), Fault(status=429), Fault(malformed=True), Fault(truncated=True)],
    ids=["http500", "http503", "http429", "malformed", "truncated"],
)
async def test_one_failure_then_success_is_retried(scripted_llm, fault):
    llm = scripted_llm(fixed(utility_answer(81)))
    llm.faults.append(fault)
    parsed, usage, meter = await call(llm)
    assert parsed.confidence == 81
    assert len(llm.requests) == 2
    assert usage.retries == 1
    assert meter.by_agent["u_evaluator"].retries == 1


async def test_timeout_then_success(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(66)))
    llm.faults.append(Fault(delay_s=2.0))
    parsed, usage, _ = await call(llm, timeout_s=0.5)  # room for the good answer on a loaded machine
    assert parsed.confidence == 66
    assert len(llm.requests) == 2
    assert usage.retries == 1


@pytest.mark.parametrize(
    ("fault", "error", "message"),
    [
        (Fault(status=500), LLMUnavailableError, "HTTP 500"),
        (Fault(status=429), LLMUnavailableError, "HTTP 429"),
        (Fault(malformed=True), LLMOutputError, "not valid JSON"),
        (Fault(truncated=True), LLMOutputError, "truncated"),
    ],
    ids=["http500", "http429", "malformed", "truncated"],
)
async def test_all_tries_fail_raises_the_typed_error(scripted_llm, fault, error, message):
    llm = scripted_llm(fixed(utility_answer(50)))
    llm.faults.extend([fault] * 10)
    with pytest.raises(error, match=message):
        await call(llm, max_retries=2)
    assert len(llm.requests) == 3  # 1 try + max_retries, bounded
    assert len(llm.faults) == 7


async def test_all_timeouts_raise_llm_timeout_error(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(50)))
    llm.faults.extend([Fault(delay_s=0.6)] * 2)
    with pytest.raises(LLMTimeoutError):
        await call(llm, timeout_s=0.15, max_retries=1)
    assert len(llm.requests) == 2


async def test_max_retries_zero_means_one_try(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(50)))
    llm.faults.append(Fault(status=500))
    with pytest.raises(LLMUnavailableError):
        await call(llm, max_retries=0)
    assert len(llm.requests) == 1


async def test_answer_not_matching_schema_is_an_output_error(scripted_llm):
    llm = scripted_llm(fixed({"confidence": 250, "explanation": "out of range"}))
    with pytest.raises(LLMOutputError):
        await call(llm, max_retries=1)
    assert len(llm.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_4xx_is_not_retried(scripted_llm, status):
    llm = scripted_llm(fixed(utility_answer(50)))
    llm.faults.append(Fault(status=status))
    with pytest.raises(LLMError) as info:
        await call(llm, max_retries=3)
    assert not isinstance(info.value, (LLMUnavailableError, LLMTimeoutError, LLMOutputError))
    assert str(status) in str(info.value)
    assert len(llm.requests) == 1


async def test_unreachable_endpoint_is_unavailable():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = LLMClient(LLMSettings(base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, backoff_s=0.001, timeout_s=2))
    try:
        with pytest.raises(LLMUnavailableError):
            await client.structured(MESSAGES, UtilityAnswer, agent="u_evaluator")
    finally:
        await client.aclose()
    assert client.meter.total.retries == 1


async def test_backoff_grows_between_retries(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(50)))
    llm.faults.extend([Fault(status=500)] * 2)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await call(llm, backoff_s=0.1, max_retries=2)
    # delays are backoff * 2**(attempt-1) * [0.5, 1.5): at least 0.05 + 0.1
    assert loop.time() - t0 >= 0.15


async def test_tokens_are_counted_per_call_and_per_agent(scripted_llm):
    answer = utility_answer(42)
    completion = max(1, len(json.dumps(answer)) // 4)
    llm = scripted_llm(fixed(answer), prompt_tokens=11)
    llm.faults.append(Fault(malformed=True))  # a bad answer still cost tokens
    meter = UsageMeter()
    client = LLMClient(llm_settings(llm), meter=meter)
    try:
        _, u1 = await client.structured(MESSAGES, UtilityAnswer, agent="u_evaluator")
        _, u2 = await client.structured(MESSAGES, UtilityAnswer, agent="p_evaluator")
        _, u3 = await client.structured(MESSAGES, UtilityAnswer, agent="p_evaluator")
    finally:
        await client.aclose()
    assert (u1.calls, u1.prompt_tokens, u1.retries) == (2, 22, 1)
    assert u1.completion_tokens > completion  # the malformed answer's tokens plus the good one's
    assert (u2.prompt_tokens, u2.completion_tokens, u2.calls) == (11, completion, 1)
    assert meter.by_agent["u_evaluator"].prompt_tokens == 22
    assert meter.by_agent["p_evaluator"].prompt_tokens == 22
    assert meter.by_agent["p_evaluator"].completion_tokens == 2 * completion
    assert meter.by_agent["p_evaluator"].calls == 2
    assert meter.total.prompt_tokens == 44
    assert meter.total.calls == 4
    assert meter.total.completion_tokens == u1.completion_tokens + u2.completion_tokens + u3.completion_tokens


async def test_failed_call_is_still_metered(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(42)), prompt_tokens=5)
    llm.faults.extend([Fault(malformed=True)] * 3)
    client = LLMClient(llm_settings(llm, max_retries=2))
    try:
        with pytest.raises(LLMOutputError):
            await client.structured(MESSAGES, UtilityAnswer, agent="u_evaluator")
    finally:
        await client.aclose()
    assert client.meter.by_agent["u_evaluator"].prompt_tokens == 15
    assert client.meter.by_agent["u_evaluator"].retries == 2


def test_settings_from_env(monkeypatch):
    monkeypatch.setenv("VEIL_LLM_BASE_URL", "http://example.invalid/v1")
    monkeypatch.setenv("VEIL_LLM_MODEL", "qwen")
    monkeypatch.setenv("VEIL_LLM_TIMEOUT", "7")
    s = LLMSettings.from_env(model="override", api_key=None)
    assert (s.base_url, s.model, s.timeout_s, s.api_key) == ("http://example.invalid/v1", "override", 7.0, "EMPTY")


# -- through the Anonymizer: one bad document fails alone ---------------------------------


@pytest.mark.parametrize(
    ("fault", "error_words"),
    [(Fault(status=500), "HTTP 500"), (Fault(malformed=True), "not valid JSON"), (Fault(status=400), "HTTP 400")],
    ids=["unavailable", "bad-output", "refused"],
)
async def test_llm_failure_fails_one_document_not_the_batch(scripted_llm, bios, db_path, fault, error_words):
    bad = bios["okafor"]

    def identity(text):
        if bad.marker in text:
            return fault
        return {"guesses": [{"name": "Nobody Known", "clues": []}]}

    llm = scripted_llm(AgentScript(identity=identity))
    docs = [b.document() for b in bios.values()]
    results, anon = await anonymize_docs(llm, docs, db_path)
    by_id = {r.doc_id: r for r in results}
    assert by_id[bad.id].status == "failed"
    assert error_words in by_id[bad.id].error
    assert by_id[bad.id].anonymized_text is None
    assert "error" in by_id[bad.id].output_fields()
    for other in set(by_id) - {bad.id}:
        assert by_id[other].status == "done", by_id[other].error
        assert by_id[other].anonymized_text
    from veil.memory.store import MemoryStore

    store = MemoryStore(db_path)
    try:
        assert store.get_run(by_id[bad.id].run_id)["status"] == "failed"
        assert store.get_run(by_id["fishback"].run_id)["status"] == "done"
    finally:
        store.close()


async def test_batch_runs_concurrently_and_survives_a_failure(scripted_llm, bios, db_path):
    """Through run_concurrently (what the CLI uses): all documents in flight together."""
    from veil.anonymizer import Anonymizer
    from veil.batch import run_concurrently
    from veil.graphs.anonymize import AnonymizeConfig

    bad = bios["duarte"]
    llm = scripted_llm(
        AgentScript(identity=lambda t: Fault(status=503) if bad.marker in t else {"guesses": []}),
        delay_s=0.05,
    )
    docs = [b.document() for b in bios.values()]
    async with Anonymizer("llm", config=AnonymizeConfig(), llm=llm_settings(llm, max_retries=1), db_path=db_path) as anon:
        results = await run_concurrently(docs, anon.anonymize, concurrency=4, show_progress=False)
    assert [r.doc_id for r in results] == [d.id for d in docs]
    assert [r.status for r in results] == ["done" if d.id != bad.id else "failed" for d in docs]
    assert llm.max_in_flight >= 2
