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
    ("fault", "error", "message", "tries"),
    [
        (Fault(status=500), LLMUnavailableError, "HTTP 500", 3),  # transport: 1 try + max_retries
        (Fault(status=429), LLMUnavailableError, "HTTP 429", 3),
        (Fault(malformed=True), LLMOutputError, "not valid JSON", 2),  # bad answer: 1 try + output_retries
        (Fault(truncated=True), LLMOutputError, "truncated", 2),
    ],
    ids=["http500", "http429", "malformed", "truncated"],
)
async def test_all_tries_fail_raises_the_typed_error(scripted_llm, fault, error, message, tries):
    llm = scripted_llm(fixed(utility_answer(50)))
    llm.faults.extend([fault] * 10)
    with pytest.raises(error, match=message) as info:
        await call(llm, max_retries=2)
    assert len(llm.requests) == tries  # bounded
    assert len(llm.faults) == 10 - tries
    assert info.value.usage.calls + (tries if fault.status else 0) >= tries  # what the tries cost rides along


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
    assert client.meter.by_agent["u_evaluator"].prompt_tokens == 10  # two answers, both bad
    assert client.meter.by_agent["u_evaluator"].retries == 1


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


# -- structured-output modes ----------------------------------------------------------------

LLAMA_CPP_FORMATS = {"text", "json_object"}  # what llama-cpp-python 0.3 accepts


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "guided_json", "prompt"])
async def test_each_mode_sends_its_request_shape(scripted_llm, mode):
    llm = scripted_llm(fixed(utility_answer(61)))
    parsed, _, _ = await call(llm, structured_output=mode)
    assert parsed.confidence == 61
    [req] = llm.requests
    assert llm.probes == []  # a configured mode is not probed
    schema_props = {"confidence", "explanation"}
    if mode == "json_schema":
        assert req["response_format"]["json_schema"]["schema"]["properties"].keys() == schema_props
    elif mode == "json_object":  # llama-cpp-python: the schema beside type json_object
        assert req["response_format"]["type"] == "json_object"
        assert req["response_format"]["schema"]["properties"].keys() == schema_props
        assert req["response_format"]["schema"]["title"] == "UtilityAnswer"
    elif mode == "guided_json":  # vLLM's extra_body field
        assert "response_format" not in req
        assert req["guided_json"]["properties"].keys() == schema_props
    else:  # the schema is stated in the system prompt, nothing else asks for JSON
        assert "response_format" not in req and "guided_json" not in req
        assert req["messages"][0]["role"] == "system"
        assert req["messages"][0]["content"].startswith("judge\n\nAnswer with one JSON object")
        assert '"title":"UtilityAnswer"' in req["messages"][0]["content"]
        assert req["messages"][1:] == MESSAGES[1:]


async def test_auto_probes_once_per_endpoint_and_picks_what_it_accepts(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(55)), formats=LLAMA_CPP_FORMATS, owned_by="me")
    for _ in range(2):  # two clients (two CLI runs in one process, the server's engine...): one probe
        parsed, _, _ = await call(llm, structured_output="auto")
        assert parsed.confidence == 55
    assert [r["response_format"]["type"] for r in llm.probes] == ["json_schema", "json_object"]
    assert [r["response_format"]["type"] for r in llm.requests] == ["json_object", "json_object"]
    from veil.llm import known_endpoint

    info = known_endpoint(llm.base_url, "m")
    assert (info.kind, info.mode) == ("llamacpp", "json_object")
    assert "json_schema rejected (HTTP 500" in info.detail and "Input should be" in info.detail


async def test_auto_falls_back_to_the_prompt_when_no_json_mode_is_accepted(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(44)), formats={"text"})
    parsed, _, _ = await call(llm, structured_output="auto")
    assert parsed.confidence == 44
    [req] = llm.requests
    assert "response_format" not in req and "JSON schema" in req["messages"][0]["content"]


async def test_auto_on_an_endpoint_that_takes_json_schema(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(12)))
    await call(llm, structured_output="auto")
    assert len(llm.probes) == 1 and llm.requests[0]["response_format"]["type"] == "json_schema"


async def test_the_endpoints_own_message_is_in_the_typed_error(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(1)), formats=LLAMA_CPP_FORMATS)
    with pytest.raises(LLMUnavailableError) as info:
        await call(llm, structured_output="json_schema", max_retries=0)
    message = str(info.value)
    assert "HTTP 500" in message and "Input should be 'json_object' or 'text'" in message
    assert "'input': …" in message  # the offending value (it may be text) is not repeated


def test_endpoint_message_drops_tracebacks_and_echoed_input():
    import httpx
    import openai

    from veil.llm import endpoint_message

    body = {"error": {"message": "1 validation error: {'msg': 'bad', 'input': 'Kurt Fishback was born'}\n\n"
                                 "  File \"/x/app.py\", line 1\n    POST /v1/chat/completions"}}
    req = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    err = openai.InternalServerError("x", response=httpx.Response(500, request=req), body=body)
    msg = endpoint_message(err)
    assert "Kurt" not in msg and "File" not in msg and "'msg': 'bad'" in msg


# -- bounded generation and tolerant parsing ---------------------------------------------------


async def test_control_characters_and_trailing_text_are_tolerated(scripted_llm):
    raw = '{"confidence": 30, "explanation": "line one\nline\ttwo"} and then some chatter'
    llm = scripted_llm(fixed(raw))
    parsed, usage, _ = await call(llm)
    assert parsed.explanation == "line one\nline\ttwo"
    assert usage.retries == 0


async def test_max_tokens_per_call_is_capped_by_the_settings(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(50)))
    client = LLMClient(llm_settings(llm, max_tokens=500))
    try:
        await client.structured(MESSAGES, UtilityAnswer, agent="u", max_tokens=120)
        await client.structured(MESSAGES, UtilityAnswer, agent="u", max_tokens=5000)
    finally:
        await client.aclose()
    assert [r["max_tokens"] for r in llm.requests] == [120, 500]


def test_schema_caps():
    from veil.agents.optimizer import OptimizerAnswer
    from veil.agents.p_evaluator import IdentityAnswer
    from veil.llm import schema_for

    s = schema_for(IdentityAnswer, {"guesses": {"maxItems": 4}})
    assert s["properties"]["guesses"]["maxItems"] == 4
    guess = s["$defs"]["IdentityGuess"]["properties"]
    assert guess["name"]["maxLength"] and guess["clues"]["maxItems"] and guess["clues"]["items"]["maxLength"]
    assert "maxItems" not in schema_for(IdentityAnswer)["properties"]["guesses"]  # the cached base is untouched
    o = schema_for(OptimizerAnswer, {"text": {"maxLength": 321}})
    assert o["properties"]["text"]["maxLength"] == 321 and o["properties"]["edits"]["maxItems"]
    with pytest.raises(KeyError):
        schema_for(OptimizerAnswer, {"nope": {"maxLength": 1}})


async def test_a_bad_answer_is_retried_once_at_a_higher_temperature(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(70)))
    llm.faults.append(Fault(truncated=True))  # a repetition loop that ran into max_tokens
    parsed, usage, _ = await call(llm, temperature=0.0, retry_temperature=0.9)
    assert parsed.confidence == 70
    assert [r["temperature"] for r in llm.requests] == [0.0, 0.9]
    assert usage.retries == 1


async def test_a_rejected_answer_is_retried_then_raises_with_its_reason(scripted_llm):
    from veil.errors import LLMRejectedError

    llm = scripted_llm(fixed(utility_answer(70)))
    client = LLMClient(llm_settings(llm))
    seen = []

    def check(answer):
        seen.append(answer.confidence)
        return "always wrong"

    try:
        with pytest.raises(LLMRejectedError) as info:
            await client.structured(MESSAGES, UtilityAnswer, agent="optimizer", check=check)
    finally:
        await client.aclose()
    assert info.value.reason == "always wrong"
    assert seen == [70, 70] and len(llm.requests) == 2
    assert [r["temperature"] for r in llm.requests] == [0.0, 0.8]
    assert info.value.usage.calls == 2 and client.meter.by_agent["optimizer"].calls == 2


def test_repeated_items():
    from veil.llm import repeated_items

    edit = {"before": "a", "after": "b"}
    assert repeated_items({"edits": [edit] * 5}) == "edits: 5 items, 1 distinct"
    assert repeated_items({"edits": [edit, {"before": "c", "after": "d"}, {"before": "e", "after": "f"}]}) is None
    assert repeated_items({"guesses": [{"name": "x", "clues": ["q", "q", "q", "q"]}]}) is not None
    assert repeated_items({"edits": [edit, edit]}) is None  # too short to call a loop


# -- concurrency per endpoint -----------------------------------------------------------------


async def test_llama_cpp_endpoint_gets_one_request_at_a_time(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(50)), owned_by="me", delay_s=0.02)
    client = LLMClient(llm_settings(llm))
    try:
        await asyncio.gather(*(client.structured(MESSAGES, UtilityAnswer, agent="u") for _ in range(6)))
    finally:
        await client.aclose()
    assert llm.max_in_flight == 1 and client.max_in_flight == 1
    assert (await client.endpoint_info()).kind == "llamacpp"


async def test_llm_concurrency_setting_overrides_the_kind(scripted_llm):
    llm = scripted_llm(fixed(utility_answer(50)), owned_by="me", delay_s=0.05)
    client = LLMClient(llm_settings(llm, concurrency=3))
    try:
        await asyncio.gather(*(client.structured(MESSAGES, UtilityAnswer, agent="u") for _ in range(9)))
    finally:
        await client.aclose()
    assert 1 < client.max_in_flight <= 3


async def test_timeouts_count_from_the_send_not_the_queue(scripted_llm):
    """A single-slot server (requests wait inside it) at 0.1 s an answer, 8 calls at once, a
    0.3 s timeout: queued behind the client's limit, every call makes it (the last one waits
    0.8 s in veil's queue); all sent at once, the server's queue makes them time out."""
    llm = scripted_llm(fixed(utility_answer(50)), owned_by="me", slots=1, delay_s=0.1)
    client = LLMClient(llm_settings(llm, timeout_s=0.3, max_retries=0))
    try:
        results = await asyncio.gather(*(client.structured(MESSAGES, UtilityAnswer, agent="u") for _ in range(8)))
    finally:
        await client.aclose()
    assert len(results) == 8 and client.meter.total.retries == 0

    flooded = LLMClient(llm_settings(llm, timeout_s=0.3, max_retries=0, concurrency=8))
    try:
        outcomes = await asyncio.gather(
            *(flooded.structured(MESSAGES, UtilityAnswer, agent="u") for _ in range(8)), return_exceptions=True)
    finally:
        await flooded.aclose()
    assert any(isinstance(o, LLMTimeoutError) for o in outcomes)


async def test_slow_single_slot_server_finishes_a_20_document_batch(scripted_llm, db_path):
    """issue 9: a slow single-slot server finishes a 20-document batch with 0 failures, with
    the CLI's 16 documents in flight."""
    from veil.anonymizer import Anonymizer
    from veil.batch import run_concurrently
    from veil.documents import Document
    from veil.graphs.anonymize import AnonymizeConfig

    llm = scripted_llm(AgentScript(), owned_by="me", slots=1, delay_s=0.02)
    docs = [Document(id=f"d{i}", text=f"Record {i} describes a retired teacher from a small town.") for i in range(20)]
    settings = llm_settings(llm, timeout_s=0.4, max_retries=0)
    async with Anonymizer("llm", config=AnonymizeConfig(), llm=settings, db_path=db_path) as anon:
        results = await run_concurrently(docs, anon.anonymize, concurrency=16, show_progress=False)
    assert [r.status for r in results] == ["done"] * 20, [r.error for r in results if r.error]
    assert llm.max_in_flight == 1
    assert anon.engine.resources[0].max_in_flight == 1


async def test_clients_of_one_endpoint_share_its_slots(scripted_llm):
    """The audit's atomizer and judge, or two engines, each have a client: llama.cpp still gets
    one request at a time."""
    llm = scripted_llm(fixed(utility_answer(50)), owned_by="me", delay_s=0.02)
    a, b = LLMClient(llm_settings(llm)), LLMClient(llm_settings(llm))
    try:
        await asyncio.gather(*(c.structured(MESSAGES, UtilityAnswer, agent="u") for c in (a, b, a, b, a, b)))
    finally:
        await a.aclose()
        await b.aclose()
    assert llm.max_in_flight == 1


def test_scripted_server_treats_a_client_that_went_away_as_no_error(scripted_llm, capsys):
    """A client killed mid-request (the CLI under kill -9) resets its connection: the scripted
    endpoint prints no traceback for it (one landed in a test's captured stderr and failed CI)."""
    import struct
    import time

    llm = scripted_llm(lambda request: {"choices": [{"message": {"content": "{}"}}]})
    host, port = llm.base_url.split("//")[1].split("/")[0].split(":")
    for _ in range(3):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        s.close()
    time.sleep(0.5)
    assert "Traceback" not in capsys.readouterr().err
