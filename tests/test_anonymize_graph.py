"""The anonymize graph end to end over the scripted LLM: the lexicographic mode switch, the
best-so-far rule, the stop rules, target selection per profile, and token accounting."""

from __future__ import annotations

import json

import pytest

from tests.conftest import AgentScript, anonymize_docs, iterations, identity_answer, optimizer_answer, optimizer_prompts, utility_answer
from veil.graphs.anonymize import AnonymizeConfig
from veil.graphs.anonymize.graph import better, lexicographic_key


def reidentify_while(marker: str, truth: str):
    """A P-Evaluator that names the person at rank 1 while ``marker`` is in the text."""

    def identity(text: str):
        if marker in text:
            return identity_answer(truth, "Somebody Else", clues=[marker])
        return identity_answer("Somebody Else", "Another Person")

    return identity


def scripted_edits(*edits):
    """An optimizer applying the n-th edit function on its n-th call (then changing nothing)."""
    calls = {"n": 0}

    def optimizer(text: str):
        i = calls["n"]
        calls["n"] += 1
        return optimizer_answer(edits[i](text) if i < len(edits) else text)

    return optimizer


# -- the lexicographic mode switch --------------------------------------------------------


async def test_privacy_mode_until_protected_then_utility_mode(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    script = AgentScript(
        identity=reidentify_while(bio.marker, "Kurt Fishback"),  # a partial name still matches
        utility=lambda t: utility_answer(95 if "fine-art" in t else 60),
        optimizer=scripted_edits(
            lambda t: t.replace("born 1933", "born in the 1930s"),  # still re-identified
            lambda t: t.replace("Sacramento", "a Californian").replace("Kurt Edward Fishback", "The subject"),
            lambda t: t.replace("American photographer", "American fine-art photographer"),
            lambda t: t + " (should never be asked for)",
        ),
    )
    llm = scripted_llm(script)
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=6))

    prompts = optimizer_prompts(llm)
    assert len(prompts) == 3
    assert ["PRIVACY MODE" in p for p in prompts] == [True, True, False]
    assert ["UTILITY MODE" in p for p in prompts] == [False, False, True]
    # the attacker's clues are the optimizer's feedback in privacy mode
    assert "Attacker's clues: the name is still written in the text; Sacramento" in prompts[0]
    # the name itself never reaches the optimizer: it is replaced before the model sees the text
    assert not any("Fishback" in p for p in prompts)

    its = iterations(db_path, result.run_id)
    assert [it["mode"] for it in its] == [None, "privacy", "privacy", "utility"]
    assert [it["privacy_score"] for it in its] == [1, 1, 11, 11]
    assert [it["utility_score"] for it in its] == [0.6, 0.6, 0.6, 0.95]

    assert result.status == "done"
    assert result.stop_reason == "targets_met"
    assert result.best_iteration == 3
    assert result.privacy_score == 11 and result.privacy_target_met
    assert "fine-art" in result.anonymized_text and bio.marker not in result.anonymized_text
    assert result.iterations == 3


async def test_attributes_profile_switches_mode_per_inferred_attribute(scripted_llm, db_path):
    """Attributes profile with targets given: rank of the truth among the attacker's guesses."""
    from veil.documents import Document

    doc = Document(
        id="c1",
        text="Just got back from my shift at the Lyon bakery, my feet are killing me.",
        attributes={"location": "Lyon, France", "occupation": "baker"},
    )

    def attributes(text):
        loc = ["Lyon, France", "Paris, France"] if "Lyon" in text else ["Paris, France", "Berlin, Germany"]
        job = ["nurse", "baker"] if "bakery" in text else ["nurse", "cook"]
        return {
            "attributes": [
                {"attribute": "location", "guesses": loc, "clues": ["Lyon bakery"]},
                {"attribute": "Occupation", "guesses": job, "clues": ["shift"]},
            ]
        }

    llm = scripted_llm(
        AgentScript(
            attributes=attributes,
            optimizer=scripted_edits(lambda t: t.replace("the Lyon bakery", "the bakery"),
                                     lambda t: t.replace("the bakery", "work")),
        )
    )
    config = AnonymizeConfig(profile="attributes", max_iterations=4)
    assert (config.k, config.p_max) == (3, 3)
    [result], _ = await anonymize_docs(llm, [doc], db_path, config)
    its = iterations(db_path, result.run_id)
    # min over targets: location at rank 1, then occupation at rank 2, then both out of the top 3
    assert [it["privacy_score"] for it in its] == [1, 2, 4]
    assert [it["mode"] for it in its] == [None, "privacy", "privacy"]
    assert result.stop_reason == "targets_met"
    assert result.anonymized_text == "Just got back from my shift at work, my feet are killing me."
    # the attribute list the attacker is asked for is the protected targets
    assert "location, occupation" in llm.requests_for("AttributeAnswer")[0]["messages"][-1]["content"]


async def test_generic_profile_protects_what_the_inferrer_is_sure_of(scripted_llm, db_path):
    from veil.documents import Document

    doc = Document(id="g", text="As a nurse in Leeds I see this every night shift.")
    inference = {
        "inferences": [
            {"attribute": "location", "guesses": ["Leeds, UK"], "certainty": 5, "evidence": "stated"},
            {"attribute": "occupation", "guesses": ["nurse"], "certainty": 4, "evidence": "stated"},
            {"attribute": "age", "guesses": ["30"], "certainty": 1, "evidence": "a guess"},  # too unsure
            {"attribute": "shoe_size", "guesses": ["42"], "certainty": 5, "evidence": "not an attribute"},
        ]
    }
    llm = scripted_llm(AgentScript(inference=lambda t: inference))
    [result], _ = await anonymize_docs(llm, [doc], db_path, AnonymizeConfig(profile="generic", max_iterations=0))
    assert result.protected == {"attributes": {"location": "Leeds, UK", "occupation": "nurse"}}
    assert len(llm.requests_for("InferenceAnswer")) == 1  # on the original only
    asked = llm.requests_for("AttributeAnswer")[0]["messages"][-1]["content"]
    assert "location, occupation" in asked and "age" not in asked
    # without a label, utility compares with the original
    u = llm.requests_for("UtilityAnswer")[0]["messages"][-1]["content"]
    assert "<original>\n" + doc.text in u


async def test_identity_without_a_name_protects_the_attackers_first_guess(scripted_llm, bios, db_path):
    bio = bios["lindqvist"]
    llm = scripted_llm(AgentScript(identity=reidentify_while(bio.marker, "Marten Lindqvist")))
    doc = bio.document(name=None)
    [result], _ = await anonymize_docs(llm, [doc], db_path, AnonymizeConfig(max_iterations=0))
    assert result.protected == {"name": "Marten Lindqvist"}
    assert result.privacy_score == 1  # the probe's own guess, found again at rank 1


# -- best so far --------------------------------------------------------------------------


async def test_result_is_the_best_version_not_the_last(scripted_llm, bios, db_path):
    bio = bios["okafor"]
    utilities = {"va": 80, "vb": 50, "vc": 70}

    def utility(text):
        for tag, u in utilities.items():
            if f"[{tag}]" in text:
                return utility_answer(u)
        return utility_answer(99)

    llm = scripted_llm(
        AgentScript(
            identity=reidentify_while(bio.marker, bio.name),
            utility=utility,
            optimizer=scripted_edits(
                lambda t: t.replace("Hartley Medal", "an award") + " [va]",  # protected, utility 0.80
                lambda t: t.replace("[va]", "[vb]"),  # utility mode, worse: 0.50
                lambda t: t.replace("[vb]", "[vc]"),  # better than v2, still worse than v1
            ),
        )
    )
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=3))
    assert result.stop_reason == "max_iterations"
    assert len(llm.requests_for("OptimizerAnswer")) == 3
    assert result.best_iteration == 1
    assert result.anonymized_text.endswith("[va]")
    assert (result.privacy_score, result.utility_score) == (11, 0.8)
    its = iterations(db_path, result.run_id)
    assert its[-1]["text"].endswith("[vc]")  # the last version exists but is not returned


async def test_privacy_comes_before_utility(scripted_llm, bios, db_path):
    bio = bios["duarte"]
    ranks = {"[va]": 2, "[vb]": 6}
    utils = {"[va]": 90, "[vb]": 20}

    def identity(text):
        rank = next((r for tag, r in ranks.items() if tag in text), 1)
        names = [f"Person {i}" for i in range(1, 11)]
        names[rank - 1] = bio.name
        return identity_answer(*names)

    def utility(text):
        return utility_answer(next((u for tag, u in utils.items() if tag in text), 99))

    llm = scripted_llm(
        AgentScript(
            identity=identity,
            utility=utility,
            optimizer=scripted_edits(lambda t: t + " [va]", lambda t: t.replace("[va]", "[vb]")),
        )
    )
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=2))
    assert result.best_iteration == 2  # rank 6 beats rank 2 although its utility is far lower
    assert result.privacy_score == 6 and not result.privacy_target_met


async def test_privacy_beyond_p_max_counts_the_same_so_utility_decides(scripted_llm, bios, db_path):
    bio = bios["duarte"]

    def identity(text):
        if "[va]" in text:  # rank 4: meets p_max=3
            return identity_answer("A B", "C D", "E F", bio.name)
        if "[vb]" in text:  # not guessed at all: more private, but beyond the target
            return identity_answer("A B")
        return identity_answer(bio.name)

    utility = lambda t: utility_answer(70 if "[va]" in t else 40 if "[vb]" in t else 99)  # noqa: E731
    llm = scripted_llm(
        AgentScript(
            identity=identity,
            utility=utility,
            optimizer=scripted_edits(lambda t: t + " [va]", lambda t: t.replace("[va]", "[vb]")),
        )
    )
    config = AnonymizeConfig(k=10, p_max=3, max_iterations=2, u_target=0.95)
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, config)
    assert result.best_iteration == 1
    assert (result.privacy_score, result.utility_score) == (4, 0.7)
    assert result.privacy_target_met


async def test_the_original_is_never_returned_once_an_edit_exists(scripted_llm, bios, db_path):
    bio = bios["lindqvist"]
    # the original already escapes the attacker and scores higher utility than any edit
    llm = scripted_llm(
        AgentScript(
            identity=lambda t: identity_answer("Somebody Else"),
            utility=lambda t: utility_answer(90 if t == bio.text else 30),
            optimizer=scripted_edits(lambda t: t.replace("Örebro SK", "a Swedish club")),
        )
    )
    config = AnonymizeConfig(max_iterations=1, u_target=0.95)
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, config)
    assert result.best_iteration == 1
    assert result.anonymized_text != bio.text
    assert "a Swedish club" in result.anonymized_text


async def test_original_is_the_result_when_no_edit_was_needed(scripted_llm, bios, db_path):
    bio = bios["lindqvist"]
    llm = scripted_llm(AgentScript())  # nobody guessed, utility 95 >= 0.9
    unnamed = bio.text.replace("Mårten Lindqvist", "He")  # a text that names the person always needs an edit
    [result], _ = await anonymize_docs(llm, [bio.document(text=unnamed)], db_path)
    assert result.stop_reason == "targets_met"
    assert result.best_iteration == 0 and result.iterations == 0
    assert result.anonymized_text == unnamed
    assert llm.requests_for("OptimizerAnswer") == []
    assert result.privacy_status == "unverified"  # the attacker never found anybody: nothing is certified


def test_lexicographic_key_and_better():
    assert lexicographic_key(15, 0.2, 10) == (10, 0.2)
    assert lexicographic_key(3, 0.2, 10) < lexicographic_key(4, 0.1, 10)
    orig = {"iteration": 0, "text": "o", "privacy_score": 11, "utility_score": 1.0}
    edit = {"iteration": 1, "text": "e", "privacy_score": 1, "utility_score": 0.0}
    assert better(edit, orig, 10)
    assert better(orig, None, 10)
    worse = {"iteration": 2, "text": "w", "privacy_score": 1, "utility_score": 0.0}
    assert not better(worse, edit, 10)  # ties keep the incumbent


# -- stop rules ---------------------------------------------------------------------------


async def test_targets_met_stops_early(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    llm = scripted_llm(
        AgentScript(
            identity=reidentify_while(bio.marker, bio.name),
            optimizer=scripted_edits(lambda t: t.replace("Sacramento", "California")),
        )
    )
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=10))
    assert len(llm.requests_for("OptimizerAnswer")) == 1
    assert result.stop_reason == "targets_met" and result.iterations == 1
    assert len(llm.requests_for("IdentityAnswer")) == 2  # the original and the single edit


@pytest.mark.parametrize("max_iterations", [0, 1, 3])
async def test_max_iterations_bounds_the_optimizer_calls(scripted_llm, bios, db_path, max_iterations):
    bio = bios["fishback"]
    n = {"i": 0}

    def optimizer(text):  # always changes something, never removes the marker
        n["i"] += 1
        return optimizer_answer(f"{text} [edit {'abcdefgh'[n['i']]}]")

    llm = scripted_llm(AgentScript(identity=reidentify_while(bio.marker, bio.name), optimizer=optimizer))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=max_iterations))
    assert len(llm.requests_for("OptimizerAnswer")) == max_iterations
    assert result.iterations == max_iterations
    assert result.stop_reason == "max_iterations"
    assert len(iterations(db_path, result.run_id)) == max_iterations + 1
    assert result.privacy_score == 1 and not result.privacy_target_met


async def test_optimizer_changing_nothing_in_privacy_mode_is_rejected(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    llm = scripted_llm(
        AgentScript(
            identity=reidentify_while(bio.marker, bio.name),
            optimizer=scripted_edits(lambda t: t.replace("1933", "the 1930s")),  # then the same text forever
        )
    )
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=10))
    # one edit, then a copy with no edit, retried once at a higher temperature, still a copy
    assert len(llm.requests_for("OptimizerAnswer")) == 3
    assert [r["temperature"] for r in llm.requests_for("OptimizerAnswer")] == [0.0, 0.0, 0.8]
    assert result.stop_reason == "rejected"
    assert result.rejections == [{"iteration": 2, "mode": "privacy", "reason": "a copy of its input with no edit"}]
    assert "the 1930s" in result.anonymized_text  # the best version so far is kept
    assert result.status == "done" and result.privacy_status == "re-identified"


async def test_optimizer_changing_nothing_twice_in_utility_mode_converges(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    llm = scripted_llm(
        AgentScript(
            identity=lambda t: identity_answer(bio.name) if "Fishback" in t else identity_answer("Somebody Else"),
            utility=lambda t: utility_answer(60),
        )
    )
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=10))
    # round 1 (privacy mode): the model's copy is rejected (twice: the retry), but the name goes
    # deterministically, a new version; then, in utility mode, the model changes nothing twice
    assert result.stop_reason == "converged"
    assert len(llm.requests_for("OptimizerAnswer")) == 4
    assert [r["mode"] for r in result.rejections] == ["privacy"]
    assert "Fishback" not in result.anonymized_text
    assert result.privacy_status == "protected"  # the attacker found the original, not the output


async def test_blank_optimizer_answer_is_rejected_and_the_best_version_kept(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    llm = scripted_llm(
        AgentScript(identity=reidentify_while(bio.marker, bio.name), optimizer=lambda t: optimizer_answer("   "))
    )
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=10))
    assert result.stop_reason == "rejected"
    # round 1: blank twice, but the deterministic name removal is a new version; round 2: nothing new
    assert len(llm.requests_for("OptimizerAnswer")) == 4
    assert [r["reason"] for r in result.rejections] == ["empty answer", "empty answer"]
    assert result.anonymized_text == bio.text.replace(bio.name, "This person")  # its sentence says "photographer"
    assert result.iterations == 1


# -- token accounting ---------------------------------------------------------------------


async def test_tokens_summed_per_run_per_agent_and_per_iteration(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    script = AgentScript(
        identity=reidentify_while(bio.marker, bio.name),
        optimizer=scripted_edits(lambda t: t.replace("1933", "the 1930s"),
                                 lambda t: t.replace("Sacramento", "California")),
    )
    llm = scripted_llm(script, prompt_tokens=7)
    [result], anon = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=5))
    assert result.stop_reason == "targets_met"

    def completion(schemas=None):
        return sum(max(1, len(c) // 4) for name, c in script.answers if schemas is None or name in schemas)

    n_requests = len(llm.requests)
    assert n_requests == 3 + 3 + 2  # (P, U) x 3 versions + 2 optimizer edits
    assert result.usage["prompt_tokens"] == 7 * n_requests
    assert result.usage["completion_tokens"] == completion()
    assert result.usage["calls"] == n_requests

    meter = anon.engine.resources[0].meter
    assert meter.by_agent["optimizer"].calls == 2
    assert meter.by_agent["optimizer"].prompt_tokens == 14
    assert meter.by_agent["optimizer"].completion_tokens == completion({"OptimizerAnswer"})
    assert meter.by_agent["p_evaluator"].calls == 3
    assert meter.by_agent["u_evaluator"].completion_tokens == completion({"UtilityAnswer"})
    assert meter.total.prompt_tokens == result.usage["prompt_tokens"]

    its = iterations(db_path, result.run_id)
    assert [it["prompt_tokens"] for it in its] == [14, 21, 21]  # P+U, then optimizer+P+U
    assert sum(it["completion_tokens"] for it in its) == result.usage["completion_tokens"]
    assert all(it["latency_ms"] > 0 for it in its)


async def test_retries_show_up_in_the_run_usage(scripted_llm, bios, db_path):
    from veil.testing.scripted_llm import Fault

    bio = bios["lindqvist"]
    llm = scripted_llm(AgentScript(), prompt_tokens=3)
    llm.faults.append(Fault(malformed=True))
    [result], anon = await anonymize_docs(llm, [bio.document(text=bio.text.replace(bio.name, "He"))], db_path)
    assert result.status == "done"
    assert len(llm.requests) == 3
    assert result.usage["prompt_tokens"] == 9  # the malformed answer cost tokens too
    assert anon.engine.resources[0].meter.total.retries == 1


# -- resume from a checkpoint -------------------------------------------------------------


async def test_failed_run_resumes_from_its_checkpoint(scripted_llm, bios, db_path):
    """The optimizer fails hard mid-run; the same run id resumes without re-evaluating the
    versions already evaluated."""
    from veil.anonymizer import Anonymizer
    from veil.testing.scripted_llm import Fault
    from tests.conftest import llm_settings

    bio = bios["fishback"]
    broken = {"on": True}

    def optimizer(text):
        if broken["on"]:
            return Fault(status=500)
        return optimizer_answer(text.replace("Sacramento", "California"))

    llm = scripted_llm(AgentScript(identity=reidentify_while(bio.marker, bio.name), optimizer=optimizer))
    config = AnonymizeConfig(max_iterations=3)
    async with Anonymizer("llm", config=config, llm=llm_settings(llm, max_retries=0), db_path=db_path) as anon:
        first = await anon.anonymize(bio.document(), run_id="run-resume")
    assert first.status == "failed"
    assert len(llm.requests_for("IdentityAnswer")) == 1

    broken["on"] = False
    async with Anonymizer("llm", config=config, llm=llm_settings(llm, max_retries=0), db_path=db_path) as anon:
        second = await anon.anonymize(bio.document(), run_id="run-resume")
    assert second.status == "done", second.error
    assert second.stop_reason == "targets_met"
    assert "California" in second.anonymized_text
    assert len(llm.requests_for("IdentityAnswer")) == 2  # the original was not evaluated again
    assert [it["iteration"] for it in iterations(db_path, "run-resume")] == [0, 1]


def test_config_defaults_and_bounds():
    assert (AnonymizeConfig().k, AnonymizeConfig().p_max) == (10, 10)
    assert AnonymizeConfig(k=5, p_max=50).p_max == 6  # capped at K + 1
    with pytest.raises(ValueError):
        AnonymizeConfig(max_iterations=-1)
    with pytest.raises(ValueError):
        AnonymizeConfig(u_target=1.5)
    assert json.loads(AnonymizeConfig(profile="attributes").model_dump_json())["k"] == 3


async def test_time_budget_stops_the_loop_after_the_iteration_in_flight(scripted_llm, bios, db_path):
    """A slow endpoint: the document's time budget is spent during the first optimizer call, so
    the loop evaluates that version, then stops (not at max_iterations) and keeps it."""
    import time

    bio = bios["fishback"]
    def slow(edits):
        def optimizer(text):
            time.sleep(1.0)
            return edits(text)
        return optimizer

    def slow_optimizer():
        return slow(scripted_edits(lambda t: t.replace("1933", "the 1930s"),
                                   lambda t: t.replace("Sacramento", "California")))

    llm = scripted_llm(AgentScript(identity=reidentify_while(bio.marker, bio.name), optimizer=slow_optimizer()))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path,
                                       AnonymizeConfig(max_iterations=5, time_budget=0.5))
    assert len(llm.requests_for("OptimizerAnswer")) == 1
    assert result.iterations == 1 and result.stop_reason == "time_budget"
    assert "the 1930s" in result.anonymized_text and result.status == "done"
    assert len(iterations(db_path, result.run_id)) == 2

    # without a budget the same endpoint gets every round
    llm = scripted_llm(AgentScript(identity=reidentify_while(bio.marker, bio.name), optimizer=slow_optimizer()))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=2))
    assert result.iterations == 2 and result.stop_reason == "targets_met"
