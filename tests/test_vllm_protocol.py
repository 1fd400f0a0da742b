"""veil's structured-output request shapes against vLLM's documented OpenAI-compatible protocol.

vLLM itself is a GPU-sized dependency, so the fields its chat endpoint reads are mirrored here
from its protocol (``vllm/entrypoints/openai/protocol.py``, ``ChatCompletionRequest``; the
structured-outputs page of docs.vllm.ai):

* ``response_format``: ``{"type": "text" | "json_object" | "json_schema", "json_schema":
  {"name", "description", "schema", "strict"}}`` (every version);
* ``structured_outputs``: ``{"json" | "regex" | "choice" | "grammar" | "json_object" |
  "structural_tag" | "disable_any_whitespace" | "disable_additional_properties" |
  "whitespace_pattern"}`` (newer vLLM: the field that replaced the guided_* ones);
* ``guided_json`` / ``guided_regex`` / ``guided_choice`` / ``guided_grammar`` /
  ``guided_decoding_backend`` / ``guided_whitespace_pattern``: removed in vLLM 0.12.0.

vLLM answers HTTP 200 to a field it does not read and only logs it ("The following fields were
present in the request but ignored"): a removed ``guided_json`` leaves the output unconstrained.
So the mirrors forbid unknown fields: a shape veil sends must be one the vLLM version reads.
The requests are the ones veil really sends, captured by the scripted server.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tests.conftest import llm_settings, utility_answer
from veil.agents.u_evaluator import UtilityAnswer
from veil.llm import LLMClient, forget_endpoints, schema_for


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Message(_Strict):
    role: Literal["system", "user", "assistant"]
    content: str


class JsonSchemaResponseFormat(_Strict):
    name: str
    description: str | None = None
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormat(_Strict):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaResponseFormat | None = None


class StructuredOutputsParams(_Strict):
    json_: dict[str, Any] | str | None = Field(default=None, alias="json")
    regex: str | None = None
    choice: list[str] | None = None
    grammar: str | None = None
    json_object: bool | None = None
    structural_tag: str | None = None
    disable_any_whitespace: bool = False
    disable_additional_properties: bool = False
    whitespace_pattern: str | None = None


class _Request(_Strict):
    model: str
    messages: list[Message]
    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    stream: bool = False
    response_format: ResponseFormat | None = None


class VLLMRequest(_Request):
    """vLLM 0.12 and later."""

    structured_outputs: StructuredOutputsParams | None = None


class LegacyVLLMRequest(_Request):
    """vLLM before 0.12 (the guided_* fields)."""

    guided_json: dict[str, Any] | str | None = None
    guided_regex: str | None = None
    guided_choice: list[str] | None = None
    guided_grammar: str | None = None
    guided_decoding_backend: str | None = None
    guided_whitespace_pattern: str | None = None


MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "<text>\nA chef.\n</text>"}]


async def sent(scripted_llm, mode: str, **server) -> dict[str, Any]:
    forget_endpoints()
    llm = scripted_llm(lambda request: utility_answer(70), **server)
    client = LLMClient(llm_settings(llm, structured_output=mode))
    try:
        answer, _ = await client.structured(MESSAGES, UtilityAnswer, agent="u", max_tokens=40)
    finally:
        await client.aclose()
    assert answer.confidence == 70
    [request] = llm.requests
    return request


def reads(model: type[BaseModel], request: dict[str, Any]) -> bool:
    try:
        model.model_validate(request)
    except ValidationError:
        return False
    return True


async def test_json_schema_is_read_by_every_vllm_version(scripted_llm):
    req = await sent(scripted_llm, "json_schema")
    for protocol in (VLLMRequest, LegacyVLLMRequest):
        parsed = protocol.model_validate(req)
        assert parsed.response_format.type == "json_schema"
        assert parsed.response_format.json_schema.name == "UtilityAnswer"
        assert parsed.response_format.json_schema.json_schema == schema_for(UtilityAnswer)
        assert parsed.response_format.json_schema.strict is True
        assert parsed.max_tokens == 40 and parsed.temperature == 0.0


async def test_structured_outputs_is_read_by_vllm_0_12_and_later_only(scripted_llm):
    req = await sent(scripted_llm, "structured_outputs")
    parsed = VLLMRequest.model_validate(req)
    assert parsed.structured_outputs.json_ == schema_for(UtilityAnswer)
    assert parsed.response_format is None
    assert not reads(LegacyVLLMRequest, req)  # an older vLLM would ignore it


async def test_guided_json_is_read_by_vllm_before_0_12_only(scripted_llm):
    req = await sent(scripted_llm, "guided_json")
    assert LegacyVLLMRequest.model_validate(req).guided_json == schema_for(UtilityAnswer)
    assert not reads(VLLMRequest, req)  # vLLM 0.12 removed it: ignored, the output NOT constrained


async def test_llama_cpp_json_object_shape_is_not_vllms(scripted_llm):
    # llama-cpp-python's schema beside type json_object: vLLM has no such field
    req = await sent(scripted_llm, "json_object")
    assert req["response_format"]["type"] == "json_object" and "schema" in req["response_format"]
    assert not reads(VLLMRequest, req) and not reads(LegacyVLLMRequest, req)


async def test_prompt_mode_sends_only_standard_fields(scripted_llm):
    req = await sent(scripted_llm, "prompt")
    assert reads(VLLMRequest, req) and reads(LegacyVLLMRequest, req)
    assert "response_format" not in req


@pytest.mark.parametrize("owned_by", ["vllm"])
async def test_auto_on_a_vllm_endpoint_chooses_json_schema_and_no_concurrency_cap(scripted_llm, owned_by):
    forget_endpoints()
    llm = scripted_llm(lambda request: utility_answer(70), owned_by=owned_by)
    client = LLMClient(llm_settings(llm, structured_output="auto"))
    try:
        info = await client.endpoint_info()
        await client.structured(MESSAGES, UtilityAnswer, agent="u", max_tokens=40)
    finally:
        await client.aclose()
    assert (info.kind, info.mode, info.default_concurrency()) == ("vllm", "json_schema", None)
    assert VLLMRequest.model_validate(llm.requests[0]).response_format.type == "json_schema"
