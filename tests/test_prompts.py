"""Every prompt template of every profile renders with exactly the variables the agents pass:
no template asks for a variable the agent does not give (a KeyError at run time), and no
placeholder survives rendering."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from veil.prompts import render, template

PROFILES = ("identity", "attributes", "generic")

# agent template -> the variables the agent code passes to render() (see veil/agents/*.py)
AGENT_VARIABLES: dict[str, set[str]] = {
    "p_evaluator": {"text", "k", "attributes"},  # identity passes text, k; the others add attributes
    "u_evaluator": {"text", "label"},
    "u_evaluator_nolabel": {"text", "original"},
    "inferrer": {"text", "attributes"},
    "optimizer_privacy_mode": {"p_max", "k"},
    "optimizer_utility_mode": {"p_max", "k"},
    "optimizer": {"text", "memory", "instruction", "feedback", "privacy", "utility", "label"},
}
IDENTITY_P_EVALUATOR = {"text", "k"}

SAMPLE = {
    "text": "Kurt Edward Fishback (born 1933) is an American photographer. {not a placeholder}",
    "k": 10,
    "p_max": 10,
    "attributes": "location, occupation",
    "label": "photographer",
    "original": "The original text.",
    "memory": "(no earlier versions)",
    "instruction": "PRIVACY MODE. Do it.",
    "feedback": "Sacramento",
    "privacy": "re-identified at rank 1",
    "utility": "80/100",
}
_LEFTOVER = re.compile(r"\{[a-z_]+\}")


def cases():
    for profile in PROFILES:
        for agent in AGENT_VARIABLES:
            yield profile, agent


@pytest.mark.parametrize(("profile", "agent"), list(cases()), ids=[f"{p}-{a}" for p, a in cases()])
def test_template_renders_with_the_agents_variables(profile, agent):
    passed = IDENTITY_P_EVALUATOR if (profile, agent) == ("identity", "p_evaluator") else AGENT_VARIABLES[agent]
    needed = set(template(profile, agent).input_variables)
    assert needed <= passed, f"{profile}/{agent} needs {needed - passed}, which the agent does not pass"
    messages = render(profile, agent, **{v: SAMPLE[v] for v in passed})
    assert messages and messages[-1]["role"] == "user"
    assert all(m["role"] in ("system", "user") and m["content"].strip() for m in messages)
    user = messages[-1]["content"]
    assert not _LEFTOVER.search(user.replace(SAMPLE["text"], "")), user
    if "text" in needed:
        assert "<text>\n" + SAMPLE["text"] + "\n</text>" in user  # the agents' text is passed verbatim


@pytest.mark.parametrize("profile", PROFILES)
def test_mode_instructions_name_their_mode(profile):
    privacy = render(profile, "optimizer_privacy_mode", p_max=3, k=3)[0]["content"]
    utility = render(profile, "optimizer_utility_mode", p_max=3, k=3)[0]["content"]
    assert privacy.startswith("PRIVACY MODE") and "UTILITY MODE" not in privacy
    assert utility.startswith("UTILITY MODE") and "PRIVACY MODE" not in utility


def test_evaluator_prompts_ask_for_the_schema_fields():
    assert '"guesses"' in render("identity", "p_evaluator", text="t", k=5)[-1]["content"]
    assert "5 best guesses" in render("identity", "p_evaluator", text="t", k=5)[-1]["content"]
    assert '"attributes"' in render("attributes", "p_evaluator", text="t", k=3, attributes="age")[-1]["content"]
    assert '"confidence"' in render("identity", "u_evaluator", text="t", label="chef")[-1]["content"]
    assert '"inferences"' in render("generic", "inferrer", text="t", attributes="age")[-1]["content"]
    optimizer = render("identity", "optimizer", **{v: SAMPLE[v] for v in AGENT_VARIABLES["optimizer"]})
    assert optimizer[0]["role"] == "system" and "Never invent facts" in optimizer[0]["content"]
    assert '"text"' in optimizer[-1]["content"] and '"edits"' in optimizer[-1]["content"]


def test_every_template_file_is_used_by_some_agent():
    root = resources.files("veil.prompts")
    for profile in PROFILES:
        for f in root.joinpath(profile).iterdir():
            if f.name.endswith(".md"):
                agent = f.name.split(".")[0]
                assert agent in AGENT_VARIABLES, f"{profile}/{f.name} is not rendered by any agent"


def test_missing_template_is_an_error():
    with pytest.raises(FileNotFoundError):
        template("identity", "no_such_agent")


# veil eval --attacker llm (veil/evals/llm_attack.py): template -> the variables it is given
EVAL_VARIABLES: dict[str, set[str]] = {
    "success_rate": {"text", "candidates"},
    "confidence": {"text", "name"},
    "linking": {"text", "candidates"},
}


@pytest.mark.parametrize("agent", sorted(EVAL_VARIABLES))
def test_eval_templates_render_with_the_attackers_variables(agent):
    assert set(template("eval", agent).input_variables) == EVAL_VARIABLES[agent]
    values = {"text": SAMPLE["text"], "candidates": "1. A\n2. B", "name": "Kurt Edward Fishback"}
    messages = render("eval", agent, **{v: values[v] for v in EVAL_VARIABLES[agent]})
    user = messages[-1]["content"]
    assert "<text>\n" + SAMPLE["text"] + "\n</text>" in user
    assert not _LEFTOVER.search(user.replace(SAMPLE["text"], ""))
    assert ('"candidate"' if agent != "confidence" else '"confidence"') in user
    files = {f.name.split(".")[0] for f in resources.files("veil.prompts").joinpath("eval").iterdir()
             if f.name.endswith(".md")}
    assert files == set(EVAL_VARIABLES)
