"""The ``local`` engine on a small hand-written batch (no LLM, MiniLM only): the attack-driven
optimizer, always-replaced spans, allow/deny lists, utility mode, the U-Evaluator, the
inferrer, a knowledge-base population and a small end-to-end CLI run.

The biographies are fictional. MiniLM is loaded once per module (the engine fixtures are
module-scoped); the whole module runs in well under a minute on CPU.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from veil.agents.base import PrivacyResult, Task, UtilityResult
from veil.agents.local.engine import build
from veil.agents.local.generalize import GeneralizeContext, candidates
from veil.agents.local.inferrer import infer_attributes
from veil.agents.local.p_evaluator import fast_rank
from veil.agents.local.spans import place_info
from veil.anonymizer import Anonymizer
from veil.documents import Document
from veil.graphs.anonymize import AnonymizeConfig

K = 3  # attacker's top-K for the batch of twelve (the default 10 would exceed the batch)

BATCH: list[dict[str, str]] = [
    dict(id="b1", name="Margarethe Vollrath", label="Chef", text=(
        "Margarethe Vollrath (born 12 March 1961 in Hamburg) is a German chef. Vollrath trained at the Hotel "
        "Sacher and opened the restaurant Blaue Gans, which earned two Michelin stars in 1998. Margarethe is "
        "married to Otto Krantz, who bakes; write to mvollrath@blauegans.de.")),
    dict(id="b2", name="Tomasz Wierzbicki", label="Chef", text=(
        "Tomasz Wierzbicki is a Polish chef born in 1975 in Krakow. He studied at the Jagiellonian University "
        "before cooking under Otto Krantz in Lyon, and his bistro Szafran won the Golden Ladle prize in 2012. "
        "Contact: tomasz.w@szafran.pl.")),
    dict(id="b3", name="Aiko Tanabe", label="Chef", text=(
        "Aiko Tanabe is a Japanese chef from Osaka who runs a noodle kitchen in Kyoto. Tanabe wrote three "
        "cookbooks on broth and was named Kansai Cook of the Year in 2009.")),
    dict(id="b4", name="Rafael Quintero", label="Tennis player", text=(
        "Rafael Quintero (born 4 June 1990 in Seville) is a Spanish tennis player. Quintero won the junior "
        "title at Roland Garros in 2008 and reached a career-high ranking of 14 in 2015.")),
    dict(id="b5", name="Greta Lindholm", label="Tennis player", text=(
        "Greta Lindholm is a Swedish tennis player born in 1994 in Gothenburg. Lindholm played college tennis "
        "at Stanford University and won the doubles title at the Stockholm Open in 2019.")),
    dict(id="b6", name="Kwame Asante", label="Tennis player", text=(
        "Kwame Asante is a Ghanaian tennis player from Kumasi. Asante turned professional in 2011, played "
        "the Davis Cup for his country and coaches juniors in Accra.")),
    dict(id="b7", name="Lucia Ferraro", label="Architect", text=(
        "Lucia Ferraro (born 1968 in Turin) is an Italian architect. Ferraro studied at the Politecnico di "
        "Milano and designed the Vetra library, which won the Aga Khan Award in 2007.")),
    dict(id="b8", name="Henrik Dahl", label="Architect", text=(
        "Henrik Dahl is a Danish architect born in 1955 in Aarhus. Dahl taught at the Royal Danish Academy "
        "and his harbour baths in Copenhagen received the Nykredit Prize in 2003.")),
    dict(id="b9", name="Sofia Mendes", label="Architect", text=(
        "Sofia Mendes is a Brazilian architect from Recife. Mendes graduated from the University of Sao Paulo "
        "and her timber school in Manaus was shortlisted for the Pritzker Prize.")),
    dict(id="b10", name="Dmitri Volkov", label="Chef", text=(
        "Dmitri Volkov is a Russian chef born in 1982 in Novosibirsk. Volkov cooked at a fish restaurant in "
        "Vladivostok and hosts a television show about dumplings.")),
    dict(id="b11", name="Amara Okoye", label="Tennis player", text=(
        "Amara Okoye is a Nigerian tennis player born in 1999 in Lagos. Okoye won a bronze medal at the African "
        "Games in 2019 and trains on hard courts in Abuja.")),
    dict(id="b12", name="Pieter de Smet", label="Architect", text=(
        "Pieter de Smet is a Belgian architect born in 1949 in Ghent. De Smet restored the old cloth hall in "
        "Bruges and wrote a book about brick vaults.")),
]
BY_ID = {d["id"]: d for d in BATCH}
DOCS = [Document(**d) for d in BATCH]


def task_for(doc_id: str, *, k: int = K, p_max: int = K) -> Task:
    d = BY_ID[doc_id]
    return Task(k=k, p_max=p_max, name=d["name"], label=d["label"], original=d["text"], doc_id=doc_id)


def name_parts(name: str) -> list[str]:
    return [p for p in name.split() if len(p) > 2]


def has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


class Prepared:
    """An engine with the batch its prepare() built (the agents take it on every call)."""

    def __init__(self, eng, docs=DOCS):
        self.engine = eng
        self.batch = asyncio.run(eng.prepare(docs))

    def __getattr__(self, name):
        return getattr(self.engine, name)


@pytest.fixture(scope="module")
def engine():
    """The default local engine, prepared on the batch (loads MiniLM once for the module)."""
    return Prepared(build())


@pytest.fixture(scope="module")
def listed_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The whole batch through the Anonymizer (local engine) with an allow and a deny list."""
    db = tmp_path_factory.mktemp("listed") / "veil.db"

    async def go():
        anon = Anonymizer("local", config=AnonymizeConfig(k=K, p_max=K), db_path=db,
                          engine_options={"allow": ["German"], "deny": ["Michelin"]})
        async with anon:
            await anon.prepare(DOCS)
            return {d.id: await anon.anonymize(d) for d in DOCS}

    return asyncio.run(go())


# -- 1. attack-driven selection ------------------------------------------------------------


@pytest.mark.xfail(strict=True, reason="known regression (issue 8): in this 12-record batch with K=3 the grammatical "
                   "planner no longer pushes every record past the BM25 attack (it deletes whole units only, and never "
                   "the last sentence that says the label); DB-bio figures are in the README")
@pytest.mark.slow
def test_attack_driven_plan_defeats_linking_attack_with_ladder_candidates(engine) -> None:
    pe, opt, batch = engine.p_evaluator, engine.optimizer, engine.batch
    task = task_for("b1")
    original = asyncio.run(pe.evaluate(task.original, task, batch=batch))
    assert original.score == 1, "the original must be re-identified for this test to mean anything"
    assert original.per_target["partial_knowledge"] == 1
    assert original.guesses and original.guesses[0].matched

    plan = opt.privacy_plan(task, batch)
    out = plan.render()
    rank, _ = fast_rank(pe, batch, out, task)
    assert rank > task.p_max
    assert asyncio.run(pe.evaluate(out, task, batch=batch)).score > task.p_max

    chosen = {plan.units[i].span.text: (plan.units[i], plan.choice[i]) for i in plan.order}
    # the city is generalized truthfully: a value of its ladder, a region/country/continent, never a city
    unit, repl = chosen["Hamburg"]
    assert unit.span.type == "LOCATION"
    assert repl in unit.ladder and repl != ""
    ladder = candidates(unit.span, ctx=GeneralizeContext())
    assert repl in ladder
    assert "Germany" in ladder
    for c in ladder:
        info = place_info(c)
        assert info is None or info.get("kind") != "city", (c, info)
    assert repl in out and "Hamburg" not in out
    # the birth date: a value of its ladder, all of them truthful about 12 March 1961
    unit, repl = chosen["12 March 1961"]
    assert unit.span.type == "DATE"
    assert repl in unit.ladder and repl != "12 March 1961"
    assert all(any(s in c for s in ("1961", "1960s", "20th century")) for c in unit.ladder), unit.ladder
    assert repl in out and "1961" not in out
    # every non-name edit was chosen because it helped the attack
    for i in plan.order:
        assert plan.reasons[i], plan.units[i].span.text
        if not plan.units[i].direct:
            assert "attack" in plan.reasons[i]


@pytest.mark.xfail(strict=True, reason="known regression (issue 8): in this 12-record batch with K=3 the grammatical "
                   "planner no longer pushes every record past the BM25 attack (it deletes whole units only, and never "
                   "the last sentence that says the label); DB-bio figures are in the README")
@pytest.mark.slow
def test_plan_reaches_target_or_exhausts_its_options_for_every_document(engine) -> None:
    pe, opt, batch = engine.p_evaluator, engine.optimizer, engine.batch
    met = 0
    for d in DOCS:
        task = task_for(d.id)
        assert fast_rank(pe, batch, d.text, task)[0] <= task.p_max  # every original is found
        plan = opt.privacy_plan(task, batch)
        out = plan.render()
        rank, weights = fast_rank(pe, batch, out, task)
        if rank > task.p_max:
            met += 1
            continue
        # not met: the optimizer went as far as deleting sentences (all but one)
        deleted = [i for i in plan.order if plan.units[i].kind == "sentence"]
        live = [i for i, u in enumerate(plan.units) if u.kind == "sentence" and i not in plan.choice]
        assert deleted and len(live) <= 1, (d.id, out)
        assert all(plan.reasons[i] == "no truthful generalization defeats the attack" for i in deleted)
    assert met >= 2


@pytest.mark.slow
def test_optimizer_result_edits_carry_reasons(engine) -> None:
    task = task_for("b2")
    privacy = PrivacyResult(score=1, k=K)
    utility = UtilityResult(score=1.0, label=task.label)
    res = asyncio.run(engine.optimizer.optimize(task.original, task, "privacy", privacy, utility, [], batch=engine.batch))
    assert res.text != task.original
    assert res.edits
    for e in res.edits:
        assert e.reason.strip(), e
        assert e.before != e.after
    by_before = {e.before: e for e in res.edits}
    assert "name" in by_before["Tomasz Wierzbicki"].reason
    assert by_before["tomasz.w@szafran.pl"].operation == "obscure"
    assert any("linking attack" in e.reason for e in res.edits)
    # the same call again: nothing further to do once the plan's text is in
    again = asyncio.run(engine.optimizer.optimize(res.text, task, "privacy", privacy, utility, [], batch=engine.batch))
    assert again.edits == [] and again.text == res.text


@pytest.mark.slow
def test_names_and_emails_always_replaced_consistently(listed_results) -> None:
    for d in DOCS:
        r = listed_results[d.id]
        assert r.status == "done", r.error
        out = r.anonymized_text
        for part in name_parts(d.name or ""):
            assert not has_word(out, part), (d.id, part, out)
        assert "@" not in out, out
    b1 = listed_results["b1"].anonymized_text
    assert "chef" in b1  # the label is never replaced, and the role noun never injected
    assert "Krantz" not in b1 and "Otto" not in b1


@pytest.mark.slow
def test_pseudonyms_consistent_across_the_batch(engine) -> None:
    """Otto Krantz (no document's subject) is mentioned in b1 and b2: the same placeholder."""
    reps = {}
    for doc_id in ("b1", "b2"):
        plan = engine.optimizer.privacy_plan(task_for(doc_id), engine.batch)
        got = {plan.units[i].span.text: plan.choice[i] for i in plan.order
               if plan.units[i].direct and plan.units[i].span is not None and i in plan.choice}
        reps[doc_id] = got
        # every mention of the subject (full name, surname, first name) gets one replacement
        # ("this person" where the mention's own sentence says the role: "is a German chef")
        subject = [v for t, v in got.items() if t in BY_ID[doc_id]["name"]]
        assert subject and len(set(subject) - {"this person"}) == 1, got
    assert reps["b1"]["Otto Krantz"] == reps["b2"]["Otto Krantz"]
    assert re.fullmatch(r"Person [A-Z]+", reps["b1"]["Otto Krantz"])
    # and a different person gets a different placeholder
    others = {v for doc in reps.values() for t, v in doc.items() if v.startswith("Person") and t != "Otto Krantz"}
    assert reps["b1"]["Otto Krantz"] not in others


# -- 3. allow / deny -----------------------------------------------------------------------


@pytest.mark.slow
def test_deny_listed_term_redacted_and_allow_listed_term_kept(engine, listed_results) -> None:
    b1 = listed_results["b1"].anonymized_text
    assert "Michelin" not in b1  # deny-listed: always removed, with its phrase or as [redacted]
    # the allow-listed nationality stays verbatim
    assert has_word(b1, "German"), b1


@pytest.mark.slow
def test_allow_listed_term_survives_sentence_deletion() -> None:
    eng = Prepared(build(allow=["Lyon"]))
    assert "Lyon" in eng.optimizer.privacy_plan(task_for("b2"), eng.batch).render()


# -- 4. utility mode -----------------------------------------------------------------------


@pytest.mark.xfail(strict=True, reason="known regression (issue 8): in this 12-record batch with K=3 the grammatical "
                   "planner no longer pushes every record past the BM25 attack (it deletes whole units only, and never "
                   "the last sentence that says the label); DB-bio figures are in the README")
@pytest.mark.slow
def test_restore_keeps_names_deny_terms_out_and_the_attacker_beyond_p_max() -> None:
    eng = Prepared(build(deny=["Szafran"]))
    pe, opt, batch = eng.p_evaluator, eng.optimizer, eng.batch
    restored_any = False
    for doc_id in ("b1", "b2", "b4", "b7"):
        task = task_for(doc_id)
        plan = opt.privacy_plan(task, batch)
        if fast_rank(pe, batch, plan.render(), task)[0] <= task.p_max:
            continue
        always = {i for i in plan.choice if plan.units[i].direct}
        changed = opt.restore(plan, task, batch)
        restored_any |= bool(changed)
        out = plan.render()
        assert fast_rank(pe, batch, out, task)[0] > task.p_max, (doc_id, out)
        assert always <= set(plan.choice)  # names/emails/deny terms are never undone
        assert not any(plan.units[i].direct for i in changed)
        for part in name_parts(BY_ID[doc_id]["name"]):
            assert not has_word(out, part), (doc_id, out)
        assert "Szafran" not in out and "@" not in out
        if doc_id == "b2":
            assert "[redacted]" in out
    assert restored_any, "utility mode should give back at least one edit the target does not need"


# -- 5. U-Evaluator ------------------------------------------------------------------------


@pytest.mark.slow
def test_utility_classifier_and_cosine(engine) -> None:
    ue, batch = engine.u_evaluator, engine.batch
    assert sorted(batch.classes) == ["Architect", "Chef", "Tennis player"]
    chef_text = "The cook runs a small kitchen and is known for slow-braised stews and fresh pasta."
    tennis_text = "The athlete won a five-set match on clay with a powerful serve and backhand."
    t = Task(label="Chef", original=chef_text, doc_id="x")
    chef = asyncio.run(ue.evaluate(chef_text, t, batch=batch)).score
    tennis = asyncio.run(ue.evaluate(tennis_text, t, batch=batch)).score
    assert chef > tennis
    assert chef > 0.5
    # no label: cosine similarity to the original
    u = Task(label=None, original=chef_text, doc_id="y")
    same = asyncio.run(ue.evaluate(chef_text, u, batch=batch))
    assert same.score == pytest.approx(1.0, abs=1e-3)
    assert "cosine" in same.explanation
    other = asyncio.run(ue.evaluate(tennis_text, u, batch=batch)).score
    assert other < 0.8


# -- 6. inferrer ---------------------------------------------------------------------------


def test_inferrer_sex_birthplace_relationship() -> None:
    text = "He was born in Valencia in 1970. He lives with his wife and two dogs; his brother is a pilot."
    got = {a.attribute: a for a in infer_attributes(text)}
    assert got["sex"].guesses[0] == "male"
    assert got["place_of_birth"].guesses[0] == "Valencia"
    assert got["relationship_status"].guesses[0] == "married"
    assert "wife" in got["relationship_status"].evidence
    she = {a.attribute: a for a in infer_attributes("She is a nurse and her husband teaches.")}
    assert she["sex"].guesses[0] == "female"
    assert "place_of_birth" not in she
    assert infer_attributes("The weather was mild.") == [] or all(
        a.attribute not in ("sex", "place_of_birth", "relationship_status") for a in infer_attributes("The weather was mild.")
    )


# -- 7. end to end -------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_anonymize_batch_and_trace(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from veil.cli import main

    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(d) + "\n" for d in BATCH), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    db = tmp_path / "veil.db"
    rc = main(["anonymize", str(batch), "--text-field", "text", "--label-field", "label", "--name-field", "name",
               "-k", str(K), "-o", str(out), "--db", str(db), "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [d["id"] for d in BATCH]
    for r in rows:
        assert r["anonymized_text"] and r["anonymized_text"] != r["text"]
        assert isinstance(r["privacy_score"], int) and 1 <= r["privacy_score"] <= K + 1
        assert 0.0 <= r["utility_score"] <= 1.0
        assert r["run_id"].startswith("run-")
        for part in name_parts(r["name"]):
            assert not has_word(r["anonymized_text"], part), (r["id"], part)
        assert "@" not in r["anonymized_text"]
    assert all(r["privacy_status"] in ("protected", "unverified", "re-identified") for r in rows)
    capsys.readouterr()
    assert main(["trace", "show", rows[0]["run_id"], "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert rows[0]["run_id"] in shown
    assert main(["trace", "show", "run-nope", "--db", str(db)]) != 0


# -- 8. population knowledge base ----------------------------------------------------------


@pytest.mark.slow
def test_population_knowledge_base_guesses_are_kb_names(tmp_path: Path) -> None:
    kb = tmp_path / "kb.jsonl"
    people = [
        ("Lucia Ferraro", "Italian architect from Turin, Politecnico di Milano graduate, designed the Vetra library, Aga Khan Award 2007."),
        ("Henrik Dahl", "Danish architect from Aarhus who taught at the Royal Danish Academy; harbour baths in Copenhagen."),
        ("Aiko Tanabe", "Japanese chef from Osaka, noodle kitchen in Kyoto, cookbooks on broth."),
        ("Greta Lindholm", "Swedish tennis player from Gothenburg, Stanford University, Stockholm Open doubles."),
        ("Bruno Castellane", "French sculptor working in bronze in Marseille."),
        ("Nadia Petrova", "Bulgarian violinist with the Sofia Philharmonic."),
    ]
    kb.write_text("".join(json.dumps({"name": n, "text": t}) + "\n" for n, t in people), encoding="utf-8")
    eng = Prepared(build(population_path=kb))
    assert eng.batch.population_is_batch is False
    names = {n for n, _ in people}
    pe = eng.p_evaluator
    for doc_id in ("b7", "b3"):
        task = task_for(doc_id)
        r = asyncio.run(pe.evaluate(task.original, task, batch=eng.batch))
        assert r.guesses and {g.value for g in r.guesses} <= names
        assert len(r.guesses) == K
        assert r.guesses[0].value == BY_ID[doc_id]["name"] and r.guesses[0].matched
        assert r.score == 1 and r.per_target["full_text"] == 1
        assert r.clues  # the terms that gave the person away
    # a text about nobody in the knowledge base: still only KB names, none matched
    task = Task(k=K, p_max=K, name="Sofia Mendes", original=BY_ID["b9"]["text"], doc_id="b9")
    r = asyncio.run(pe.evaluate(task.original, task, batch=eng.batch))
    assert {g.value for g in r.guesses} <= names
    assert not any(g.matched for g in r.guesses)
    assert r.score == K + 1


_FIRST = "Anna Bruno Carla Dario Elena Fabio Greta Hugo Irene Jonas Klara Lars Mira Nils Olga Paolo Rosa Sven Tilda Ugo".split()
_LAST = "Adler Berger Conti Dorn Eckert Falk Gallo Haas Ianni Jung Keller Lenz Moretti Nagel Orsini Pohl Rinaldi Stahl Testa Vogt".split()


@pytest.mark.slow
@pytest.mark.parametrize("sharers", [0, 1, 20])
def test_a_name_no_other_record_mentions_goes_and_a_shared_one_stays(sharers: int) -> None:
    """In a batch big enough to count in, a name the edits left as written ("a Summer Kitchen
    Program": common words after "a", so neither the NER nor the rare-word test takes it for a
    name) goes when no other record's release mentions it, or only one (a pair it narrows the batch
    to), here with its sentence (no phrase of it reads once removed); when the other releases say it
    too, it stays. A country stays either way."""
    shared = sharers >= 2
    docs = [Document(id=f"o{i}", name=f"{f} {l}", label="Chef", text=(
        f"{f} {l} is a chef who cooks in a small restaurant in Italy. {f} {l} also helped create "
        f"{'a Summer Kitchen Program' if i < sharers else 'a garden'} for schools."))
        for i, (f, l) in enumerate(zip(_FIRST, _LAST))]
    target = Document(id="t", name="Helga Brandt", label="Chef", text=(
        "Helga Brandt is a chef who cooks in a small restaurant in Italy. She also helped create a Summer "
        "Kitchen Program for schools. She learned to cook from her grandmother."))
    eng = Prepared(build(), docs + [target])
    task = Task(k=K, p_max=K, name=target.name, label=target.label, original=target.text, doc_id="t")
    plan = eng.optimizer.base_plan(task, eng.batch)
    assert "Summer Kitchen Program" in plan.render()  # (the policy alone keeps it)
    eng.optimizer._drop_rare_names(plan, task, eng.batch)
    out = plan.render()
    assert ("Summer Kitchen Program" in out) == shared, out
    assert "Italy" in out and out.startswith("She is a chef") and "grandmother" in out, out
    assert any("no other record mentions" in r for r in plan.reasons.values()) != shared


@pytest.mark.slow
def test_a_rare_name_an_edit_cut_short_goes_and_so_does_one_in_the_first_sentence() -> None:
    """What an edit left of a name is still the name: "the Summer Kitchen Program" once its
    ": Second Season" went (the whole run touched an edit, so "Torchwood" stayed). And a name in
    the first sentence that no phrase of it can take goes with that sentence when two others
    stand ("the creator of Veal Orloff" stayed, first sentences being exempt)."""
    docs = [Document(id=f"o{i}", name=f"{f} {l}", label="Chef", text=(
        f"{f} {l} is a chef who cooks in a small restaurant in Italy. {f} {l} also helped create a garden for schools."))
        for i, (f, l) in enumerate(zip(_FIRST, _LAST))]
    cut = Document(id="t", name="Helga Brandt", label="Chef", text=(
        "Helga Brandt is a chef who cooks in a small restaurant in Italy. She also cooked for the Summer Kitchen "
        "Program: Second Season. She learned to cook from her grandmother."))
    first = Document(id="f", name="Helga Brandt", label="Chef", text=(
        "Helga Brandt, a chef, started a Winter Pantry Program. She cooks in a small restaurant in Italy. She "
        "learned to cook from her grandmother. She has two sons."))
    eng = Prepared(build(), docs + [cut, first])
    for doc in (cut, first):
        task = Task(k=K, p_max=K, name=doc.name, label=doc.label, original=doc.text, doc_id=doc.id)
        plan = eng.optimizer.base_plan(task, eng.batch)
        if doc is cut:
            tail = next(j for j, u in enumerate(plan.units) if u.text.strip() == ": Second Season")
            plan.choice[tail] = ""
        name = "Summer Kitchen Program" if doc is cut else "Winter Pantry Program"
        assert name in plan.render()
        eng.optimizer._drop_rare_names(plan, task, eng.batch)
        out = plan.render()
        assert name.split()[0] not in out and "Italy" in out and "grandmother" in out, out
