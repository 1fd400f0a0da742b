"""The local engine's grammatical editing: units from the parse, the parse check, the policy
registry, the truthfulness checker (over many generated documents) and the single-document
suite (tests/data/single_documents.jsonl: realistic texts with their direct identifiers marked).
All with spaCy's en_core_web_sm, no MiniLM and no population."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest

from veil import nlp
from veil.agents.base import PrivacyResult, Task, UtilityResult
from veil.agents.local.engine import build
from veil.agents.local.optimizer import Plan, sentence_ok, tidy
from veil.agents.local.generalize import apply
from veil.agents.local.policy import OPERATORS, load_policy, pick
from veil.agents.local.spans import Span, find_spans
from veil.agents.local.units import constituents
from veil.documents import Document
from veil.errors import UserInputError
from veil.evals.truthfulness import check

DATA = Path(__file__).parent / "data" / "single_documents.jsonl"
SINGLE = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def units_of(text: str) -> dict[str, list[str]]:
    doc = nlp.parse(text)
    out: dict[str, list[str]] = {}
    for c in constituents(doc, nlp.sentence_spans(doc)):
        body = "".join(text[p.start:p.end] for p in c.pieces)
        out.setdefault(c.kind, []).append(body.strip())
    return out


@pytest.mark.parametrize("text, kind, piece", [
    ("He was born in Sacramento in 1942.", "prepositional phrase", "in Sacramento"),
    ("Kurt, a photographer, lives in Oakland.", "appositive", ", a photographer,"),
    ("She studied at Cornell, where she met her husband.", "relative clause", ", where she met her husband"),
    ("He moved to Paris (where he died) in 1950.", "parenthetical", "(where he died)"),
    ("She speaks French, German and Italian.", "conjunct", ", German"),
    ("He is an American photographer.", "modifier", "American"),
    ("In 1942, he moved to Texas.", "prepositional phrase", "In 1942,"),
    # a phrase set off before its own clause leaves the comma that ends what stood before ("composer, graduate he
    # is the founder" was what a comma splice became without it)
    ("He is a composer, together with his brother, he is the founder of a company.", "prepositional phrase",
     "together with his brother,"),
    ("In 1990, after the war, he moved to Texas.", "prepositional phrase", "after the war,"),
    # the first of two verb phrases that share the subject goes with its auxiliary and its "and"
    ("He was born in Leeds and studied at Oxford.", "conjunct", "was born in Leeds and"),
    # a subordinating conjunction goes with the phrase it introduces ("While he got his start" was an output)
    ("While at Nobu he got his start on the show.", "prepositional phrase", "While at Nobu"),
    # a closing "and as ..." the parse hung on the verb goes with its comma and "and" ("He was a chef, and as
    # the creator of Veal Orloff" was left once the first "as" phrase went)
    ("He was a chef who is known as the author of two books, and as the creator of Veal Orloff.", "conjunct",
     ", and as the creator of Veal Orloff"),
    # a name set off after the phrase's last noun goes with it, wherever the parse hung it ("He began his
    # career, Person AAV." was an output); a dash the parse hung on the phrase stays between the dates
    (r'Bert began his career in racing as an exercise rider for his uncle, W. C. \"Farmer Bill\" Scully.',
     "prepositional phrase", r'as an exercise rider for his uncle, W. C. \"Farmer Bill\" Scully'),
    ("Mitsuyo Maeda (born 1878 in Funazawa village, Aomori, Japan  – November 28, 1941) was a judoka.",
     "prepositional phrase", "in Funazawa village, Aomori, Japan"),
    # a clause's elliptical end the parse hung on the main verb goes with it ("She moved to a city in England
    # and later two postgraduate diplomas." was an output)
    ("She moved to London, where she completed a BMus degree at Trinity College of Music, and later two "
     "postgraduate diplomas.", "relative clause",
     ", where she completed a BMus degree at Trinity College of Music, and later two postgraduate diplomas"),
    ("He moved to Paris, where he studied law, and he later became a judge.", "relative clause",
     ", where he studied law,"),
    # a bracket after an apposed name is the appositive's, wherever the parse hung its closing half
    ("John Hunter was a Scottish surgeon. His wife, Anne Hunter (née Home), was a minor poet, some of whose poems "
     "were set to music by Joseph Haydn.", "appositive", ", Anne Hunter (née Home),"),
    # a referential adverb is an adverb phrase of its own, with the commas that set it off
    ("She is also a tennis player.", "adverb", "also"),
    ("He instead decided to leave.", "adverb", "instead"),
    ("He, too, was born in Paris.", "adverb", ", too,"),
    ("He won the cup, too.", "adverb", ", too"),
    # an adjective the parse joined to a verb with no separator is that verb's ("He threw and batted
    # right-handed tall." was an output)
    ("Howard Lawrence Hardy (born January 10, 1948, at Goose Creek, Texas) is an American former pitcher, coach and "
     "manager in professional baseball. Hardy threw and batted right-handed, stood 5 feet 10 inches (1.78 m) tall and "
     "weighed 180 pounds (82 kg) in his playing days.", "conjunct", ", stood 5 feet 10 inches (1.78 m) tall"),
    # a list in apposition to a plural noun that ends the sentence goes whole ("Included were champions, in the
    # 1930s." was what its names' loss left)
    ("Included were two U.S. Triple Crown champions, Gallant Fox in 1930 and Omaha in 1935.", "appositive",
     ", Gallant Fox in 1930 and Omaha in 1935"),
    # a quantifier's clause goes with it ("including several." was left); a noun the parse joined to a verb goes with
    # the verb ("He represented a country in a competition, and team silver." was left)
    ("He designed forty aircraft, including several honored with the Collier Trophy, acquiring a reputation.",
     "prepositional phrase", ", including several honored with the Collier Trophy,"),
    ("He represented Chile in the championship, and won individual gold and bronze, and team silver and bronze medals.",
     "conjunct", ", and won individual gold and bronze, and team silver and bronze medals"),
    # a fronted phrase the parse cut after its preposition runs to its comma ("His parent, he trained for a farm." was
    # what deleting "Along with" left)
    ("Along with his father, James Smith trained for Maine Chance Farm.", "prepositional phrase", "Along with his father,"),
    # the phrase the parse hung on the verb after a list's last noun tells of that noun ("He was a delegate
    # in the 1780s from the 1780s to the 1790s", false, was what removing the conjunct alone left)
    ("He was a delegate to the Congress from 1786 to 1788 and a United States Representative from 1789 to 1793.",
     "conjunct", "and a United States Representative from 1789 to 1793"),
    # a phrase after a coordinator the parse left without a conjunct goes with its comma and "and" (",
    # and." was what its loss left, so "Veal Orloff" stayed)
    ("Urbain François Dubois (26 May 1818 – 14 March 1901) was a French chef who is best known as the author of "
     "a series of recipe books that became classics of French Cuisine, and as the creator of Veal Orloff. Dubois, "
     "the son of a master weaver, was born in Trets in the Bouches-du-Rhône Department of France.",
     "prepositional phrase", ", and as the creator of Veal Orloff"),
    # a list's last item takes the apposition the parse hung on the first one, which tells of the last
    # item's noun ("a relationship expert, psychotherapist and author, an approach to personal evolution" was
    # what the item's loss left)
    ("He is a relationship expert, psychotherapist, author, and founder of the Emergent Thinking process, an "
     "approach to personal evolution, which integrates the emerging sciences into psychotherapy.", "conjunct",
     ",, and founder of the Emergent Thinking process, an approach to personal evolution, which integrates the "
     "emerging sciences into psychotherapy"),
    # an apposition to a clause's last noun that the parse made a second complement of the copula goes with
    # the clause ("He is an award-winning Comedian, a late-night topical comedy talk show" - false - was left)
    ("John Gordillo is an award-winning Comedian who has directed shows by the Comedian Eddie Izzard and was the "
     "host and co-creator of The RDA (Recommended Daily Allowance), a daily late-night topical comedy talk show, "
     "which played heavily with the conventions of the genre The show ran for 60 episodes until BBC Choice was "
     "rebranded as BBC Three.", "relative clause",
     "who has directed shows by the Comedian Eddie Izzard and was the host and co-creator of The RDA (Recommended "
     "Daily Allowance), a daily late-night topical comedy talk show, which played heavily with the conventions of the "
     "genre The show ran for 60 episodes until BBC Choice was rebranded as BBC Three"),
    # as does a phrase set off at the sentence's end that the parse hung on the copula ("He was a civil engineer,
    # during the early years of the 20th century." - false of a longer career - was left)
    ("He was a British civil engineer particularly associated with harbour works in Burma, Iraq and Bombay, during "
     "the early years of the 20th century.", "participial clause",
     "particularly associated with harbour works in Burma, Iraq and Bombay, during the early years of the 20th century"),
])
def test_removable_dependents_are_whole_constituents_with_their_punctuation(text, kind, piece):
    assert piece in units_of(text).get(kind, []), units_of(text)


@pytest.mark.parametrize("text, kind, expected", [
    # a clause that said which one takes its noun's "the" to "a" ("He spent a two-year period with the
    # engineering firm." was an output); one set off by a comma, or after a noun some other phrase
    # already picks out, leaves "the"
    ("He spent two years with the engineering firm run by John Wolfe-Barry before he returned.",
     "participial clause", "He spent two years with an engineering firm before he returned."),
    ("The firm that he founded in Paris was large.", "relative clause", "A firm was large."),
    ("He joined the firm, which he later led.", "relative clause", "He joined the firm."),
    ("He joined the firm of his father that he later led.", "relative clause", "He joined the firm of his father."),
])
def test_a_clause_that_made_its_noun_definite_goes_with_the_the(text, kind, expected):
    doc = nlp.parse(text)
    found = [c for c in constituents(doc, nlp.sentence_spans(doc)) if c.kind == kind]
    rendered = {tidy(apply(text, [(Span(p.start, p.end, "", "UNIT"), p.replacement) for p in c.pieces])) for c in found}
    assert expected in rendered, rendered


def test_no_unit_is_a_single_word_inside_a_phrase_or_a_needed_complement():
    u = units_of("He was a member of the Communist Party and the brother of Phil.")
    flat = [p for ps in u.values() for p in ps]
    assert "of the Communist Party" not in flat and "of Phil" not in flat  # "a member." / "the brother." never
    assert "Communist" not in flat  # a compound inside a name is not a unit
    flat = [p for ps in units_of("He then served as Executive secretary to the governor in 1947.").values() for p in ps]
    assert not any(p.startswith("as Executive") for p in flat), flat  # "He then served in the 1940s."
    flat = [p for ps in units_of("He has flown over 100 types of aircraft.").values() for p in ps]
    assert "of aircraft" not in flat, flat  # "He has flown over 100 types." (a plural relational noun)
    # nothing inside a hyphenated compound ("She is the editor-" / "ranked pound-" were outputs)
    u = units_of("She is the current editor-in-chief of the journal and the best pound-for-pound boxer.")
    flat = [p for ps in u.values() for p in ps]
    assert not any(p.startswith(("in-", "for-", "in", "for")) and "-" in p for p in flat), flat
    assert "-in-chief" not in flat and "in-chief" not in flat and "for-pound" not in flat, flat
    # a conjunct before a complement the nouns share ("was a piano of Mozart" was an output)
    u = units_of("She was an Austrian piano and composition pupil of Mozart.")
    assert not any("composition pupil" in p for p in u.get("conjunct", [])), u


@pytest.mark.parametrize("text, not_a_unit", [
    # each was deleted alone and left a stub a blind reader flagged
    ("He retired at the end of that season, aged 32.", "of that season"),  # "at the end"
    ("His lifetime ERA stands at 0.00.", "His lifetime"),  # "ERA stands at 0.00." (a determiner the parse made a time)
    ("He was the third student of Yip Man in the discipline of Wing Chun.", "of Wing Chun"),
    # (the article of a list of nouns: "he has focused on the design and manufacture." was an output)
    ("Since 1978, he has focused on the design and manufacture of tailored apparel for men.", "of tailored apparel for men"),
    ("Combining his love for photography and physics, he designed cameras.", "for photography and physics"),
    ("She won the prize for the best female player, thanks to her fine play.", "to her fine play"),  # "thanks."
    ("In September 2014, Hutchins left his role as tournament director to take up a new position.",
     "as tournament director"),  # "he left his role"
    ("He made it to the third round of the US Open.", "to the third round of the US Open"),  # "he made it."
    ("He was appointed by Bush to serve as Assistant to the President.", "to the President"),
    ("He was a racehorse trainer and winner of the 1971 Derby.", "of the 1971 Derby"),  # "trainer and winner."
    ("However, for the most part, Weiss is a self taught artist.", "a self"),  # "she is taught artist"
    ("He has the highest percentage due mainly to the fact he only fought 8 battles.", "due mainly"),
    ("He has the highest percentage due mainly to the fact he only fought 8 battles.", "he only fought 8 battles"),
    ("However, he remained involved with the series, competing in one battle.", "with the series"),
    ("He wrote himself into the club folklore by scoring in the final game.", "into the club folklore"),
    ("She married in 1963 and gave birth to two daughters, Poppy and Holly.", "to two daughters, Poppy and Holly"),
    ("A prolific artist, Bewick paints in oil, sculpts, and works with cloth.", ", Bewick"),
    ("He established a career in both stand-up comedy and feature film acting.", "and feature film"),
    ("She also served on the boards of Space Foundation, Milton Hershey School and Hershey Trust Company, Mayo "
     "Clinic, Raytheon and Piper Aircraft.", "on the boards of Space Foundation"),
    # a time modifier says which years ("He spent his years developing his theories" was an output)
    ("Knighted in 1945, he spent his later years developing his theories.", "later"),
    # no first verb phrase whose second borrows its auxiliary
    ("He was born and raised in Leeds.", "was born and"),
    # a plural noun's two names stay two ("He and teammates Person A were known" was an output)
    ("He and teammates Travis Mays and Joey Wright were known as the Scoring Machine.", "and Joey Wright"),
    ("His sons John and Paul are actors.", "and Paul"),
    # after "the", a noun's only modifier says which one it is ("journeys beyond the system" was an output)
    ("One of his photographs now journeys beyond the solar system.", "solar"),
    # the parse hung it on the verb, but it says which record ("In the 2010s, he set the record." was an output)
    ("In October 2015, he set the record for the most days spent in space by an American.",
     "for the most days spent in space by an American"),
    # a noun's infinitive ("he has made several efforts." was an output), "from ... to ..." of a range,
    # the first of "as ... as well as ...", the object verbs before a conjunct share, a relational
    # noun's "of", a modifier that says which ("edges of colors")
    ("Since 2007, Hess has made several efforts to get into fighting shape.", "to get into fighting shape"),
    ("His assignments varied from people to complex science subjects.", "to complex science subjects"),
    ("His assignments varied from people to complex science subjects.", "from people"),
    ("He was trained as a luthier as well as a bow maker in Paris.", "as a luthier"),
    ("He was trained as a luthier as well as a bow maker in Paris.", "as well as"),
    ("He was also a fellow of the Royal Society.", "of the Royal Society"),
    ("His works have a strong sense of composition.", "of composition"),  # ("His works have a sense" was an output)
    ("He painted narrow strips on the edge of different colors.", "different"),
    # the parse hung the list's next item on the verb: "He was a resident, a center at a school" was an output
    ("He was a resident at the Mallinckrodt Institute of Radiology, Alvin J. Siteman Cancer Center at Barnes "
     "Hospital and had a fellowship.", "at the Mallinckrodt Institute of Radiology"),
    # under a negation a restrictive phrase narrows what is denied ("never qualified for a competition" was false)
    ("He never qualified for a competition for the actual title.", "for the actual title"),
    ("He did not play for the national team in 1990.", "for the national team"),
    # a fronted clause the parse cut short ("Rankings for female cyclists and grabbed ..." was what it left)
    ("Although she was ranked no. 9 in the UCI rankings for female BMX cyclists and grabbed a tenth seed, Bailey "
     "could not match a stellar ride.", "Although she was ranked no. 9 in the UCI"),
    # the verb of a sentence the parse found none in ("His child jockey Person AUM." was an output)
    ("His daughter Sheila married jockey Alex Solis.", "married"),
    # a noun that says nothing without its kind ("He engaged in pursuits." was an output)
    ("He engaged in agricultural pursuits.", "agricultural"),
    # what a rank is in ("He was second amongst all Division I players" was an output)
    ("He was second amongst all active NCAA Division I players with 48 career double-doubles.",
     "with 48 career double-doubles"),
    # a noun modifier's conjunct ("He was a racing driver manager" was an output)
    ("Reg Parnell was a racing driver and team manager from Derby, England.", "and team"),
    # verbs that share the object at the list's end ("he released two albums, co-wrote." was an output)
    ("He released two comedy albums, co-wrote, produced, and starred in his feature film, Beer League (2006), and "
     "released his first book.", "produced, and starred in his feature film"),
    # a noun that says nothing without its clause or its "of" phrase; a degree adverb ("a widespread
    # feeling." and "in terms." were outputs; "too little attention" -> "little attention" is false)
    ("He was popular, although there was a widespread feeling that he paid too little attention to defence.",
     "that he paid too little attention to defence"),
    ("He was popular, although there was a widespread feeling that he paid too little attention to defence.", "too"),
    ("Unhappy with what the shops had to offer in terms of clothing, she started to design clothes.", "of clothing"),
    # a conjunct beside "alone" ("He worked alone." was false)
    ("He worked alone and with partners.", "and with partners"),
    # a participle that borrows the first verb's "was" ("Person APG honored by ..." was an output)
    ("In 2004, Malecki was recognized as Changing the Face of Medicine and honored as a Local Legend by the National "
     "Library of Medicine.", "was recognized as Changing the Face of Medicine and"),
    # a singular noun before a plural one that both share ("influenced by the abstract expressionist" was an output)
    ("His hybrid works are greatly influenced by the abstract expressionist and graffiti art movements.",
     "and graffiti art movements"),
    # a restrictive clause under "all" ("Membership is open to all people." was false)
    ("Membership is open to all people who have flown in outer space.", "who have flown in outer space"),
    ("He thanked every player who had scored in the final.", "who had scored in the final"),
    ("Peake married Catherine Marie Knight, with whom he had four sons.", "with whom"),
    ("He had a reputation within the peloton as being a totally clean rider.", "totally clean"),
    ("Jon Stewart is an American comedian. Stewart agrees, saying that neither his show nor his channel purports to "
     "be anything other than satire and comedy.", "than satire and comedy"),
    ("Francis Cannon is an engineer. His engineering talents were called upon during the Invasion of Normandy where "
     "he was made Superintending Civil Engineer of Mulberry Harbour B.", "upon"),
    ("Hank Greenberg was an American baseball player. He was one of the few opposing players to publicly welcome "
     "Jackie Robinson to the majors in 1947.",
     "to publicly welcome Jackie Robinson to the majors in 1947"),
    # a narrower field under a claim of standing ("pioneer of photography" of "archaeological photography")
    ("Ernest Nash was a student of Roman architecture and pioneer of archaeological photography.", "archaeological"),
    ("She was an authority on medieval manuscripts.", "medieval"),
    # an office's complement ("In the 1860s he was president." read as a head of state)
    ("From 1860 until 1865 he was president of the New Orleans & Ohio Railroad Company.",
     "of the New Orleans & Ohio Railroad Company"),
    ("Henry Trengrouse was the inventor of the Rocket life-saving apparatus.", "of the Rocket life-saving apparatus"),
    # what one was selected as ("he was selected in the 2010s" was an output), what "was" says ("he was, until 2011")
    ("Cannon was selected as the unanimous NEC Player of the Year in 2015.", "as the unanimous NEC Player of the Year"),
    ("Since 2005 Perez was on the Board of Directors of TomoTherapy, until 2011.", "on the Board of Directors of TomoTherapy"),
    # a record's tally ("He has a martial arts record." said nothing); a coordinator whose conjunct is outside the
    # phrase, and a comma that sets off what follows, are not the phrase's
    ("He has a mixed martial arts record of 2-1-1.", "of 2-1-1"),
    ("Estrada played in 1924 for the Cuban Stars in the Eastern Colored League but most of his career was in Cuba.",
     "for the Cuban Stars in the Eastern Colored League but"),
    ("In 2010, he was selected to perform alongside comedy veterans in the Cracker Night gala, a rare feat considering "
     "he had no show.", "alongside comedy veterans in the Cracker Night gala,"),
    # a modifier under "all" narrows the set ("second amongst all Division I players" was false)
    ("He was second amongst all active Division I players with over 40 double-doubles.", "active"),
    # a quantifier's clause ("including several." was an output)
    ("He designed forty aircraft, including several honored with the Collier Trophy, acquiring a reputation.",
     "honored with the Collier Trophy"),
    # a modifier after a superlative narrows the set ("one of the best road cyclists" of "the best French road
    # cyclists" claimed more)
    ("He was one of the best French road cyclists of his era.", "French"),
    ("He was one of the best French road cyclists of his era.", "road"),
    # the first word of a noun written as two ("He was a servant." of "a civil servant" was an output)
    ("He was a Canadian civil servant and diplomat.", "civil"),
    ("He began his career as a hot walker.", "hot"),
    # an exception is what its clause says ("missing out." of "missing out only in 1998")
    ("He represented Slovakia from 1980 onwards, missing out only in 1998.", "only in 1998"),
    # the first of phrases the parse hung on the verb one by one ("worked his way, to an assistant trainer" was
    # an output)
    ("He began as a hot walker and worked his way up to a groom, to an assistant trainer, and to a trainer.",
     "up to a groom"),
    # what a record is of is its scope ("set the record for the accumulated number of days" of "... days spent in
    # space by an American astronaut" was false)
    ("He set the record for the total number of days spent in space by an American astronaut.", "total"),
    ("He set the record for the total number of days spent in space by an American astronaut.",
     "spent in space by an American astronaut"),
    ("He set the record for the total number of days spent in space by an American astronaut.",
     "by an American astronaut"),
    ("He set a record for the total number of days spent in space by an American astronaut.",
     "by an American astronaut"),
    # "No. 1" the parse cut at its point is one unit with its conjunct
    ("He is a Greek tennis player and the current Greek No. 1.", ". 1"),
])
def test_a_complement_the_phrase_needs_is_no_unit(text, not_a_unit):
    flat = [p.strip(" ,") for ps in units_of(text).values() for p in ps]
    assert not_a_unit not in flat, flat


@pytest.mark.parametrize("text", [
    # the second of "first X and then Y" ("he has represented first Czechoslovakia." was an output), however
    # the parse hangs it
    "At the Chess Olympiad, he has represented first Czechoslovakia and then Slovakia from 1980 onwards.",
    "At the Chess Olympiad, he has represented first Czechoslovakia and then Slovakia from 1980 onwards, missing out "
    "only in 1998.",
    "At the Chess Olympiad, he has represented first the Czechoslovak team and then the Slovak team.",
])
def test_the_second_of_first_and_then_is_no_unit(text):
    flat = [p for ps in units_of(text).values() for p in ps]
    assert not any(re.search(r"\b(?:Slovakia|Slovak team)", p) and "Czech" not in p for p in flat), flat


@pytest.mark.parametrize("text, unit", [
    # the rules above keep to what they are about: a verb "save" is no exception, a bracket holding a noun
    # written as two still goes, a win-loss record is no record one sets, a fronted phrase before another
    # is no list
    ("He scored twice to save the club from relegation in 1990.", "to save the club from relegation in 1990"),
    ("He scored twice to save the club from relegation in 1990.", "in 1990"),
    ("He worked as a clerk (at the High Court) for years.", "(at the High Court)"),
    ("He posted a 2-2 record with the Yankees in 1990.", "with the Yankees"),
    ("In 1990, in his first season, he won the cup.", "In 1990,"),
    ("He is the Greek No. 1 and a tennis player.", "and a tennis player"),
    ("He is a Greek tennis player and the current Greek No. 1.", "and the current Greek No. 1"),
])
def test_a_phrase_the_rules_leave_alone_is_a_unit(text, unit):
    flat = [p.strip(" ,") for ps in units_of(text).values() for p in ps]
    assert unit.strip(" ,") in flat, flat



def test_a_long_sentence_the_parser_found_no_verb_in_loses_no_phrase():
    """Its phrases are a misreading: "That way, the paint and then to the side of the paper." was
    what deleting one of them left. Its spans may still be replaced, or it goes whole."""
    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse
    from veil.agents.local.policy import load_policy

    text = ("She paints on wet paper. That way, the paint from one side transfers to the table and then to the other "
            "side of the paper, along with some of the table's texture.")
    task = Task(name="Ann Weiss", original=text, doc_id="t")
    plan = Plan(analysis=analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()), load_policy(), set()))
    assert not plan.analysis.has_root[1]
    phrases = [j for j in plan.analysis.by_sentence(1) if plan.units[j].kind not in ("span", "sentence")]
    assert phrases and not any(plan.try_choose(j, "", "test") for j in phrases)
    assert plan.try_choose(plan.analysis.sentence_unit(1), "", "test")


def test_a_pointer_whose_antecedent_the_edits_took_goes_with_its_phrase(engine):
    """"In this competition" after the championship it pointed at was generalized away, and "at
    the end of that season" after the season's sentence went, point at nothing."""
    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse
    from veil.agents.local.policy import load_policy

    def plan_of(text, label="Cyclist"):
        task = Task(name="Sebastian Lang", label=label, original=text, doc_id="t")
        analysis = analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()), load_policy(), set())
        return task, Plan(analysis=analysis)

    def without_sentence_1(text, label="Cyclist"):
        """The text once its second sentence is deleted and the pointers left dangling go."""
        task, plan = plan_of(text, label)
        plan.choice[plan.analysis.sentence_unit(1)] = ""
        engine.optimizer._drop_dangling(plan, task)
        return plan.render()

    task, plan = plan_of("Lang is a German cyclist. In 2011, he won a stage for Omega Pharma. "
                         "In this competition he also won the prize for the best climber.")
    assert [(si, n) for si, _, _, n in plan.analysis.pointers] == [(2, "competition")]
    engine.optimizer._drop_dangling(plan, task)
    assert plan.render() == plan.analysis.text  # nothing before it changed: the pointer still points
    plan.choice[plan.analysis.sentence_unit(1)] = ""  # the stage's sentence goes
    engine.optimizer._drop_dangling(plan, task)
    assert plan.render() == "Lang is a German cyclist. He also won the prize for the best climber.", plan.render()
    # no phrase of it may go ("He retired." says less than the writer did): the sentence goes
    out = without_sentence_1("Lang is a German cyclist. In 2011, he rode all three Grand Tours for Omega Pharma. "
                             "He retired at the end of that season, aged 32.")
    assert out == "Lang is a German cyclist.", out
    # "the" and a noun the writer named before points back too ("The brand now covers both menswear and
    # womenswear." was an output once the brand's sentence went)
    task, plan = plan_of("Lang is a German cyclist. In 2011, he founded a clothing brand in Bonn. "
                         "The brand now covers both menswear and womenswear.")
    assert [(si, n) for si, _, _, n in plan.analysis.pointers] == [(2, "brand")]
    plan.choice[plan.analysis.sentence_unit(1)] = ""
    engine.optimizer._drop_dangling(plan, task)
    assert plan.render() == "Lang is a German cyclist.", plan.render()
    # "the latter" says which of two the sentence before named ("The public enquiry into the latter's crash"
    # and "a medal for the latter two" were outputs once it went)
    out = without_sentence_1("Lang is a German cyclist. He designed the R100 and R101 airships. "
                             "The enquiry into the latter's crash found no fault with his work. He lives in Bonn.")
    assert out == "Lang is a German cyclist. The enquiry found no fault with his work. He lives in Bonn.", out
    out = without_sentence_1("Lang is a German cyclist. He rode in three Olympics. "
                             "He won a medal for the latter two. He lives in Bonn.")
    assert out == "Lang is a German cyclist. He won a medal. He lives in Bonn.", out
    # "Both" counts what the sentence before named
    out = without_sentence_1("Lang is a German cyclist. He and his brother rode for Omega Pharma in 2011. "
                             "Both retired in 2012. He lives in Bonn.")
    assert out == "Lang is a German cyclist. He lives in Bonn.", out
    # a noun that only modified another ("horse racing trainer") introduced nothing: "The horse" meant
    # the gelding of the sentence before ("The horse had won four straight races" was an output once
    # that sentence went); while that sentence stands, the pointer stays
    task, plan = plan_of("Lang is a German horse racing trainer. In 2008, an owner gave him a gelding named "
                         "Mine That Bird. The horse had won four races in Canada. He lives in Bonn.")
    engine.optimizer._drop_dangling(plan, task)
    assert plan.render() == plan.analysis.text
    plan.choice[plan.analysis.sentence_unit(1)] = ""
    engine.optimizer._drop_dangling(plan, task)
    assert plan.render() == "Lang is a German horse racing trainer. He lives in Bonn.", plan.render()
    # a mention of its own whose phrase an edit took names nothing, whatever modifier says the word
    task, plan = plan_of("Lang is a German horse racing trainer. In 2008, he trained in Texas with a horse from "
                         "Ohio. The horse had won four races in Canada. He lives in Bonn.")
    held = [j for j in plan.analysis.by_sentence(1) if plan.units[j].text.startswith("with a horse")]
    assert held, [plan.units[j].text for j in plan.analysis.by_sentence(1)]
    plan.choice[held[0]] = ""
    engine.optimizer._drop_dangling(plan, task)
    assert "The horse" not in plan.render() and "He lives in Bonn." in plan.render(), plan.render()
    # the label's word another sentence says protects nothing: a horse trainer's "The horse had won" goes too
    out = without_sentence_1("Lang is a German horse trainer. In 2008, an owner gave him a gelding named Mine That "
                             "Bird. The horse had won four races in Canada. He lives in Bonn.", label="Horse trainer")
    assert out == "Lang is a German horse trainer. He lives in Bonn.", out
    # a noun named as itself is still there to point at when its mention stands
    out = without_sentence_1("Lang is a German trainer who bought a horse in Texas. In 2008, he moved to Bonn. "
                             "The horse had won four races in Canada.")
    assert "The horse had won" in out, out
    # a stand-in names its own noun, not its modifier's: "a horse race" is no horse for "The horse" to be (an
    # output once the gelding's sentence went)
    task, plan = plan_of("Lang is a German horse racing trainer who won the Kentucky Derby. In 2008, an owner gave "
                         "him a gelding named Mine That Bird. The horse had won four races in Canada. He lives in Bonn.")
    derby = [j for j, u in enumerate(plan.units) if u.kind == "span" and u.text == "Kentucky Derby"]
    plan.choice[derby[0]] = "a horse race"
    plan.choice[plan.analysis.sentence_unit(1)] = ""
    engine.optimizer._drop_dangling(plan, task)
    assert "The horse had won" not in plan.render(), plan.render()
    # "one other" match is other than the one the text told of ("He played only one other match for the club." was
    # an output once the debut's phrase went)
    task, plan = plan_of("Lang is a German footballer. He made his debut for Arsenal in the League Cup, but played "
                         "only one other match for the club. He lives in Bonn.")
    assert (1, "match") in [(si, n) for si, _, _, n in plan.analysis.pointers]
    task, nothing = plan_of("Lang is a German footballer. He had no other choice. He lived on the other side of the river.")
    assert nothing.analysis.pointers == [], nothing.analysis.pointers  # ("the other side", "no other choice": no pointer)
    first = [j for j in plan.analysis.by_sentence(1) if plan.units[j].text.startswith("made his debut")]
    plan.choice[first[0]] = ""
    engine.optimizer._drop_dangling(plan, task)
    assert plan.render() == "Lang is a German footballer. He lives in Bonn.", plan.render()


def test_a_pseudonym_the_edits_leave_alone_becomes_its_stand_in(engine):
    """A person named twice keeps the pseudonym that says both mentions are one person; once the
    edits take the other mention, the one left reads as the sentence says ("She won her second
    title over Person ASD" was an output)."""
    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse
    from veil.agents.local.policy import load_policy

    text = ("Ana Silva is a tennis player. She won her second title over Maria Kirilenko. "
            "In the final of 2010, Maria Kirilenko retired hurt. She lives in Lisbon.")
    task = Task(name="Ana Silva", label="Tennis player", original=text, doc_id="t")
    plan = Plan(analysis=analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()), load_policy(), set()))
    for i, u in enumerate(plan.units):
        if u.kind == "span" and u.policy is not None:
            plan.choice[i] = u.policy
    engine.optimizer._lone_pseudonyms(plan)
    assert "over Person" in plan.render(), plan.render()  # both mentions stand: the pseudonym stays
    plan.choice[plan.analysis.sentence_unit(2)] = ""
    engine.optimizer._lone_pseudonyms(plan)
    assert plan.render() == "She is a tennis player. She won her second title over an opponent. She lives in Portugal.", \
        plan.render()


def test_deleting_a_list_end_never_joins_a_place_to_its_state():
    """"in New York City, Washington, DC, and his hometown" without its last item is no "in New
    York City, Washington and DC" (an output)."""
    from veil import nlp
    from veil.agents.local.units import constituents

    text = "Services were held in New York City, Washington, DC, and his childhood hometown of Bloomington."
    doc = nlp.parse(text)
    last = [c for c in constituents(doc, nlp.sentence_spans(doc)) if c.kind == "conjunct"
            and text[c.start:c.end].startswith(", and his")]
    assert last and not any(p.replacement.strip() == "and" for c in last for p in c.pieces), last


def test_a_phrase_that_names_or_ranks_is_no_unit():
    flat = [p for ps in units_of("A Hall of Fame inductee, Sarazen was the Horse of the Year in 1924.").values() for p in ps]
    assert "of Fame" not in flat and "of the Year" not in flat, flat  # "A Hall, Sarazen was the Horse" were outputs
    flat = [p for ps in units_of("He became the Spaniard with the most Olympic medals ever.").values() for p in ps]
    assert "with the most Olympic medals ever" not in flat, flat  # "he became the Spaniard"
    flat = [p for ps in units_of("He is the first driver killed in a race since Ayrton Senna.").values() for p in ps]
    assert "since Ayrton Senna" not in flat, flat  # "the first driver killed in a race" is false


def test_an_abbreviation_point_ends_no_sentence():
    from veil.nlp import sentences

    text = "In 2016, he opened a restaurant on Lexington Ave. in New York City. He left."
    assert sentences(text) == ["In 2016, he opened a restaurant on Lexington Ave. in New York City.", "He left."]
    # a degree's points ("He received his B.Arch." went as a sentence and left "and his M.Arch." behind)
    text = "He received his B.Arch. and his M.Arch. from Harvard University. He returned to Chicago in 1957."
    assert sentences(text) == ["He received his B.Arch. and his M.Arch. from Harvard University.", "He returned to Chicago in 1957."]
    # a bare year opening the writer's sentence is that sentence's ("The 1990s" was left on its own)
    text = "She played at four Olympics, starting in 1992. 1995 she was ranked no 1 in the European list."
    assert sentences(text) == ["She played at four Olympics, starting in 1992.", "1995 she was ranked no 1 in the European list."]


def test_a_quote_after_a_point_ends_its_sentence():
    from veil.nlp import sentences

    # ("He began showing oils with motifs, often exhibits in homeland" was what two sentences run into one became)
    text = 'He showed oils distinguished by bravura brushwork.\\" Of Irish ancestry Gormley often exhibits in his homeland.'
    assert sentences(text) == ['He showed oils distinguished by bravura brushwork.\\"',
                               "Of Irish ancestry Gormley often exhibits in his homeland."]
    assert sentences('He wrote "Hello." and left.') == ['He wrote "Hello." and left.']
    # a bracket inside a name ends no sentence ("He was married to Person AUF" was left without its point)
    assert sentences("He was married to Sheila (Neville- Smith) Campbell, they had one daughter.") == [
        "He was married to Sheila (Neville- Smith) Campbell, they had one daughter."]
    assert sentences("He was born in Paris (France). He moved.") == ["He was born in Paris (France).", "He moved."]


def test_every_sentence_is_a_unit():
    text = "One sentence here. Another one there! A third?"
    assert len(units_of(text)["sentence"]) == 3


@pytest.mark.parametrize("sentence, ok", [
    ("He was born in California.", True),
    ("He was born in the.", False),
    ("He studied with and.", False),
    ("He was a member of.", False),
    (", he moved to Texas.", False),
    ("The photographer and his.", False),
    ("Exhibitions including; SFMOMA.", False),
    ("Person N taught received an award in the 2000s.", False),  # a deletion took the second subject
    ("Person AVG's child, Person AVJ.", False),  # a pseudonym's letters are no verb ("AVJ" was tagged one)
    ("Person AVJ was a painter.", True),
    ("Person N taught at an organization received an award in the 2000s.", False),
    ("She taught received a prize.", False),  # (parsed as a clausal complement, not an xcomp)
    ("He said he won the cup.", True),
    ("Person A, a nurse, retired in the 2010s.", True),  # the pseudonym's letter is not an article
    ("She taught, wrote and painted.", True),
    ("Person H (born) is a tennis player.", False),
    ("In 1992, he co-founded the association with Person ML.", True),
    ("She.", False),  # a caption whose name became a pronoun and whose phrases all went
    # the subject went with a deletion ("one of Rickey's favorite tricks")
    ("According to Person AZD, was to offer another team two players.", False),
    # the main clause went: a subordinate clause is left ("... led to his appointment" was deleted)
    ("However, his brilliance before there was even a market for them.", False),
    ("When he was ten, he moved to Paris.", True),
    ("He started training at as a child.", False),  # a preposition whose object went
    ("He in the United States is an architect.", False),  # a bracket went between the subject and its phrase
    ("In the 1960s he produced paintings with narrow, strips.", False),  # "vertical" went
    ("She painted long, narrow strips.", True),
    ("He was a chef, and as the creator of a dish.", False),  # the first "as" phrase went
    ("He was known as a chef, and as the creator of a dish.", True),
    ("He was a painter, and in the 1990s he moved.", True),  # (a clause that opens with its own phrase)
    ("He was a painter, and as a result he moved.", True),
    # a name left before a clause with its own subject ("As head of his firm, X, Disch has led" lost its head)
    ("Person AQ, he has led a country.", False),
    ("Monday, he left for Paris.", True),
    ("He pursued various projects during this time; he.", False),  # the second clause went but its subject
    ("He won, and so did she.", True),
])
def test_parse_check(sentence, ok):
    assert sentence_ok(sentence, True)[0] is ok


def test_a_verb_that_stood_alone_may_stay_alone():
    """"He participated." after a deletion is broken; "he retired." as written is not."""
    assert nlp.check_text("He participated.", "Person A participated in seven Grands Prix.")
    # nor a verb whose phrases went and left only a clause after a comma ("He played, posting an even record"
    # of "He played in 15 games his rookie year, posting ...")
    assert nlp.check_text("He played, posting an even record.",
                          "He played in 15 games his rookie year, posting a 2-2 record.")
    assert not nlp.check_text("He retired, citing an injury.", "He retired, citing a knee injury in 1990.")
    assert not nlp.check_text("After the Olympics, he retired.", "After the Olympics, Person A retired.")
    assert sentence_ok("After the Olympics, he retired.", True, (0, 0, 0), True)[0]
    assert not sentence_ok("He participated.", True, (0, 0, 0), False)[0]


def test_parse_check_keeps_captions_that_were_captions():
    assert sentence_ok("Son of a photographer and namesake of another.", False)[0]
    assert not sentence_ok("Son of a photographer and namesake of another.", True)[0]


def test_check_text_exempts_original_sentences():
    orig = "Ceramic work came first. He moved to Ohio."
    assert nlp.check_text(orig, orig) == []
    assert [r for _, r in nlp.check_text("Ceramic work came first. He moved to the.", orig)]


def test_a_nationality_with_a_suffix_is_a_known_capital_and_a_rare_word_is_not():
    from veil.agents.local.optimizer import _known_capital

    assert _known_capital("Chinese-born") and _known_capital("French-style") and _known_capital("Chinese")
    assert not _known_capital("Torchwood") and not _known_capital("Orloff-style")


def test_tidy_never_removes_words():
    assert tidy("he moved ,  to Ohio .") == "He moved, to Ohio."


def test_tidy_counts_a_list_of_one_kind_with_its_brackets():
    assert tidy("He played for a baseball team (in the 1940s), a baseball team and a baseball team (in the 1950s).") \
        == "He played for three baseball teams."
    assert tidy("He played for a team (in the 1990s) and a club.") == "He played for a team (in the 1990s) and a club."
    # not a list whose last item an apposition tells of ("the child of two parents - a former pro tennis player" was
    # false: only his mother was)
    assert tidy("He is the child of a parent and a parent - a former pro tennis player.") \
        == "He is the child of a parent and a parent - a former pro tennis player."



def test_an_adjective_a_comma_joins_to_others_goes_with_its_comma():
    # ("the design of handsome, well-styled, apparel" was an output)
    text = "He made handsome, well-styled, tailored apparel for men."
    assert {"handsome,", ", tailored"} <= set(units_of(text)["modifier"]), units_of(text)
    rendered = {tidy(apply(text, [(Span(p.start, p.end, "", "UNIT"), "") for p in c.pieces]))
                for c in constituents(nlp.parse(text), []) if c.kind == "modifier"}
    assert rendered == {"He made well-styled, tailored apparel for men.", "He made handsome, well-styled apparel for men."}
    # (not a comma between list items: "She speaks English Greek and French." would be what ", modern" left)
    assert ", modern" not in units_of("She speaks English, modern Greek and French.").get("modifier", [])


def test_tidy_says_a_neutral_word_once_where_two_gendered_ones_stood():
    # ("he has focused on the design of apparel for both people and people" was an output of "for both men and women")
    assert tidy("He designed apparel for both people and people.") == "He designed apparel for people."
    assert tidy("They had children and children.") == "They had children."
    assert tidy("He designed apparel for both people and women.") == "He designed apparel for people."
    assert tidy("He helped people and animals.") == "He helped people and animals."
    assert tidy("He thanked his parents and parents-in-law.") == "He thanked his parents and parents-in-law."


def test_tidy_gives_a_vowel_its_article():
    assert tidy("He is a Irish former footballer.") == "He is an Irish former footballer."
    assert tidy("A Italian painter.") == "An Italian painter."
    assert tidy("He is a Ukrainian and a European player with a One-Day cap.") == \
        "He is a Ukrainian and a European player with a One-Day cap."
    assert tidy("She was in the top 10 in an organization rankings.") == "She was in the top 10 in the rankings."
    assert tidy("He, which is considered a painter, died in Italy.") == "He, who is considered a painter, died in Italy."


def test_tidy_ends_a_sentence_once_but_keeps_an_ellipsis():
    assert tidy("He was a baseball pitcher..") == "He was a baseball pitcher."
    assert tidy("Logical... Natural...") == "Logical... Natural..."


def test_tidy_drops_a_kind_that_only_repeats_what_its_sentence_said():
    # ("such prestigious venues as a hall", "educated at an educational institution" were outputs)
    assert tidy("She has appeared in such prestigious venues as a hall.") == "She has appeared in prestigious venues."
    assert tidy("She played venues such as a concert hall.") == "She played venues."
    assert tidy("He was educated at an educational institution and learnt tennis.") == "He was educated and learnt tennis."
    # a name, or a kind that says more than the verb, stays
    assert tidy("She played such venues as the Albert Hall.") == "She played such venues as the Albert Hall."
    assert tidy("He was educated at a university.") == "He was educated at a university."


def test_tidys_kind_rules_keep_to_their_phrase():
    # (a review found each of these misfiring: the example or the school ran on into the clause)
    for text in ("He said that musicians such as a guitarist influenced him.", "He was educated at a school of music.",
                 "He was educated at a school and a university.", "He was educated at a school run by Jesuits.",
                 "He won a film award and a film award ceremony."):
        assert tidy(text) == text


def test_name_rules_keep_to_their_names():
    """Rules for names the NER misread must not take common names with them (a review's examples)."""
    from veil.agents.local.spans import find_spans
    from veil.nlp import sentences

    def spans(text):
        return [(s.text, s.type) for s in find_spans(text) if s.type != "GENDERED"]

    assert spans("He worked at Best Buy.") != [("Best Buy", "AWARD")]  # a shop, not an award's category
    assert ("Brazilian", "NATIONALITY") in spans("He is a Brazilian football player.")  # only "American football" is a sport's name
    assert ("General Atomics", "ORG") in spans("He joined General Atomics in 1990.")  # no title before a surname
    assert ("Bertrand", "PERSON") in spans("His uncle was chef for General Bertrand.")
    work = [s for s in find_spans("He released his 1982 album Thriller.") if s.type == "WORK"]
    assert work and work[0].meta["ladder"] == ["his album"]  # no exact year kept in the rung
    event = [s for s in find_spans("He played at the FIFA U-20 World Cup.") if "Cup" in s.text]
    assert event and event[0].type == "EVENT", event
    assert ("Ford Mustang", "ORG") not in spans("He drove a Ford Mustang.")
    assert sentences('In "Oklahoma!" Jones played Curly.') == ['In "Oklahoma!" Jones played Curly.']
    assert sentences("He played several instruments (guitar, piano, etc.) He also sang.") == [
        "He played several instruments (guitar, piano, etc.)", "He also sang."]


def test_tidy_counts_a_list_of_one_kind_and_never_gives_an_item_another_ones_bracket():
    assert tidy("He played for a team, a team and a team in Spain.") == "He played for three teams in Spain."
    assert tidy("He raced in a motor racing series and a motor racing series.") == "He raced in two motor racing series."
    # ("and two basketball teams (one season)" was an output: the bracket was the last team's alone): the
    # brackets go with the count, never to one item they did not qualify
    assert tidy("He played for a team (two seasons), a team and a team (one season).") == "He played for three teams."


# -- the policy ------------------------------------------------------------------------------
def test_policy_registry_and_levels():
    policy = load_policy()
    assert {"keep", "generalize", "drop", "person", "remove"} <= set(OPERATORS)
    assert policy.rule("DATE")["level"] == "decade" and policy.rule("PHONE")["operator"] == "drop"
    # a unique claim has no true rung: its phrase goes, else its sentence
    claim = policy.decide(Span(0, 24, "the first woman in space", "CLAIM"), None, None)
    assert claim.replacement is None and claim.drop_unit and claim.or_sentence
    ladder = ["May 1961", "1961", "the early 1960s", "the 1960s", "the 20th century"]
    span = Span(0, 11, "3 May 1961", "DATE")
    assert pick(span, ladder, "decade") == ("the 1960s", ["the 20th century"])
    assert pick(span, ladder, "year")[0] == "1961"


def test_policy_file_errors_are_user_errors(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"rules": {"DATE": {"operator": "shred"}}}))
    with pytest.raises(UserInputError, match="unknown operator 'shred'"):
        load_policy(bad)


def test_a_territory_is_no_country():
    # "He moved to a country in Asia." was false of Hong Kong
    from veil.agents.local.generalize import GeneralizeContext
    from veil.agents.local.policy import SubjectInfo, kind_noun

    spans = {s.text: s for s in find_spans("In 1949 he moved to Hong Kong, and later to Japan and to Puerto Rico.")}
    assert kind_noun(spans["Hong Kong"]) == "a territory"
    assert kind_noun(spans["Puerto Rico"]) == "a territory"
    assert kind_noun(spans["Japan"]) == "a country"
    d = load_policy().decide(spans["Hong Kong"], GeneralizeContext(), SubjectInfo())
    assert "country" not in " ".join(filter(None, (d.replacement, *d.ladder)))
    spans = {s.text: s for s in find_spans("He coached England and Northern Ireland, then lived in Taiwan.")}
    assert kind_noun(spans["England"]) == "a country"  # ("a region's coach" read as false)
    assert kind_noun(spans["Northern Ireland"]) == "a region"
    assert kind_noun(spans["Taiwan"]) == "a place"  # (disputed: neither a country nor a territory)


def test_places_already_general_enough_stay():
    spans = {s.text: s for s in find_spans("He was born in Sacramento, CA and worked in Germany.")}
    policy = load_policy()
    from veil.agents.local.generalize import GeneralizeContext
    from veil.agents.local.policy import SubjectInfo

    ctx, subj = GeneralizeContext(), SubjectInfo()
    assert policy.decide(spans["Sacramento, CA"], ctx, subj).replacement == "California"
    assert policy.decide(spans["Germany"], ctx, subj).replacement is None


# -- whole documents, single (no population) --------------------------------------------------
@pytest.fixture(scope="module")
def engine():
    return build()


def anonymize(engine, text: str, name: str | None = None, doc_id: str = "d") -> str:
    task = Task(original=text, doc_id=doc_id, name=name)
    batch = asyncio.run(engine.prepare([Document(id=doc_id, text=text, name=name)]))  # a batch of its own
    r = asyncio.run(engine.optimizer.optimize(text, task, "privacy", PrivacyResult(score=1, k=10),
                                              UtilityResult(score=1.0), [], batch=batch))
    return r.text


@pytest.mark.parametrize("text, name, expected", [
    # a surname's particle goes with it, and a year after "In" is a time, not a modifier of the name ("In
    # de Person A came", "In 1950 de he came" were outputs); known name or not
    ("Jan de Groot is a painter. In 1950 de Groot came to Holland and painted.", "Jan de Groot",
     "Person A is a painter. In the 1950s Person A came to Holland and painted."),
    ("Jan de Groot is a painter. In 1950 de Groot came to Holland and painted.", None,
     "Person A is a painter. In the 1950s Person A came to Holland and painted."),
    # degrees after a name are part of it ("He, MA (1900s–1970s) was" was an output)
    ("John Holmes Jellett OBE, DSc, MA (1905–1971) was a British civil engineer. He won and his team won.",
     "John Holmes Jellett", "He"),
    # a quoted nickname is another name ('He, nicknamed \"the Flying Finn\", is' was an output)
    ('Mika Häkkinen (born 1968), nicknamed \\"the Flying Finn\\", is a Finnish racing driver. He won and his team won.',
     "Mika Häkkinen", "He is a Finnish racing driver."),
    ("Mika Häkkinen, nicknamed “the Flying Finn”, is a Finnish racing driver. He won and his team won.",
     "Mika Häkkinen", "He is a Finnish racing driver."),
    ('Hank Greenberg (1911 – 1986), nicknamed \\"Hammerin\' Hank\\", \\"Hankus Pankus\\" or \\"The Hebrew Hammer\\", was an '
     "American baseball player. He won and his team won.", "Hank Greenberg", "He was an American baseball player."),
    # Canadian orders ("He, an organization (early 20th century–2010s) was" was an output of "Yalden, CC (...)")
    ("Maxwell Freeman Yalden, CC (April 12, 1930 – February 9, 2015) was a Canadian civil servant. He won and his team won.",
     "Maxwell Freeman Yalden", "He was a Canadian civil servant."),
    # Portuguese orders ("She, an organization (born in the 1960s) is" was an output of "Fátima Lopes, ComIH (...)")
    ("Fátima Lopes, ComIH (born March 8, 1965) is a Portuguese fashion designer. She won and her team won.",
     "Fátima Lopes", "She is a Portuguese fashion designer."),
    # an alternative given name ("Person ATC (in the 1760s – ...) was" was an output: two people, neither her)
    ("Maria Anna Barbara or Babette Ployer (2 September 1765 – before April 1811) was an Austrian pianist. She won and her "
     "team won.", "Barbara Ployer", "She was an Austrian pianist."),
    # a hyphenated name written without its hyphen ("Person UJ (1930s–2010s) was" was an output of "Chu Shong Tin")
    ("Chu Shong Tin (1933-2014) was the third student of Yip Man. He won and his team won.", "Chu Shong-tin", "He was"),
])
def test_a_name_takes_its_particles_and_degrees(engine, text, name, expected):
    out = anonymize(engine, text, name=name)
    assert out.startswith(expected) and "MA" not in out and " de " not in out, out


@pytest.mark.parametrize("text, name, expected, absent", [
    # an appositive told of the place as written ("born in the Netherlands, a beach suburb" was an output)
    ("Dick de Groot (born 1920) was born in Scheveningen, a beach suburb of The Hague in the Netherlands. He painted "
     "and his work sold.", "Dick de Groot", "He was born in the Netherlands.", "suburb"),
    # the place that held it, as its kind ("Born in New York, a city in the 1870s" was an output)
    ("James Fitzsimmons was a horse trainer. Born in Sheepshead Bay, Brooklyn in 1874, Fitzsimmons began his career "
     "in 1885 working at a racetrack.", "James Fitzsimmons", "Born in New York, in the 1870s, he began", "a city"),
    # the region that holds it stays
    ("Jan Dekker is a painter. In 1950 he moved to Leiden, the Netherlands, and painted.", "Jan Dekker",
     "the Netherlands", "Leiden"),
])
def test_what_told_of_a_place_as_written_goes_with_its_generalization(engine, text, name, expected, absent):
    out = anonymize(engine, text, name=name)
    assert expected in out and absent not in out, out


@pytest.mark.parametrize("text, gone, kept", [
    ("I'm John. I live at 42 Elm Street, Springfield, IL 62704.", ["John", "42 Elm Street", "62704"], ["I'm"]),
    ("Yesterday Harriet Vance met Oscar Delacroix at the gallery.", ["Harriet", "Vance", "Oscar", "Delacroix"],
     ["met", "at the gallery"]),
    ("Call me at 555-867-5309 if the package does not arrive.", ["555-867-5309"], ["if the package does not arrive"]),
    ("Pt seen today. MRN 00458821, DOB 02/09/1948, admitted to St. Vincent Hospital.", ["00458821", "02/09/1948",
                                                                                         "Vincent"], ["1940s"]),
    ("She lives in Two Harbors with her sister Ruth Ellingson.", ["Ruth", "Ellingson"], ["her sister"]),
    ("She was born on 3 March 1987 in Leeds.", ["3 March", "Leeds"], ["in the 1980s"]),
    # a name no rung states and no phrase of which can go takes its sentence in a lone document (no batch
    # to tell it common, no attacker to take it); never the first sentence, never an everyday word's
    ("Tom Reed is an American basketball coach. He coached the Mount Washington Wolfpack for six years. He wrote "
     "for the Gainesville Sun. He loves the British Empire.", ["Wolfpack", "Gainesville"],
     ["an American basketball coach", "British Empire"]),
])
def test_single_documents_lose_their_direct_identifiers(engine, text, gone, kept):
    out = anonymize(engine, text)
    for g in gone:
        assert g not in out, out
    for k in kept:
        assert k in out, out


def test_a_name_only_the_ner_calls_a_person_loses_its_phrase_not_gains_a_pseudonym(engine):
    """en_core_web_sm tags "Blyth Spartans" (a football club) PERSON: "plays for Person B" would
    invent a person, so the phrase that holds it goes (a pseudonym only where no phrase can go),
    unless its verb says what it is ("plays for a team"). A name with a given name stays a
    person, and so does a full name the NER left untagged."""
    out = anonymize(engine, "Stephen Turnbull (born 7 January 1987) is an English footballer who currently plays "
                            "for Blyth Spartans. He then left Blyth Spartans to join Harrogate Town.",
                    name="Stephen Turnbull")
    assert "is an English footballer who currently plays for a team." in out and "Person" not in out, out
    assert not any(w in out for w in ("Blyth", "Spartans", "Harrogate", "Turnbull")), out
    # after a determiner or before a country a "person" is no one's name ("The Person TM was a
    # single engine ramjet", "born in Person GY, Spain" were outputs): its sentence goes when no
    # phrase can, never the first sentence
    out = anonymize(engine, "Jim Smith is an engineer. He led the design of the AQM-60 Kingfisher. The Kingfisher "
                            "was a single engine Ramjet. He was born in Gozon, Spain.", name="Jim Smith")
    # ("He led the design." is what the edits leave of the second sentence: a stub, deleted)
    assert out == "He is an engineer. He was born in Spain.", out
    # ... also with a year between the article and the name, where the phrase keeps its own
    # article ("Her first title came in the Person B." was an output for "the 2007 Copa Colsanitas")
    out = anonymize(engine, "Roberta Vinci is a tennis player. She won titles. Her first title came in the 2007 "
                            "Copa Colsanitas, over Tathiana Garbin. She won.", name="Roberta Vinci")
    assert out == "She is a tennis player. She won titles. She won.", out
    # nor is a city after "the" a city ("A city was a single engine ramjet" for "The Leduc was"): a name
    # of unknown kind, kept by the default policy (PROPER: keep)
    out = anonymize(engine, "Jim Smith is an engineer. He built a plane. The Leduc was a single engine ramjet.",
                    name="Jim Smith")
    assert "city" not in out, out
    out = anonymize(engine, "His father's friends included Edward Weston, Ansel Adams and Wynn Bullock.")
    # "Ansel Adams" has no given name veil knows: the list item goes; "Wynn Bullock" is whole
    assert re.fullmatch(r"His father's friends included Person [A-Z] and Person [A-Z]\.", out), out


def test_a_subject_of_unknown_gender_becomes_the_role_the_text_gives_them(engine):
    """No pronoun says he or she: the label's role noun where the text already says it ("The chess
    player won", not "Person IN won"), "this person" where the sentence itself says the role (never
    "The chess player is a Latvian chess player"); never the label where the text does not say it."""
    def run(text, label):
        task = Task(original=text, doc_id="d", name="Arturs Neiksans", label=label)
        batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Arturs Neiksans", label=label)]))
        return asyncio.run(engine.optimizer.optimize(text, task, "privacy", PrivacyResult(score=1, k=10),
                                                     UtilityResult(score=1.0), [], batch=batch)).text

    text = ("Arturs Neiksans (born March 16, 1983) is a Latvian chess player and Grandmaster (2008). "
            "Neiksans won the Latvian championship in 2003.")
    out = run(text, "Chess Player")
    # (the championship's "in the 2000s" goes: the sentence before said that period)
    assert out == ("This person is a Latvian chess player and Grandmaster (in the 2000s). "
                   "The chess player won the Latvian championship."), out
    out = run(text, "Astronaut")
    assert "astronaut" not in out.lower() and out.startswith("Person "), out


def test_an_organisation_of_unknown_kind_after_on_goes_with_its_phrase(engine):
    out = anonymize(engine, "Suvir Saran is a chef. He currently lives on the Masala Collective with his partner. "
                            "He wrote books.", name="Suvir Saran")
    assert "organization" not in out and "Masala" not in out and "He currently lives with his partner." in out, out


def test_what_is_named_after_the_person_goes_with_its_sentence(engine):
    """A highway, an asteroid or a species named in a person's honour finds them by itself ("Interstate
    575 is named in his honor." stayed; "Asteroid 335" was left of its sentence, split after the number)."""
    text = ("Mark Jones was an American entomologist. He studied crane flies at a museum. Asteroid 335 Roberta is "
            "named in his honour. A subspecies of North American snake, Lampropeltis jonesi, was named after him. "
            "Interstate 575 is named in his honor. He died in 1990.")
    out = anonymize(engine, text, name="Mark Jones")
    assert out == "He was an American entomologist. He studied crane flies at a museum. He died in the 1990s.", out
    # "commemorate his name", "bears his name" ("His macaw and his saddle-back tamarin commemorate his name." was
    # an output: species named after him read as his pets)
    text = ("Mark Jones was a German zoologist. He studied birds. Jones's macaw (Primolius maracana) and Jones's "
            "saddle-back tamarin commemorate his name. The genus Jonesia also bears his name. He died in 1990.")
    out = anonymize(engine, text, name="Mark Jones")
    assert out == "He was a German zoologist. He studied birds. He died in the 1990s.", out


@pytest.mark.parametrize("text, expected", [
    # the name's last word says what it is: "lives on a farm", "bought a ranch" ("Triple Creek Ranch" was
    # kept whole: an object of unknown kind had no phrase to go with)
    ("He currently lives on American Masala Farm with his partner.", "He currently lives on a farm with his partner."),
    ("He bought Triple Creek Ranch in Montana.", "He bought a ranch in Montana."),
    # the sessions of Congress a member sat in date the member: "Congress" stays true
    ("He served as a Whig in the Forty-second and Forty-third Congresses.", "He served as a Whig in Congress."),
    ("He was elected as a Whig to the 37th Congress.", "He was elected as a Whig to Congress."),
    # so does a numbered district ("the since disbanded Eighth Congressional District" stayed as written)
    ("He represented the since disbanded Eighth Congressional District.",
     "He represented the since disbanded congressional district."),
    ("He won in the 16th District.", "He won in a district."),
    ("It was the first district in the state to ban smoking.", "It was the first district in the state to ban smoking."),
    # a place of no known kind with no phrase to go with takes its sentence ("She was the costume designer for
    # Torchwood." was an output)
    ("He was also the main costume designer for Torchwood: Miracle Day.", ""),
    # a statistic's decimals ("an earned run average of 3.28" stayed exact)
    ("He finished with an earned run average of 3.28 in his career.", "He finished with an earned run average of over 3 in his career."),
    ("He averaged 16.3 career points.", "He averaged over 16 career points."),
    # a time an exception or a duration names is no wider time ("missing out only in the 1990s", "joining the
    # team for the late 20th century" were outputs): its phrase goes, here its sentence
    ("He joined the Osella team for 1990 and 1991.", ""),
    ("He played at the Olympiad every time except in 1998.", ""),
    ("For 1998, he was named the best player of the team.", ""),
    # (a season is a time, not a duration)
    ("He played for the team for the 1990 season.", "He played for the team for the season."),
    ("In 1995 he won the race for the third time.", "In the 1990s he won the race for the third time."),
])
def test_kinds_sessions_and_statistics_are_generalized(engine, text, expected):
    out = anonymize(engine, f"Suvir Saran is a politician. {text} He wrote books.", name="Suvir Saran")
    assert out == " ".join(x for x in ("He is a politician.", expected, "He wrote books.") if x), out


def test_a_sentence_the_edits_leave_nearly_empty_goes_whole(engine):
    """"He was a player.", "His works have a sense." were outputs: an edited sentence left with two
    content words or fewer (of five or more) goes, with what refers back to it. A short sentence
    nobody edited stays, and so does the first sentence."""
    text = ("Jim Smith is an engineer. He led the design of the AQM-60 Kingfisher. The Kingfisher was a single "
            "engine Ramjet. He retired.")
    out = anonymize(engine, text, name="Jim Smith")
    assert out == "He is an engineer. He retired.", out
    # a verb and stand-ins that only name a kind ("He won a competition.", "He was drafted by a sports team."
    # were outputs); a stand-in with a place or a period says something
    text = ("Jim Smith is a chess player. He won the Biel Grandmaster Tournament of the Latvian Chess Federation. He "
            "was drafted by the St. Louis Cardinals of Major League Baseball. He was born in Sacramento in 1942. He "
            "wrote books.")
    out = anonymize(engine, text, name="Jim Smith")
    assert "won a" not in out and "drafted" not in out and "He wrote books." in out, out
    assert "He was born in California in the 1940s." in out, out
    # (a debut is taking part: "He made his debut for a sports team." was an output)
    text = ("Jim Smith is a rugby player. He made his debut for the Leeds Rhinos against Wigan Warriors in the "
            "Challenge Cup. He wrote books.")
    out = anonymize(engine, text, name="Jim Smith")
    assert "debut" not in out and "He wrote books." in out, out
    # a stand-in's own words name a kind too ("His first race in a motor racing series was at a race." was an output)
    text = ("Jim Smith is a racing driver. His first race in Formula 1 was at the 1970 Spanish Grand Prix with a "
            "Lotus 49. He wrote books.")
    out = anonymize(engine, text, name="Jim Smith")
    assert out == "He is a racing driver. He wrote books.", out


def test_subject_becomes_the_pronoun_the_text_uses(engine):
    text = ("Kurt Fishback is a photographer. Kurt was born in Sacramento in 1942. "
            "He studied with his father and later taught at his old school.")
    out = anonymize(engine, text, name="Kurt Fishback")
    assert out.startswith("He is a photographer. He was born in California in the 1940s."), out
    # the life dates in brackets, even after a comma and split by the parse into two appositives,
    # do not make the name an apposition ("Person FC, (1790s–1870s) was a painter" was an output);
    # after the pronoun they go whole, with the comma
    text = ("Franz Johann Heinrich Nadorp, (June 23, 1794 – September 17, 1876) was a German painter. "
            "Nadorp was born into a family of artists. He died in Rome, where his son lived.")
    out = anonymize(engine, text, name="Franz Nadorp")
    assert out.startswith("He was a German painter."), out
    # a name with a quoted nickname or a middle initial is one mention ('\"Person TH\" he (1910s–1990s)'
    # and "Person ANV he" were outputs), and the nickname can be the given name the task knows
    for text, name in [('Clarence Leonard \\"Kelly\\" Johnson (1910 – 1990) was an engineer. He built planes and his designs flew. '
                        'Johnson was born in Michigan.', "Kelly Johnson"),
                       ('Arthur Steven \\"Artie\\" Lange, Jr. (born 1967) is a comedian. He was born in New Jersey '
                        'and his father was a builder.', "Artie Lange"),
                       ("Cecil O. Hankins (1922 - 2002) was a basketball player. He played for Boston. "
                        "His son was a coach.", "Cecil Hankins"),
                       # fuller forms of the known name; the NER finds nothing in the first
                       ("Blake Austin Griffin (born 1989) is a basketball player. He played college basketball, "
                        "when he was named player of the year.", "Blake Griffin"),
                       # ... also when the NER found the surname alone (from a later "Blake Griffin")
                       ("Blake Austin Griffin (born 1989) is a basketball player. He played college basketball, "
                        "when he was named player of the year. Blake Griffin later joined the Clippers.",
                        "Blake Griffin"),
                       ("Maxwell Freeman Yalden (1930 – 2015) was a diplomat. He joined the service in 1956 and "
                        "his career was long.", "Max Yalden")]:
        out = anonymize(engine, text, name=name)
        assert out.startswith("He ") and "Person" not in out and '"' not in out, out
    # a relative who shares the surname is not the subject, also when the text opens with him
    out = anonymize(engine, "Glen Fishback was a photographer. His son Kurt Fishback was a painter. Kurt lived in "
                            "Sacramento and he taught.", name="Kurt Fishback")
    assert re.match(r"Person [A-Z] was a photographer\.", out), out
    # a relative who shares the surname is not the subject
    out = anonymize(engine, "Robert Brett Lunger (born 1945) is a racecar driver. He was a politician and his son "
                            "raced. Glen Lunger was his father.", name="Brett Lunger")
    assert out.startswith("He is a racecar driver.") and re.search(r"Person [A-Z] was his father", out), out
    # a surname that is also an adverb opens the sentence before its verb: still the subject
    text = ("Catherine Small Long (born 1924) is a former representative. She served two years, after the death of "
            "her husband. Long represented a district. Long declined to seek a full term.")
    out = anonymize(engine, text, name="Catherine Small Long")
    assert "She represented a district. She declined" in out and "Person" not in out, out


@pytest.mark.parametrize("text, name, expected", [
    # formal forms of the known name that open the text, with honours after it
    ("James Umbricht (September 17, 1930 – April 8, 1964) was a pitcher. He played for Houston and his arm was "
     "strong.", "Jim Umbricht", "He was a pitcher."),
    ("John Alfred Leach MBE (20 November 1922 – 5 June 2014) was a British table tennis player. He began late and "
     "his style was defensive.", "Johnny Leach", "He was a British table tennis player."),
    ("Johannes Hendrikus (Hein) Donner (July 6, 1927 – November 27, 1988) was a Dutch chess grandmaster. He wrote "
     "books and his columns were read.", "Jan Hein Donner", "He was a Dutch chess grandmaster."),
    ("Jesús Rosendo Prado (born March 16, 1982 in Seville) is a bicycle racer. He rides for a team and his "
     "results are good.", "Jesús Rosendo", "He is a bicycle racer."),
    # "born DATE" is a time, never "born a day"; "Thai" is a nationality, not a town; a hyphenated
    # lower-case word is no name
    ("Sakmongkol Sithchuchok is a Thai super middleweight Muay Thai-kickboxer. He was born 6 July 1973. He won and "
     "his record stands.", "Sakmongkol Sithchuchok",
     "He is a Thai super middleweight Muay Thai-kickboxer. He was born in the 1970s."),
    # places and venues by the kind their name says
    ("James Sonnier is a horse trainer. He was born in Church Point, Louisiana. He retired and his son rides.",
     "James Sonnier", "He is a horse trainer. He was born in Louisiana."),
    ("He was interred in Mount Hope Cemetery. He had taught there and his students mourned.", "X Y",
     "He was interred in a cemetery."),
    ("On 8 August 2013, at the Sir Chris Hoy Velodrome in Glasgow, she competed. She won and her team won.", "X Y",
     "In the 2010s, at a velodrome in Scotland, she competed."),
    # a name that modifies a noun goes whole; a relative's name set off by commas goes with them
    ("Scott Kelly is an astronaut. His twin brother, Mark Kelly, is a former astronaut. The Kelly brothers both "
     "flew in space. He retired and his book sold.", "Scott Kelly",
     "He is an astronaut. His twin brother is a former astronaut. The brothers both flew in space."),
    # no article after a modifier that stays ("for American a painting" was an output)
    ("John Plumb was an English painter. Plumb's works reflected his admiration for American Color Field painting. "
     "He won and his team won.", "John Plumb",
     "He was an English painter. His works reflected his admiration for American painting."),
    # a place the NER cut short is whole ("He was born in Longueville." was left); where its phrase cannot go
    # ("He was born and was Chief Engineer" was an output), the first verb phrase goes with its "and"
    ("Charles Cooke (1859 – 1920) was born in Orton Longueville (then in Huntingdonshire) and was Chief Mechanical "
     "Engineer of the railway. He won and his team won.", "Charles Cooke",
     "He was Chief Mechanical Engineer of the railway."),
    # a name's lower-case hyphen tail is one adjective with it ("long fist and a-style" was an output)
    ("Jet Lin is a wushu practitioner. She is proficient in long fist, Yang-style and Chen-style t'ai chi, broadsword "
     "and staff. She won and her team won.", "Jet Lin", "She is a wushu practitioner. She is proficient in long fist,"),
    ("Tom Hall is a basketball player. He was playing AAU basketball when Seattle University spotted him. He won "
     "and his team won.", "Tom Hall", "He is a basketball player. He was playing basketball when"),
    # a birth name goes with its bracket or its comma; a title before the name is part of its mention
    ("Daniel Van Kirk (born Daniel Nall) is an American comedian. He writes and his podcasts are popular.",
     "Daniel Van Kirk", "He is an American comedian."),
    ("Michael Stevens (born Michael Fenton Stevens, 14 February 1958) is an English actor. He acted and his roles "
     "were many.", "Michael Stevens", "He is an English actor."),
    ("Stevens, born Michael Fenton Stevens, is an English actor. He acted and his roles were many.", "Michael Stevens",
     "He is an English actor."),
    ("David Mulford (born June 1937) was an ambassador. From 1974 to 1984, Ambassador Mulford was also a banker. "
     "He is married and his children are grown.", "David Mulford",
     "He was an ambassador. From the 1970s to the 1980s, he was also a banker."),
    # "Porreres, Majorca" is a PERSON to the NER: its phrase goes, never "in Person B"
    ("Joan Llaneras is a former Spanish track cyclist. He was born in 1969 in Porreres, Majorca. He won and his team "
     "won.", "Joan Llaneras", "He is a former Spanish track cyclist. He was born in the 1960s."),
    # a superlative is never cut to a false one ("the first physician" was an output): a unique
    # claim goes whole with its clause (the policy's CLAIM)
    ("Valeri Polyakov (born 1942) was a Soviet physician who became the first physician to make a space flight. He "
     "flew twice and his record stands.", "Valeri Polyakov",
     "He was a Soviet physician. He flew twice"),
    ("Yegorov was a Soviet physician. In 1964 he became the youngest cosmonaut to fly. He flew once and his record "
     "stands.", "Boris Yegorov", "He was a Soviet physician. He flew once"),
    # a rank to a band of ranks ("ranked no" was an output); an ordinal the parse hung elsewhere is the
    # event's ("the 41st a competition"); the subject's other name after "as" goes with its phrase ("As him")
    ("Ma Long is a Chinese table tennis player. In 2014, at third board in the 41st Chess Olympiad in Tromso, he "
     "won. As Long Ma, he also worked as a coach. He is ranked no. 275 in the world.", "Ma Long",
     "He is a Chinese table tennis player. In the 2010s, at third board in a chess olympiad, he won. He also worked "
     "as a coach. He is ranked in the top 500 in the world."),
    # an award's name runs on over its "for" ("an award for an organization", "for Person B" were outputs);
    # a medal is no organisation
    ("James Fitzsimmons was an American horse trainer. He was recognized with the Office of the Secretary of Defense "
     "Medal for Exceptional Public Service and the Woodrow Wilson Award for Corporate Citizenship.", "James Fitzsimmons",
     "He was an American horse trainer. He was recognized with a medal for Exceptional Public Service and an award."),
    # a list of ordinals is the event's ("the 78th and major film award"); an apposition that ranks goes, even where
    # the parse calls it an adverbial; a field after "of" takes no article ("a student of an architecture")
    ("Jon Stewart is an American comedian. He hosted the 78th and 82nd Academy Awards. He was promoted to rear admiral "
     "in 1971, the first comedian to reach that rank. He was a student of Roman architecture.", "Jon Stewart",
     "He is an American comedian. He hosted a major film award ceremony. He was promoted to rear admiral in the 1970s. He was "
     "a student of architecture."),
    # a first name after a role noun is a person whatever its last word ("Sydney Prior Hall" stayed, a hall); the
    # role noun says who they are, so the name goes ("the genre painter Person B" read as a form), and their
    # life dates with it
    ("Mary Gow was a painter. Her husband was the genre painter Sydney Prior Hall (1842–1922) whom she married in "
     "1907.", "Mary Gow", "She was a painter. Her husband was a genre painter whom she married in the 1900s."),
    # modifiers before the role keep it, "the" becomes "a" ("sold to the European entomologist" was an output)
    ("Georg Meyer was a Swiss entomologist. Later, parts of his beetle collection were sold to the French entomologist "
     "René Oberthür.", "Georg Meyer", "He was a Swiss entomologist. Later, parts of his beetle collection were "
     "sold to a French entomologist."),
    ("Kurt Fishback is a photographer. Son of photographer Glen Fishback and namesake of photographer Edward Weston, "
     "he was exposed to art. He played alongside his brother Tony Millon. He won and his team won.", "Kurt Fishback",
     "He is a photographer. Son of a photographer and namesake of another photographer, he was exposed to art. He "
     "played alongside his brother."),
    # modifiers before the role: the name goes after a determiner ("the" becoming "a"), stays where no article
    # has a place
    ("Tom Hall is a coach. He was assistant to head coach Dave Pietramala. Parts of his collection were sold to the "
     "European entomologist Hans Muller. He won and his team won.", "Tom Hall",
     "He is a coach. He was assistant to head coach Person B. Parts of his collection were sold to a European "
     "entomologist."),
    # a possessive name with no rung takes its sentence ("the Marussia's first points" stayed)
    ("Jules Bianchi was a French driver who drove for the Marussia F1 Team. In the 2014 season, he scored both his "
     "and the Marussia's first points in Formula One at the Monaco Grand Prix. He died in 2015.", "Jules Bianchi",
     "He was a French driver who drove for a sports team. He died in the 2010s."),
    # a nickname in brackets inside the name is the subject ("Lika was previously the program scientist")
    ("Madhulika (Lika) Guhathakurta is an American astrophysicist. Lika was previously the program scientist on "
     "SPARTAN-201.", "Madhulika Guhathakurta",
     "Person A is an American astrophysicist. Person A was previously the program scientist."),
    # under "be" the ranking goes and the noun it ranked stays: true of him, and of many
    ("Wim Smit was the first Dutch professional baseball player. Later he was the 31st Governor of Illinois. He "
     "won and his team won.", "Wim Smit",
     "He was a Dutch professional baseball player. Later he was a governor."),
    # the life dates after the subject's pronoun go whole ("He (Pistoia, –Italy, 1721)" was an output)
    ("Giovanni Rossi (Pistoia, 1650 – Italy, 1721) was a painter of the Baroque period. He painted and his works "
     "hang in churches.", "Giovanni Rossi", "He was a painter of the Baroque period."),
    # the verb says what its object is: "played for San Lorenzo" is a team, not a city
    ("Rubén Glaría is a former Argentine footballer. He played for San Lorenzo and Racing Club as a defender. He "
     "graduated from SFAI in 1970. He won and his team won.", "Rubén Glaría",
     "He is a former Argentine footballer. He played for a team and a club as a defender. He graduated from an art "
     "school in the 1970s."),
    # ... but not a one-word name after "signed with" (a label, an agency), nor a relative who opens the text
    ("Smokey Robinson is a singer. In 1960 he signed with Motown. He sang and his songs sold.", "Smokey Robinson",
     "He is a singer. In the 1960s he signed with"),
    # titles before the subject's name are part of its mention
    ("Eric Holder is a lawyer. In 2009 Attorney General Eric Holder spoke at length about the courts. He spoke and "
     "his speech was long.", "Eric Holder", "He is a lawyer. In the 2000s he spoke at length"),
    # a bracket that qualifies the claim stays
    ("Tom Hall is a coach. He was the (interim) head coach of the club. He won and his team won.", "Tom Hall",
     "He is a coach. He was the (interim) head coach"),
    # "Georgia" is a country and a US state: no region is true of both (it was "from Asia"); "a U.S."
    ("Phil Landrum was a Democratic U.S. Representative from Georgia. He won and his party won.", "Phil Landrum",
     "He was a Democratic U.S. Representative. He won"),
    # a world ranking to a band, an unknown place that modifies a noun goes
    ("She held the position of World No. 1 for 20 weeks. The Ballantine workshop made her rackets. She won and "
     "her coach cried.", "X Y", "She held the position of top ten in the world for 20 weeks. A workshop made"),
    # a child's name is not the town the gazetteer spells alike; a place naming the noun before it goes
    ("Lubomir Ftacnik is a Slovak chess player. He has a son, Martin, born 1985. His older brother, Milan Ftacnik, "
     "was the mayor of the Slovak capital city, Bratislava, from 2011 to 2014.", "Lubomir Ftacnik",
     "He is a Slovak chess player. He has a son born in the 1980s. His older brother was the mayor of the Slovak "
     "capital city in the 2010s."),
    # a relative's given name in apposition goes with its commas ("a wife, Beata," had stayed as written)
    ("Jan Nowak was a Polish racing driver. Nowak left behind a wife, Beata, and two young children.", "Jan Nowak",
     "Person A was a Polish racing driver. Person A left behind a wife and two young children."),
    # a weight describes one person: its sentence goes (no sum of money: see test_spans); a birth bracket after
    # the pronoun goes, with no date in it too ("He (born in the United States) is" was an output)
    ("Howard Hardy is a pitcher. Hardy weighed 180 pounds (82 kg) in his playing days. He won and his team won.",
     "Howard Hardy", "He is a pitcher. He won and his team won."),
    ("Brian Gormley (born New York City) is an American painter. He paints and his works sell.", "Brian Gormley",
     "He is an American painter."),
    # a singular kind takes the plural's possessive; one goal stays one goal; a hyphenated modifier goes whole
    ("He switched to the Toronto Blue Jays' system in 1980 and served as a manager.", None,
     "He switched to a baseball team's system in the 1980s"),
    ("Tommy Donnelly is a former Irish footballer. Donnelly was one of several players who benefited from their "
     "all-Ireland influence. He made 2 appearances and scored 1 goal.", "Tommy Donnelly",
     "He is a former Irish footballer. He was one of several players who benefited from their influence. He made "
     "a couple of appearances and scored 1 goal."),
    # a phrase the parse cut short before the noun it belongs to stays ("second I players" was an output)
    ("In his senior year Cannon was second amongst all active NCAA Division I players with 48 career double-doubles.",
     "Jalen Cannon", "In his senior year he was second amongst all active Division I players"),
    # a name the NER cut into pieces is one name of the kind its last word says
    ("Tom Berger is a designer. In 1962, he was awarded the Spirit of St. Louis Medal. He studied drama at the Lee "
     "Strasberg Theatre and Film Institute and became a member of the troupe.", "Tom Berger",
     "He is a designer. In the 1960s, he was awarded a medal. He studied drama at an institute and became"),
    # ... but a year that opens the clause is no part of the name after it
    ("Tom Berger is a lecturer. In 1962 Stanford University hired him. He was the last starter from the "
     "inaugural race, the 1950 British Grand Prix.", "Tom Berger",
     "He is a lecturer. In the 1960s a university hired him."),  # (the last starter: a unique claim goes)
    # an encyclopedia's disambiguation note goes; "Jr." ends no sentence
    ("(For other uses, see Alan Shepard (disambiguation).) Rear Admiral Alan Bartlett \"Al\" Shepard Jr. (November "
     "18, 1923 – July 21, 1998) was an American naval officer. He retired in 1974.", "Alan Shepard",
     "He was an American naval officer. He retired in the 1970s."),
    ("This article refers to a race horse trainer. Michael Jarvis (14 August 1938 – 20 September 2011) was a horse "
     "trainer in England. He retired in 2011.", "Michael Jarvis", "He was a horse trainer in England."),
    # "Olympic" is no town in Hong Kong; the object of "with" takes the object pronoun
    ("Joan Llaneras (born 1969) is a former Spanish World and Olympic points race champion. He rode and his team "
     "won the game, with Llaneras not factoring in the decision.", "Joan Llaneras",
     "He is a former Spanish World and Olympic points race champion. He rode and his team won "
     "the game, with him not factoring"),
    # the qualifiers of a title go with the name ("U.S. Person B's crushing defeat" was an output);
    # an ordinal says which one and counts nothing ("the Eighty-ninth legislatures" was an output): the
    # numbered session is "Congress"
    ("Richard White was a politician. He was elected to the historic Eighty-ninth Congress as part of the national "
     "1964 Democratic surge linked to U.S. President Lyndon B. Johnson's crushing defeat of Republican U.S. Senator "
     "Barry M. Goldwater of Arizona.", "Richard White",
     "He was a politician. He was elected to the historic Congress as part of the national Democratic surge "
     "linked to Person B's crushing defeat of Person C of Arizona."),
    # two organisations the NER joined are no person; a name it missed whose head says what it is
    ("Barbara Barrett is a diplomat. She also served on the boards of Space Foundation, Mayo Clinic, Exponent "
     "Corporation, Raytheon and Piper Aircraft. She won and her team won.", "Barbara Barrett",
     "She is a diplomat. She also served on the boards of a foundation, a clinic, a company, an organization."),
    # a body "to" another is one body; a school's "of Art" and the "Sir" before it are part of its name
    ("Barbara Barrett is a diplomat. Previously, she was senior advisor to the U.S. Mission to the United Nations. "
     "She studied at Sir J. J. School of Art in Bombay. She won and her team won.",
     "Barbara Barrett", "She is a diplomat. Previously, she was senior advisor to an organization. She studied at "
     "an art school in India."),
    # a lord is a person, not the town his title names; a ranking is never cut to a false one: the unique claim
    # becomes "a member", and what is left of its sentence says nothing, so the sentence goes
    ("James Bryans was a writer. Lord Halifax remained as Foreign Secretary. He was found to be the third most "
     "conservative member of the club.", "James Bryans",
     "He was a writer. Person B remained as Foreign Secretary."),
    # the subject's first names are the subject; "the top 10" loses its number, not its article
    ("Taher Mohamed Ahmed Taher (born 1997) is an Egyptian footballer. He played well. In 2016 a magazine selected "
     "Taher Mohamed among the top 10 world football players.", "Taher Mohamed Ahmed Taher",
     "He is an Egyptian footballer. He played well. In the 2010s a magazine selected him among the top world "
     "football players."),
    # a bracketed abbreviation of the name before it goes with its brackets ("an organization (a sports
    # league)" was an output)
    ("James Umbricht was a pitcher. He joined the Kenema Government Hospital (KGH), where he spent two decades. "
     "He won and his team won.", "James Umbricht",
     "He was a pitcher. He joined a hospital, where he spent two decades."),
    # one word the NER calls an organisation, as a possessive, is as often a person ("an organization's
    # Andante" was an output): its phrase goes
    ("Yoko Misumi is a pianist. Her appearances include a performance of Chopin's Andante with the Trinity "
     "College of Music Symphony Orchestra under James Judd. She won and her team won.", "Yoko Misumi",
     "She is a pianist. Her appearances include a performance under Person B."),
    # a pronoun takes the subject's whole noun phrase ("The 6'4\" he played" was an output), and losing an
    # unbalanced inch mark is no fault; a superlative picks one out ("the driver to compete" was an output):
    # the unique claim goes whole
    ("Richie Guerin is a basketball player. The 6'4\" (1.93 m) Guerin played with the New York "
     "Knicks from 1956 to 1963. He won and his team won.", "Richie Guerin",
     "He is a basketball player. He played with a basketball team from the 1950s to the 1960s."),
    ("Max Verstappen is a racing driver. In 2015 he became the youngest driver to compete in Formula 1 at the "
     "2015 Australian Grand Prix. He won and his team won.", "Max Verstappen",
     "He is a racing driver. He won and his team won."),
    # another name of the subject goes whole with its variants, and then the life dates after the pronoun
    ("Georges Meyer-Darcis, full name Georg Gottlieb August Meyer-Darcis (or Meyer Darcis) (12 September 1860 in "
     "Wohlen – 3 January 1913 in Florence) was a Swiss botanist. He collected insects and his collection was sold.",
     "Georges Meyer-Darcis", "He was a Swiss botanist. He collected insects"),
    # a clause set off by a comma is no complement ("He participated, scoring a point" was an output); a
    # degree written "M.S." is no organisation ("his doctorate and an organization" was an output)
    ("John Love was a racing driver. He participated in the 1961 Rand Grand Prix, scoring a championship point. "
     "He received his doctorate in 1964 and an M.S. in 1960. He won and his team won.", "John Love",
     "He was a racing driver. He participated in a race, scoring a championship point. He received his "
     "doctorate in the 1960s and an M.S. in the 1960s."),
    # a name after "at" or "in" is a venue more often than a person ("at Person T" for Roland Garros, "Person
    # EL in New Jersey" for a gallery were outputs): its phrase goes; a teacher "with" a name goes with "with"
    ("Tom Hall is a painter. He has exhibited his paintings at Lisa Cooley in New York. He studied with John "
     "Smith at the academy. He won and his team won.", "Tom Hall",
     "He is a painter. He studied at the academy."),
    # a work named after its noun becomes its noun ("Her work Parent" for "Mother and Child" was an output;
    # titles of films and albums stayed), and a title's gendered words are the title's
    ("Mary Hall was a painter. Her work Mother and Child was included in the book Women Painters of the World. "
     "She co-starred in the film \"Killing Cinderella\". Her debut album Thriller sold well. Her mother was a "
     "painter and her son sang.", "Mary Hall",
     "She was a painter. Her work was included in a book. She co-starred in a film. Her debut album sold well."),
    # a name after a common noun goes, the noun stays ("the restaurant an organization" was an output); the
    # name that opens the text with the subject's surname and initial is the subject, and ", known as X," goes
    ("João Frederico Limpo Franco Gil (born 24 March 1985), known as Fred Gil, is a tennis player. In 2016, he "
     "opened the restaurant Momosan Ramen & Sake on Lexington Ave. in New York City. He won and his team won.",
     "Fred Gil", "He is a tennis player. In the 2010s, he opened a restaurant on"),
    # "a 5 time champion" is "a multiple-time" one ("He is a time WMC World Champion" was an output)
    ("Sakmongkol Sithchuchok is a Thai kickboxer. He is a 5 time world champion. He won and his team won.",
     "Sakmongkol Sithchuchok", "He is a Thai kickboxer. He is a multiple-time world champion."),
    # a pronoun takes the subject's name, not the noun phrase before it ("Sarazen was he trained" was an output)
    ("Max Hirsch was a trainer. The colt was the first Champion Max Hirsch trained. He won and his team won.",
     "Max Hirsch", "He was a trainer. The colt was the first Champion he trained."),
    # (a rare name the NER left untagged, a subject, goes with its sentence: "Sarazen was the first Champion he
    # trained" named the horse)
    ("Max Hirsch was a trainer. Sarazen was the first Champion Max Hirsch trained. In 1925, Sarazen was the Horse of "
     "the Year. He won and his team won.", "Max Hirsch", "He was a trainer. He won and his team won."),
    # a work's noun may carry two modifiers ("the comedy TV show Orijino Komedi" stayed)
    ("Daniel Ndambuki is a comedian who co-hosts the comedy TV show Orijino Komedi. He won and his team won.",
     "Daniel Ndambuki", "He is a comedian who co-hosts a comedy TV show."),
    # each name in a list of venues is a venue, not a person ("Person EM (Italy)" for Galleria Milano was an output)
    ("Tom Hall is a painter. He has exhibited in such venues as Pierogi, the Hall Gallery, Galleria Milano (Italy) "
     "and Galleria Martano (Italy). He won and his team won.", "Tom Hall", "He is a painter. He won"),
    # a date after "before"/"after" keeps its side of the period ("died before the 1810s" for "before April
    # 1811" was false), and a birth date before 1800 is a decade too ("She was born a date" was an output)
    ("Babette Ployer was a pianist. She was born on 2 September 1765 in Austria. She died before April, 1811, in "
     "Croatia. After 1790 she lived in Austria. She won and her team won.", "Babette Ployer",
     "She was a pianist. She was born in the 1760s in Austria. She died before the end of the 1810s, in Croatia. "
     "After the start of the 1790s she lived in Austria."),
    # a bracket of years is one period, and a count after a name's word is still a count ("(in the 20th century
    # and the 1950s and 1960s, in the 1960s and the 1970s)" and "in the Olympiads 11 times" were outputs)
    ("Max Euwe was a chess player. He played in the Olympiads 11 times (1950–1954, 1958–1962, 1968, 1972–1978). "
     "He won and his team won.", "Max Euwe",
     "He was a chess player. He played in the Olympiads about ten times (1950s–1970s)."),
    # "Sir" and the honours after the name are the subject's mention ("Sir Person BAX GCMG MC (1890s–1950s)
    # was a diplomat" was an output)
    ("Sir Charles Brinsley Pemberton Peake GCMG MC (2 January 1897 – 10 April 1958) was a British diplomat. He "
     "served in the army and his son served too.", "Charles Peake", "He was a British diplomat."),
    # a work's last word says what it is ("The Bear Down Podcast" stayed whole), and a name the NER and the
    # lexicon missed but that is rare in English goes with its phrase ("for Fortec" stayed)
    ("Tom Smith is a comedian. He hosts The Bear Down Podcast and appeared on The Todd Glass Show. In 2014 he "
     "raced in Formula Renault 3.5 for Fortec. He won and his team won.", "Tom Smith",
     "He is a comedian. He hosts a podcast and appeared on a show. In the 2010s he raced in a motor racing series."),
    # a count before a name is a count ("257 Formula One World Championship Grands Prix" kept its 257)
    ("Riccardo Patrese is a racing driver. He entered 257 Formula One World Championship Grands Prix. He won "
     "and his team won.", "Riccardo Patrese", "He is a racing driver. He entered over 200 races."),
    # a small count of a name reads as all there were ("participated in two races" of two Formula One
    # Grands Prix; he ran others): the kind loses the number; "his four Belmont Stakes" (all of his) goes
    ("Tony Maggs is a racing driver. He participated in two World Championship Formula One Grands Prix, scoring "
     "a single championship point. He won and his team won.", "Tony Maggs",
     "He is a racing driver. He participated in races, scoring a single championship point."),
    # (so does a removed modifier's: "won six Formula One races" is no "won six races")
    ("Riccardo Patrese is a racing driver. He won six Formula One races, with a record gap of over six years.",
     "Riccardo Patrese", "He is a racing driver. He won races, with a record gap of over six years."),
    # coordinated years before a name go together ("the 1976 and Summer Olympics" was an output); a
    # "between" range inside one decade is "in" it ("between the 1990s" was an output)
    ("Jan Smith is a cyclist. He competed at the 1976 and 1980 Summer Olympics in four events in total.",
     "Jan Smith", "He is a cyclist. He competed at the Summer Olympics in four events in total."),
    ("Bob Kay is a tennis player. He coached between 1990 and 1996. He played between 1985 and 1999.",
     "Bob Kay", "He is a tennis player. He coached in the 1990s. He played between the 1980s and the 1990s."),
    # "from 1940 to 1942" is one span: "in the 1940s" ("from the mid-20th century to the 1940s" was
    # an output, the loop having taken one year further than the other)
    ("Tom White was a politician. Subsequently, from 1940 to 1942, he attended a college. He served in the "
     "army from 1942 to 1955. He was a member of the Indian Munitions Board from 1917 – 1919. He won and his "
     "team won.", "Tom White",
     "He was a politician. Subsequently, in the 1940s, he attended a college. He served in the army from the "
     "1940s to the 1950s. He was a member of a board in the 1910s."),
    # "ranked sixth in the world" is an exact rank: a band of ranks
    ("Ana Lee is a Chinese table tennis player. She was ranked sixth in the world by 2008. She won and her "
     "team won.", "Ana Lee",
     "She is a Chinese table tennis player. She was ranked in the top ten in the world by the 2000s."),
    # a relative's "(d. 1784)" goes with her name, and never leaves "(d. The 1780s)" (an output)
    ("Tom Hall was an inventor. His wife was Mary Hall (d. 1784), a teacher. He built boats.", "Tom Hall",
     "He was an inventor."),
    # a name between "the" and its noun asked "which one?" once removed, whatever comma-set clause follows
    # ("His debut came in the tournament, where he" was an output)
    ("Dan Hess is a fighter. Hess's mixed martial arts debut came in the Ultimate Fighting Championship 5 tournament, "
     "where he defeated Andy Anderson by TKO.", "Dan Hess",
     "He is a fighter. His mixed martial arts debut came in a tournament, where he defeated"),
    # "until 1985" is no "until the 1980s" (which ends as they begin): he went on "into the 1980s"
    ("Tom Hall is a baseball player. He continued to play minor league baseball until 1985, spending his final "
     "season in Maine.", "Tom Hall", "He is a baseball player. He continued to play minor league baseball into the 1980s"),
    # a team's league says nothing once generalized ("a team of a league" was an output), and a team
    # named "X of <league>" is no league ("the former head coach of a league" was an output)
    ("Tom Hall is a lacrosse player. He is the former head coach of the Denver Outlaws of Major League Lacrosse.",
     "Tom Hall", "He is a lacrosse player. He is the former head coach of a team."),
    ("Tom Hall is a lacrosse player for the Chesapeake Bayhawks of Major League Lacrosse. He won and his team won.",
     "Tom Hall", "He is a lacrosse player."),
    # "the Eighty-third and to the eleven succeeding Congresses" dates a member to the year (it stayed)
    ("Tom Hall was an American politician. He was elected as a Republican to the Eighty-third and to the eleven "
     "succeeding Congresses. He won and his team won.", "Tom Hall",
     "He was an American politician. He was elected as a Republican to Congress."),
    # a name's number goes with it ("he commanded the 14 mission" was an output); no one is "the Moon"
    ("Alan Shepard was an American astronaut. He commanded the Apollo 14 mission in 1971. He walked on the Moon.",
     "Alan Shepard", "He was an American astronaut. He commanded a mission in the 1970s. He walked on the Moon."),
    # life dates the parse calls a participial clause go too ("She (born in the 1940s) is" was an output)
    ("Mary Lou Foy (born August 17, 1944) is an American photojournalist. She won and her team won.", "Mary Lou Foy",
     "She is an American photojournalist."),
    # a work's noun may carry a capitalised modifier ("the Japanese cooking show Iron Chef" stayed)
    ("Yutaka Ishinabe was a chef. He was a chef in the Japanese cooking show Iron Chef. He won and his team won.",
     "Yutaka Ishinabe", "He was a chef. He was a chef in a Japanese cooking show."),
    # (but never a name the replacement would keep: "the Hitchcock film Vertigo" is no "a Hitchcock film", the
    # name goes with the title; "the 2016 Ken Loach film I, Daniel Blake" left "the film I")
    ("Tom Hall is an actor. He appeared in the Hitchcock film Vertigo. He won and his team won.", "Tom Hall",
     "He is an actor. He appeared in a film. He won and his team won."),
    ("Tom Hall is an actor. He appears in a minor role in the 2016 Ken Loach film I, Daniel Blake.", "Tom Hall",
     "He is an actor. He appears in a minor role in a film."),
    # a role noun the NER ran into a name is no organisation ("shows by an organization", "a chef for an
    # organization" were outputs); "General Motors" stays a company
    ("John Gordillo is a comedian who has directed shows by the Comedian Eddie Izzard.", "John Gordillo",
     "Person A is a comedian who has directed shows by the Comedian Person B."),
    ("Urbain Dubois was a French chef. His uncle had served as a chef for General Bertrand. He worked for General Motors.",
     "Urbain Dubois", "He was a French chef. His uncle had served as a chef for Person B. He worked for a car maker."),
    # the NER's organisation that is the first word of a name ("rebranded as Three" was an output)
    ("Tom Hall is a presenter. The channel ran until BBC Choice was rebranded as BBC Three.", "Tom Hall",
     "Person A is a presenter. The channel ran until a broadcaster was rebranded as another broadcaster."),
    # an award's category is an award ("won a show" was an output)
    ("Tom Hall is a comedian. In 2016 his stand up set won Best Show at the Leicester Comedy Festival.", "Tom Hall",
     "He is a comedian. In the 2010s his stand up set won an award at a festival."),
    # a name's alternative before a slash ("the Florida/baseball team" was an output)
    ("Kinzer is a baseball scout. He returned to scouting in 2010, with the Florida/Miami Marlins.", "Kinzer",
     "He is a baseball scout. He returned to scouting in the 2010s, with a baseball team."),
    # a foreign name the NER cut around its lower-case words ("the nationale supérieure des school" was an output)
    ("Jean-Paul Viguier is a French architect. He graduated from the École nationale supérieure des Beaux-Arts in 1970.",
     "Jean-Paul Viguier", "He is a French architect. He graduated from a school in the 1970s."),
    # a range whose ends fall in one decade ("served from the 1980s through the 1980s" was an output)
    ("Ann Yeargin is a tennis player. She served on the board from 1982 through 1986.", "Ann Yeargin",
     "She is a tennis player. She served on the board in the 1980s."),
    # an age group is part of its competition's name ("an event over a dozen Championship" was an output)
    ("Peter Inge is a lacrosse coach. He first represented Australia at the 1996 ILF World Under 19 Championship.",
     "Peter Inge", "He is a lacrosse coach. He first represented Australia at a competition."),
    # one hosts an award's ceremony ("He hosted a major film award." was an output)
    ("Jon Stewart is a comedian. Stewart hosted the 78th and 80th Academy Awards.", "Jon Stewart",
     "Person A is a comedian. Person A hosted a major film award ceremony."),
    # (never an award one is presented with: "He was presented with an award ceremony" was false)
    ("Jon Stewart is a comedian. He was presented with the Golden Globe Award in 2000.", "Jon Stewart",
     "He is a comedian. He was presented with a film or television award in the 2000s."),
    # what happens at an award's name happens at its ceremony ("presented with an award at another award" was an
    # output)
    ("Jon Stewart is a comedian. He was presented with the Fashion and Design Award at the Carlton Multi-Cultural "
     "Awards in 2001.", "Jon Stewart", "He is a comedian. He was presented with an award at an award ceremony in "
                                       "the 2000s."),
    # a name in brackets after a place is a name of its own ("in a convent in an organization" was an output of
    # "in Lisbon (Convento do Beato)")
    ("Ana Salazar is a fashion designer. She showed her work in an old convent in Lisbon (Convento do Beato), where "
     "it was applauded.", "Ana Salazar", "She is a fashion designer. She showed her work in an old convent in "
                                         "Portugal, where it was applauded."),
    # a nationality that names a sport is the sport's ("a South American Jiu Jitsu competitor" was an output)
    ("Royler Gracie is a Brazilian Jiu Jitsu competitor. He plays American football.", "Royler Gracie",
     "He is a Brazilian Jiu Jitsu competitor. He plays American football."),
    # a bracket the parse hung on a preposition before it is no bound ("(the start of the 1970s and 1980s)"
    # was false of "(1978–82)" after "After")
    ("Robin Williams was an American comedian. After rising to fame on television (1978–82), Williams went on to "
     "establish a career in film.", "Robin Williams",
     "Person A was an American comedian. After rising to fame on television (the 1970s and 1980s), Person A went on"),
    # a rank held once goes with its phrase (a band is false while he still holds one in it: "a former doubles top
    # ten in the world" was an output of a world No. 3); a rank before the noun it ranks modifies it
    ("Bob Bryan is an American tennis player. He is the current world No. 3 doubles player, and a former doubles "
     "world No. 1.", "Bob Bryan", "He is an American tennis player. He is a current world top-ten doubles player."),
    # an age in years and days is an age ("At 33 years and 4 days old" stayed as written)
    ("Flavia Pennetta is a tennis player. At 33 years and 4 days old, she reached the top ten.", "Flavia Pennetta",
     "She is a tennis player. In her early thirties, she reached the top ten."),
    # a season written with one digit ("the 1958-9 session" stayed as written); the year that said which one leaves
    # "a" ("for the session" asked which)
    ("Alfred Pippard was a British engineer. He was a member of the council and was their president for the 1958-9 session.",
     "Alfred Pippard", "He was a British engineer. He was a member of the council and was their president for a session."),
    # a rare name that was its noun's only determiner leaves an article ("played for team" would not read);
    # the data's escaped quotes stick to the words and go with the name; a name before a noun after "a" is
    # still a name ("a Fortec car")
    ('Anna Kovac is a chess player. She played for \\"Peter Rook 1\\" team that took first place. He drove a '
     "Fortec car. She won and her team won.", "Anna Kovac",
     "She is a chess player. She played for a team that took first place. He drove a car."),
    # a name after "mayor of" is a municipality ("the mayor of Person LL" was an output)
    ("Tom Hall is a politician. He served as the mayor of Monte Hermoso. He won and his team won.", "Tom Hall",
     "He is a politician. He served as the mayor of a municipality."),
    # a rare name goes with its phrase
    ("Lika Guhathakurta is an American astrophysicist. She was the program scientist on SPARTAN-201. She won "
     "and her team won.", "Lika Guhathakurta", "She is an American astrophysicist. She was the program scientist."),
    # a firm named for the person is no mention of them ("As head of his own architecture firm, Person AQ," was an output)
    ("Rolf Disch is a German architect. As head of his own architecture firm, Rolf Disch Solar Architecture, Disch has "
     "led Germany as the solar pioneer.", "Rolf Disch", "He is a German architect. As head of his own architecture firm, he"),
    # a name between an adjective and its noun modifies it ("a Canadian-Jamaican Person KN kickboxer" was an output)
    ("Simon Marcus is a Canadian-Jamaican Muay Thai kickboxer who competes in the light heavyweight division. He took up "
     "Muay Thai at sixteen.", "Simon Marcus", "He is a Canadian-Jamaican kickboxer who competes"),
    # the place of the organisation before it, with "in" ("He attended a college, a city, and ..." was an output)
    ("Hosea Parker was a U.S. Representative. He attended Tufts College, Medford, Massachusetts, and was graduated from "
     "the Green Mountain Liberal Institute, South Woodstock, Vermont. He won and his team won.", "Hosea Parker",
     "He was a U.S. Representative. He attended a college in Massachusetts, and was graduated from an institute in Vermont."),
    # a rank after "promoted to" is no organisation, a maker's name with a model number no maker, and a
    # hyphenated name goes whole ("promoted to an organization", "with an organization 49" and "He won the
    # -Sport Championship" were outputs)
    ("Alex Soler was a racing driver. In 1988 he was made an Officer of the Order of Canada and was promoted to "
     "Companion in 1999. His first race was the 1970 Spanish Grand Prix with a Lotus 49. He won the Spanish "
     "GT-Sport Championship with his brother. He won and his team won.", "Alex Soler",
     "He was a racing driver. In the 1980s he was made an Officer of an order of merit. He won a championship with "
     "his brother."),
    # the subject's other name in apposition, with particles and a rank, goes ("He, Person ACU was" was an output)
    ("Carl Robert Osten-Sacken or Carl-Robert Romanovich, Baron von der Osten-Sacken (21 August 1828, St. "
     "Petersburg – 20 May 1906, Heidelberg) was a Russian diplomat and entomologist. He won and his team won.",
     "Carl Robert Osten-Sacken", "He was a Russian diplomat and entomologist."),
    # two different organisations of one kind in one sentence: the second is "another", the same one "the"
    ("Tom Smith is an American soccer player. In 2008, he joined Toronto FC before joining Vancouver FC in 2010. "
     "He coached Toronto FC in 2012 and left Toronto FC in 2014. He played for Chicago FC and Boston FC. He won and "
     "his team won.", "Tom Smith",
     "He is an American soccer player. In the 2000s, he joined a football club before joining another football "
     "club in the 2010s. He coached a football club and left the football club. He played "
     "for two football clubs."),
    # an honour of the lexicon written as a title ("the title of the Hero of a country" was an output)
    ("Boris Yegorov was a Soviet physician-cosmonaut. Yegorov was awarded the title of the Hero of the Soviet Union "
     "on October 19, 1964. He won and his team won.", "Boris Yegorov",
     "He was a Soviet physician-cosmonaut. He was awarded a national honor in the 1960s."),
    # another person's life dates go with their name ("sister of an artist (in the 19th and 20th centuries)")
    ("Mary Gow was an English painter. She was the sister of artist Andrew Carrick Gow (1848–1920) and the niece "
     "of John Gow (fl. 1852–85). She won and her team won.", "Mary Gow",
     "She was an English painter. She was the sister of an artist and the niece of Person"),
    # a life bracket that stood for the appositive's comma leaves the comma ("He (1880s–1960s) son of" was an output)
    ("Marc André Joseph Laberte (29 May 1880 – 29 March 1963) son of Pierre Alexis Auguste Laberte, was trained as "
     "a luthier as well as a bow maker. He won and his team won.", "Marc Laberte",
     "He, son of Person"),
    # what a place was narrowed to has no wider rung ("his district was cut down to Texas" was an output)
    ("Richard White was a congressman. After the map was thrown out, his district was cut down to El Paso and a "
     "few suburbs. He won and his team won.", "Richard White",
     "He was a congressman. After the map was thrown out, his district was cut down to a city and a few suburbs."),
    # a date under a negation has no true rung: "did not play in the 1990s" denies a decade
    ("Tom Smith is a tennis player. He did not play in 1990 because of an injury. He won and his team won.",
     "Tom Smith", "He is a tennis player. He won and his team won."),
    # the bracket goes after the subject's pronoun, glued to the verb or after a nickname and its gloss
    # ("She (born in the 1960s in California) is", "He (born in the 1960s) is" were outputs)
    ("Shawna Trpcic (born October 18, 1966 in Artesia, California)is a Hollywood costume designer. She won and her "
     "team won.", "Shawna Trpcic", "She is a costume designer."),
    (r'Luis Alberto \"Lucho\" Herrera Herrera, known as \"El jardinerito\" (\"the little gardener\") (born May 4, '
     r'1961 in Fusagasugá, Colombia), is a retired Colombian road racing cyclist. He won and his team won.',
     "Luis Herrera", "He is a retired Colombian road racing cyclist."),
    # the birthplace the writer put after the bracket goes with it ("He (born in the 1920s) in Illinois is")
    ("Benjamin Horace (Ben) Weese (born 1929) in Evanston is an American architect. He won and his team won.",
     "Ben Weese", "He is an American architect."),
    # a pronoun takes no noun phrase of its own before the name ("He gained was later used" was an output)
    ("Kelly Johnson was an engineer. He was born in Utah. The information and experience Johnson gained was later "
     "used to build a plane. He won and his team won.", "Kelly Johnson",
     "He was an engineer. He was born in Utah. The information and experience he gained was later used"),
    # a bare date after "died" takes "in" ("died the 1940s" was an output); a settlement keeps its article once
    # its name goes ("in village"); a nickname goes with its sentence ("known as Count Combat" was kept); a kind
    # that repeats its verb gives way ("competed at a competition")
    ("Mitsuyo Maeda was a judoka. He was also known as Count Combat or Conde Koma in Spain. Maeda died 1941 in "
     "Brazil. Maeda was born in Funazawa village. He competed at the World Sportscar Championship. He won and his "
     "team won.", "Mitsuyo Maeda",
     "He was a judoka. He died in the 1940s in Brazil. He was born in a village. He competed at a championship."),
    # a win-loss record says which way it went, a game's score goes, a pitcher's statistics read as ranges
    # ("a 79-70 record", "159 as a starter" and "striking out 123" were kept word for word)
    ("Joe Wyse was a pitcher. In an eight-season career, Wyse posted a 79–70 record with a 3.52 ERA, 362 "
     "strikeouts and 1257-2/3 innings in 251 games pitched, 159 as a starter. He won and his team won.", "Joe Wyse",
     "He was a pitcher. In an eight-season career, he posted a winning record with an ERA of over 3, over 300 "
     "strikeouts and over 1,000 innings in over 200 games pitched."),
    ("Al Kent was a pitcher. In 1958 he went 4-14 with a 5.66 ERA, striking out 123 in 160⅓ innings. He posted an "
     "0–2 record. He has a fighting record of 2-1-1. He scored in a 3-2 away defeat. He won and his team won.",
     "Al Kent", "He was a pitcher. In the 1950s he had a losing record with an ERA of over 5, striking out over 100 "
     "in over 100 innings. He posted a losing record. He has a fighting record. He scored in an away defeat."),
    # "up until" a date goes ("Up until the 2010s" was an output, false of a date in 2015; "Into the 2010s"
    # would say she held it before)
    ("Roberta Vinci is an Italian tennis player. Up until 6 April 2015, she held the position of World No. 1 in "
     "doubles. She won and her team won.", "Roberta Vinci",
     "She is an Italian tennis player. She held the position of top ten in the world in doubles."),
    # a rank before a name says who they are, and counts nothing ("World No. Person ASG" was an output)
    ("Roberta Vinci is a tennis player. She lost to her doubles partner and World No. 10 Sara Errani in the "
     "quarter-finals. She won and her team won.", "Roberta Vinci",
     "She is a tennis player. She lost to her doubles partner and world top-ten player Person B in the quarter-finals."),
    # a party before the list's last noun modifies it ("He is an attorney and diplomat politician." was an output)
    ('Thomas Stuart Price "Tom" Perriello (born October 9, 1974) is an American attorney, diplomat and Democratic '
     "Party politician. He ran for office and his party lost.", "Tom Perriello",
     "He is an American attorney, diplomat and politician."),
    # a phrase that only lists persons goes whole ("including Person VB, Person VD, Person VG, ..." was an
    # output), a given name the NER took for a date among them too ("Simon Day" stayed as written)
    ("Ben Kay is a British comedian. He has worked as script editor for other comedians including Simon Day, "
     "Harry Hill, Lee Evans and Jack Dee. He often played charity doubles, alongside Mark Woodforde, Todd "
     "Woodbridge and Paul Haarhuis. He won and his team won.", "Ben Kay",
     "He is a British comedian. He has worked as script editor for other comedians. He often played charity "
     "doubles."),
    # a name after the noun that says what it is goes, the noun stays; a given name inside a place's name is
    # the place's ("the San Person ADV Bay Area non-profit group" and "the ... group organization" were outputs)
    ("Linda Connor is an American photographer. She is also a founding director of the San Francisco Bay Area "
     "non-profit group Friends of Photography. Her film Moonlight Stories won a prize. She won and her team won.",
     "Linda Connor", "She is an American photographer. She is also a founding director of the Bay Area non-profit "
     "group. Her film won a prize."),
    # a name the parse hung elsewhere is the subject of the verb right after it, which has no other ("A prolific
    # artist, paints in oil" and "of the Vuelta Person A wore", the subject's own pseudonym, were outputs)
    ("Pauline Bewick is an Irish artist. A prolific artist, Bewick paints in oil, sculpts, and works with cloth. "
     "She won and her team won.", "Pauline Bewick",
     "She is an Irish artist. A prolific artist, she paints in oil, sculpts, and works with cloth."),
    # a quoted name of no kind the text says goes with the apposition it stands in, and what the parse hung on
    # the noun after it ("a French tennis player, one of the \"Four Musketeers\" from Europe" was an output;
    # deleting the apposition alone left "a French tennis player, from France who dominated")
    ('Jacques \\"Toto\\" Brugnon was a French tennis player, one of the famous \\"Four Musketeers\\" from France who '
     "dominated tennis in the late 1920s. He won and his team won.", "Jacques Brugnon",
     "He was a French tennis player. He won"),
    # a quoted name modifying a noun goes ("inventor of the ‘Rocket’ life-saving apparatus" stayed); a date
    # before a dash starts a range ("(– the 1850s)" was an output); "MP" is an office, "Davies Gilbert" one name
    # ("his local an organization, Davies Person F" was an output)
    ("Henry Trengrouse (18 March 1772 – 14 February 1854) was an inventor of the ‘Rocket’ life-saving apparatus. "
     "He persuaded his local MP, Davies Gilbert, to work for a change in the law. He won and his team won.", None,
     "Person A (1770s–1850s) was an inventor of the life-saving apparatus. He persuaded his local MP"),
    ("Jesús Rosendo Prado is a Spanish road bicycle racer. In 2011 due to a strong ride in a breakaway in Stage 2 "
     "of the Vuelta Rosendo wore the white jersey for one day. He won and his team won.", "Jesús Rosendo",
     "He is a Spanish road bicycle racer. In the 2010s due to a strong ride in a breakaway in Stage 2 of the Vuelta "
     "he wore the white jersey for one day."),
    # a year that said which season goes with its phrase ("he played winter ball in the season." was an output);
    # an organisation's name before the noun it modifies goes, "the" and the noun stay
    ("Tom Ray is an American baseball player. In between, he played winter ball with the Tiburones de La Guaira "
     "club of the Venezuelan League in the 2009 season. He joined the NASA astronaut corps. He won and his team won.",
     "Tom Ray", "He is an American baseball player. In between, he played winter ball. He joined the astronaut corps."),
    # a later conjunct is what its list's verb says too, and a list of one kind is counted, "the" and all
    # ("He has played for a team and an organization." was an output)
    ("Tom Ray is an American lacrosse player. He has played for the Rochester Rattlers and the Baltimore Bayhawks. "
     "He won and his team won.", "Tom Ray", "He is an American lacrosse player. He has played for two teams."),
    # a horse race whatever the NER made of its pieces ("Along with an organization and Person BBN, he trained" was
    # an output of "Along with the Pacific Classic and Santa Anita Handicap")
    ("Gary Jones is a horse trainer. Along with the Pacific Classic and Santa Anita Handicap, Jones trained Best Pal "
     "to wins in the Oaklawn Handicap. He won and his team won.", "Gary Jones",
     "He is a horse trainer. Along with two horse races, he trained"),
    # a "Classic" is a race only in a text about racing ("the Hampton Classic" is a horse show)
    ("Gary Jones is a show jumper who rides horses. He won the Hampton Classic. He won and his team won.", "Gary Jones",
     "He is a show jumper who rides horses. He won"),
    # the subject's other name after "naturalized as" goes with its phrase ("a South American naturalized as Person
    # AAD" was an output)
    ("Mitsuyo Maeda (born December 18, 1878 – November 28, 1941), a Brazilian naturalized as Otávio Maeda, was a "
     "Japanese judoka. He fought in Brazil. He won and his team won.", "Mitsuyo Maeda",
     "He was a Japanese judoka. He fought in Brazil."),
])
def test_names_places_and_ranks_read_as_their_kind(engine, text, name, expected):
    out = anonymize(engine, text, name=name)
    assert out.startswith(expected), out


@pytest.mark.parametrize("text, name, gone", [
    # a name that says among whom a rank ranges never goes alone: the rank would range over everyone
    ("Richie Guerin was a basketball player. He was one of the most talented and best-loved players ever to wear a "
     "New York Knicks jersey. He won and his team won.", "Richie Guerin", "ever to wear a jersey"),
    ("Tanya Bailey is a cyclist. Although she was ranked no. 9 in the UCI rankings for female BMX cyclists, she "
     "could not match a stellar ride in her semifinal heat. She won and her team won.", "Tanya Bailey",
     "for female cyclists"),
])
def test_a_rank_keeps_the_group_it_ranges_over(engine, text, name, gone):
    out = anonymize(engine, text, name=name)
    assert gone not in out and "Knicks" not in out and "BMX" not in out, out
    assert out.endswith("won and his team won.") or out.endswith("won and her team won."), out  # (the rest stays)


def test_a_conjunct_shares_its_first_items_article_and_a_joint_deed_keeps_its_doers(engine):
    # "a former punter and a pitcher" was false (he no longer pitched)
    out = anonymize(engine, "Matthew Kinzer is a former NFL punter and MLB pitcher. He won and his team won.",
                    name="Matthew Kinzer")
    assert out.startswith("He is a former punter and pitcher."), out
    # "he founded the teaching unit" was false of a unit he founded with two others
    out = anonymize(engine, "Jean-Paul Viguier is an architect. Viguier, with Jean Bossu and Georges-Henri Pingusson, "
                            "founded a teaching unit in 1970. He won and his team won.", name="Jean-Paul Viguier")
    assert re.search(r"with Person \w+ and Person \w+, founded", out), out


def test_the_one_noun_in_a_widened_place_becomes_one_of_many(engine):
    # "director of the zoological museum in Germany" was false: Germany has many
    out = anonymize(engine, "Karl Illiger was a zoologist. He was director of the zoological museum in Berlin. He won "
                            "and his team won.", name="Karl Illiger")
    assert "director of a zoological museum in Germany" in out, out
    # not where "the" picks one out by rank or sameness, nor across a clause
    from veil.agents.local.optimizer import Span, _one_of_many

    for sentence in ("He was the first woman in Berlin.", "He joined the same club in Berlin.",
                     "He loved the years he spent in Berlin.", "He walked in the forest in Berlin."):
        at = sentence.index("Berlin")
        reps = [(6, Span(at, at + 6, "Berlin", "LOCATION"), "Germany")]
        assert _one_of_many(reps, sentence) == reps, sentence


def test_the_subjects_gender_comes_from_sentences_that_name_no_one_else(engine):
    # a patient's "he died" in a physician's biography made her "Person A" throughout
    text = ("Dr. Jean Marie Malecki is a public health official. During her tenure, Malecki played a key role. Robert "
            "Stephens was admitted, and his physician made a diagnosis. Mr. Stephens died and he was buried. She "
            "also helped create a program. Malecki has received awards for her work.")
    out = anonymize(engine, text, name="Jean Malecki")
    assert out.startswith("She is a public health official."), out
    # a partner's pronouns in the sentence after the one naming them are theirs: no gender is guessed
    out = anonymize(engine, "Ann Lee is a physician. She married John Smith in 1990. He is a lawyer. He was born in "
                            "Boston.", name="Ann Lee")
    assert not out.startswith("He "), out


def test_a_unique_claim_goes_with_the_places_the_parse_hung_elsewhere():
    # "He was a Canadian artist, at another organization." was an output
    from veil.agents.local.optimizer import _ranking_claims

    text = ("He was the first Canadian artist to win a prize at the Queen Elisabeth International Music Competition "
            "of Belgium, at the Concorso Pianistico Internazionale Ferruccio Busoni and at the International "
            "Competition for Musical Performers in Geneva.")
    (claim,) = _ranking_claims(nlp.parse(text))
    assert claim.text.startswith("the first Canadian artist") and claim.text.endswith("in Geneva"), claim
    assert claim.meta.get("plain") == "a Canadian artist"


@pytest.mark.parametrize("text, name, expected", [
    # "his four Belmont Stakes" -> "his four horse races" was false (he won others): all of his is all of his
    ("Max Hirsch was a horse trainer. He trained horses. Max Hirsch won the first of his four Belmont Stakes in "
     "1928 with Vito.", "Max Hirsch", "He was a horse trainer. He trained horses."),
    ("Bob Kay is a tennis player. He played for many years. He won his six Grand Slam titles in 1990.",
     "Bob Kay", "He is a tennis player. He played for many years."),
    # a name under a rank or a superlative names the set it ranges over: no wider name is true there ("Great
    # Britain's second champion singles player" of "second World Champion", "the first car to win" of "the first
    # Formula One car to win" claimed more); with no phrase to hold it, its sentence goes, and a title the policy
    # keeps stays as written
    ("Johnny Leach was a table tennis player. He played for many years. In 1949, Leach became Great Britain's second "
     "World Champion singles player.", "Johnny Leach", "He was a table tennis player. He played for many years. In "
     "the 1940s, he became Great Britain's second World Champion singles player."),
    ("Jules Bianchi was a racing driver. He played for many years. He drove the first Formula One car to win.",
     "Jules Bianchi", "He was a racing driver. He played for many years."),
    # (the rank may be the name's own first word: "her event quarter-final" of "her first Grand Slam quarter-final"
    # was an output); a number counts editions, no rank: "the 78th Academy Awards" is an award ceremony
    ("Roberta Vinci is a tennis player. She played for many years. In 2012, Vinci reached her first Grand Slam "
     "quarter-final.", "Roberta Vinci", "She is a tennis player. She played for many years."),
    # a country's own rank goes with its conjunct; a world rank before its noun is a band, which "the" would make
    # one ("He is the current junior tennis player." and "the current Greek No. 1" were outputs)
    ("Stefanos Tsitsipas is a Greek professional tennis player and the current Greek No. 1. Tsitsipas is the current "
     "world number one junior tennis player. He won and his team won.", "Stefanos Tsitsipas",
     "He is a Greek professional tennis player. He is a current world top-ten junior tennis player. He won and his "
     "team won."),
])
def test_a_count_of_all_of_his_goes_with_its_sentence(engine, text, name, expected):
    assert anonymize(engine, text, name=name) == expected


@pytest.mark.parametrize("text, name, expected", [
    # no one writes "He, inventor of the 'Rocket' life-saving apparatus, was born", "He, who is considered a
    # painter, died", "He, dubbed \"ten of hearts\" by his fans, was" (outputs): what the writer set off after the
    # name goes with its commas once the name is a pronoun
    ("Henry Trengrouse, inventor of the 'Rocket' life-saving apparatus, was born in Helston in 1772. He wrote books.",
     "Henry Trengrouse", "He was born in the 1770s. He wrote books."),
    ("Franz Nadorp was a painter. Nadorp, which is considered a romantic German painter in style, died shortly "
     "thereafter in Rome. He wrote books.", "Franz Nadorp", "He was a painter. He died shortly thereafter in Italy. "
                                                          "He wrote books."),
    ('Rudi Altig, dubbed "ten of hearts" by his fans, was popular as well as skilled. He wrote books.', "Rudi Altig",
     "He was popular as well as skilled. He wrote books."),
    # (never a list the parse may take for appositions, nor a clause a later "again" points back at)
    ("Rudi Altig, his wife, and their son moved to Spain in 1990. He wrote books.", "Rudi Altig",
     "He, his wife, and their son moved to Spain in the 1990s. He wrote books."),
    ("Rudi Altig, who had won in 1990, won again in 1994. He wrote books.", "Rudi Altig",
     "He, who had won in the 1990s, won again in the 1990s. He wrote books."),
])
def test_what_is_set_off_after_a_pronoun_goes(engine, text, name, expected):
    assert anonymize(engine, text, name=name) == expected


def test_a_point_the_writer_glued_to_the_next_sentence_ends_a_sentence(engine):
    text = ("Isabel Hampton was a nurse. In 1886, Hampton went to Chicago and assumed the role of superintendent at "
            "the Cook County Hospital.During her time in Chicago, she implemented reforms. She taught and her "
            "students learned.")
    doc = nlp.parse(text)
    assert [text[a:b] for a, b in nlp.sentence_spans(doc)][2] == "During her time in Chicago, she implemented reforms."
    out = anonymize(engine, text, name="Isabel Hampton")
    assert "Hospital" not in out and re.search(r"\. During her time in (?:Illinois|the United States|a city)", out), out
    other = "He worked for Apple Inc.Later he moved."
    assert [other[a:b] for a, b in nlp.sentence_spans(nlp.parse(other))] == ["He worked for Apple Inc.", "Later he moved."]


def test_a_bulleted_list_goes_whole_with_its_heading(engine):
    """Its items' edits left "A race: 9 \\n* Person AON: 8 \\n* Alabama"; the prose between two lists,
    after a list and before one without a heading stays."""
    from veil.agents.base import Task

    def plan(text: str, name: str) -> str:
        task = Task(original=text, doc_id="d", name=name)
        batch = asyncio.run(engine.prepare([Document(id="d", text=text, name=name)]))
        return engine.optimizer.base_plan(task, batch).render()

    out = plan("James Fitzsimmons was a racehorse trainer. He trained three Derby winners. Selected other major stakes "
               "race wins: \\n* Saratoga Cup : 10 \\n* Dwyer Stakes : 9 \\n* Lawrence Realization : 8 \\n* Alabama "
               "Stakes : 8 \\n* Suburban Handicap: 5", "James Fitzsimmons")
    assert out == "He was a racehorse trainer. He trained winners.", out
    out = plan("James Fitz was a racehorse trainer. Selected wins: \n* Saratoga Cup : 10 \n* Dwyer Stakes : 9 \nHe "
               "married in 1900 and had six children. Other wins: \n* Alabama Stakes : 8 \n* Suburban Handicap: 5 \nHe "
               "died in 1966 in Miami.", "James Fitz")
    assert out.split() == ("He was a racehorse trainer. He married in the 1900s and had six children. He died in the "
                           "1960s in Florida.").split(), out
    out = plan("James Fitz was a racehorse trainer. He wrote books. \n* The Red Book \n* The Blue Book\nHe died in "
               "Paris.", "James Fitz")
    assert out.split() == "He was a racehorse trainer. He wrote books. He died in France.".split(), out
    out = plan("Bert Mulholland was a horse trainer. Champions trained by Bert Mulholland: \\n*  Platter - American "
               "Champion Two-Year-Old Colt (1943) \\n*  Jaipur - American Champion Three-Year-Old Male Horse (1962) "
               "In 1967, Bert Mulholland was inducted in the Racing Hall of Fame. He died in 1968 at a hospital.",
               "Bert Mulholland")
    assert "\\n" not in out and "Champion" not in out and out.endswith("He died in the 1960s at a hospital."), out
    # a list of dashes is the writer's content (a note's medications), not an encyclopedia's appendix
    out = plan("Pt seen today for a follow-up visit. Current medications:\n- aspirin 81 mg daily\n- metformin 500 mg "
               "twice daily\nShe will return in two weeks.", "")
    assert "aspirin" in out and "metformin" in out, out


def test_a_title_said_of_a_person_has_only_rungs_that_name_its_holder(engine):
    """The parse took "an International Master and Peter Svidler's first trainer" for a modifier;
    "her parent is a chess title" was an output of the loop's next rung."""
    from veil.agents.base import Task

    text = ("Anna Styazhkina is a Russian chess player. She comes from a chess family: her father Viacheslav is an "
            "International Master and Peter Svidler's first trainer, and her mother Olga is a Woman Grandmaster.")
    task = Task(original=text, doc_id="d", name="Anna Styazhkina")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Anna Styazhkina")]))
    plan = engine.optimizer.base_plan(task, batch)
    titles = [u.options for u in plan.units if u.kind == "span" and u.text == "International Master"]
    assert titles == [["a titled chess player"]], titles


def test_what_the_ner_mistyped_gets_no_false_kind(engine):
    """A list of names a colon opens goes whole ("They had five children: Person H, Person I." was
    an output); a town the NER called a body is no organization after "born in"; what the NER
    alone called a product is no product ("assistant engineer to a product")."""
    from veil.agents.base import Task

    text = ("Urbain Dubois was a French chef. He married in 1868. They had five children: Joseph-Émile, Albert-Félix, "
            "Ernest-Eugène, Julie-Marguerite and Jeannette-Hélène. Dubois, the son of a master weaver, was born in "
            "Trets in the  Bouches-du-Rhône Department of France. He was appointed chef to the Admiralty on 22 June "
            "1933. He cooked and his books sold.")
    task = Task(original=text, doc_id="d", name="Urbain Dubois")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Urbain Dubois")]))
    out = engine.optimizer.base_plan(task, batch).render()
    assert "They had five children." in out and "Person" not in out, out
    assert "organization" not in out and "product" not in out and "Trets" not in out, out
    # (the sentences stay, without what was false or named, and without what was set off after the name)
    assert "He was born in" in out and "He was appointed chef" in out, out


def test_an_edited_sentence_keeps_its_point(engine):
    """The point the tokenizer glued to a word ("brushwork.\\\\"") goes with the phrase that holds it;
    the sentence still ends with one ("He began showing oils with motifs" was an output)."""
    from veil.agents.base import Task

    text = ('Brian Gormley is a painter. In the mid-1980s, Gormley began showing expressionistic oils with figural '
            'motifs, distinguished by wild color and bravura brushwork.\\" Of Irish ancestry Gormley exhibits in his homeland.')
    task = Task(original=text, doc_id="d", name="Brian Gormley")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Brian Gormley")]))
    plan = engine.optimizer.base_plan(task, batch)
    k = next(i for i, u in enumerate(plan.units) if u.kind == "participial clause")
    si = plan.units[k].sentence
    assert plan.render_sentence(si, {**plan.choice, k: ""}).endswith("motifs.")


def test_a_sentence_after_a_deleted_one_stands_apart_and_a_named_award_reads_as_one(engine):
    """"victories.The Davis Cup team": with the sentence between them gone, "Person AVW.A team was"
    was an output; "the 2015 BBC Sports Personality Team of the Year Award" is one award (it was
    "a sports team of an award"), and where no phrase holds it, its kind stands even beside
    "awarded" (it stayed as written)."""
    from veil.agents.base import Task

    text = ("Jamie Murray is a Scottish tennis player. He won the doubles in the final victories.The Davis Cup team "
            "was awarded the 2015 BBC Sports Personality Team of the Year Award.")
    task = Task(original=text, doc_id="d", name="Jamie Murray")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Jamie Murray")]))
    plan = engine.optimizer.base_plan(task, batch)
    plan.choice[plan.analysis.sentence_unit(1)] = ""
    assert plan.render() == "He is a Scottish tennis player. A team was awarded an award.", plan.render()


def test_the_subjects_name_is_never_swallowed_into_a_name_after_it(engine):
    """"to award Voris the Neiman Marcus Fashion Award": "the" between two objects of one verb
    joins no name (the award's took hers, and "Voris" stayed as written); "Alexander the Great"
    is still one name."""
    from veil.agents.base import Task

    text = ("Voris was an American designer. It has been suggested that this inspired the decision to award Voris the "
            "Neiman Marcus Fashion Award in 1942. She admired Alexander the Great.")
    task = Task(original=text, doc_id="d", name="Voris")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Voris")]))
    out = engine.optimizer.base_plan(task, batch).render()
    assert "Voris" not in out and "decision to award her an award" in out, out
    assert "Alexander" not in out and "Great" not in out, out


def test_the_single_document_suite(engine):
    """Every marked direct identifier is removed or generalized; every output sentence passes
    the parse check (or is an original sentence); nothing untruthful is added."""
    missed, broken, untrue = [], [], []
    for rec in SINGLE:
        out = anonymize(engine, rec["text"], name=rec.get("name"), doc_id=rec["id"])
        missed += [(rec["id"], i) for i in rec["identifiers"] if i in out]
        broken += [(rec["id"], s, why) for s, why in nlp.check_text(out, rec["text"])]
        report = check(rec["text"], out)
        untrue += [(rec["id"], w) for w in report.violations]
    assert len(SINGLE) >= 20
    # known miss: "Colleen R." - the parser ends a sentence after the initial "R.", so the
    # name's two halves fall into two sentences (reported in issue 8's notes)
    assert set(missed) <= {("review-harbor-hotel", "Colleen R.")}, missed
    assert not untrue, untrue
    assert len(broken) <= 0.05 * len(SINGLE), broken


# -- truthfulness ---------------------------------------------------------------------------
def test_truthfulness_checker_flags_inventions_and_the_label():
    orig = "He was born in Sacramento in 1942 and studied at UC Davis."
    assert check(orig, "He was born in California in the 1940s and studied at a university.").ok
    bad = check(orig, "He was born in Egypt in the 1940s and studied ceramics at a university.")
    assert "ceram" in bad.violations
    injected = check("We met at the bar.", "We met the software engineer at the bar.", label="software engineer")
    assert injected.label_injections and not injected.ok
    # a band above a rank is true ("ranked no. 275" is in the top 500), one below it is not
    assert check("He is ranked no. 275.", "He is ranked in the top 500.").ok
    assert "100" in check("He is ranked no. 275.", "He is ranked in the top 100.").violations
    # a life bracket's second date is the death's: "died" is its reading, not an invention
    assert check("Maeda (born 1878 in Japan – November 28, 1941) was a judoka.",
                 "He (born in the 1870s in Japan – died in the 1940s) was a judoka.").ok
    assert "die" in check("Maeda (born 1878 in Japan) was a judoka in 1941.",
                          "He (born in the 1870s in Japan) died in the 1940s.").violations


_FIRST = ["Anna", "Tomas", "Leila", "Marcus", "Ingrid", "Kenji", "Olga", "Rafael"]
_LAST = ["Berger", "Novak", "Haddad", "Lindqvist", "Okafor", "Moreau", "Sato", "Quintero"]
_CITY = ["Sacramento", "Lyon", "Osaka", "Krakow", "Toronto", "Seville", "Gothenburg", "Denver"]
_ORG = ["Stanford University", "the Hotel Sacher", "Boeing", "the Royal Danish Academy", "Sacramento City College"]
_JOB = ["chef", "architect", "nurse", "engineer", "teacher", "photographer"]


def _generated(rng: random.Random) -> tuple[str, str]:
    name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    first = name.split()[0]
    year = rng.randint(1930, 1999)
    sents = [
        f"{name} is a {rng.choice(_JOB)} from {rng.choice(_CITY)}.",
        f"{first} was born on {rng.randint(1, 28)} May {year} and studied at {rng.choice(_ORG)}.",
        f"In {year + 25}, {first} moved to {rng.choice(_CITY)}, where she opened a studio with {rng.choice(_FIRST)} "
        f"{rng.choice(_LAST)}.",
        f"You can reach her at {first.lower()}@example.com or (503) 555-0{rng.randint(100, 199)}.",
        f"Her work won {rng.randint(2, 40)} awards, including the {rng.choice(_CITY)} Prize in {year + 30}.",
    ]
    rng.shuffle(sents)
    return " ".join(sents), name


def test_truthfulness_over_many_generated_documents(engine):
    rng = random.Random(7)
    for i in range(40):
        text, name = _generated(rng)
        out = anonymize(engine, text, name=name, doc_id=f"g{i}")
        report = check(text, out)
        assert report.ok, (text, out, report)
        for part in name.split():
            assert part not in out, out
        assert "@example.com" not in out and "555-0" not in out, out


def test_parse_failures_count_only_sentences_veil_wrote():
    from veil.evals.grammar import parse_failures

    original = "He was born in Sacramento in 1942. He studied art at the college."
    broken = "He was born in Sacramento in 1942. He studied art at the."
    fine = "He was born in California in the 1940s. He studied art at a college."
    bad = parse_failures([original, original], [broken, fine])
    assert bad["sentences"] == 4 and bad["failed"] == 1 and bad["records_with_failures"] == 1
    assert bad["share"] == 0.25 and "dangling word before punctuation" in bad["reasons"]
    assert parse_failures([original], [original])["failed"] == 0


def test_policy_flag_changes_what_the_local_engine_generalizes(tmp_path, capsys):
    """`--policy FILE`: a copy of the default policy that keeps places keeps "Sacramento"; the
    default generalizes it; a policy naming an unknown operator is a one-line user error."""
    import json as _json

    from veil.agents.local.policy import DEFAULT_POLICY
    from veil.cli import main

    src = tmp_path / "in.txt"
    src.write_text("Kurt Fishback was born in Sacramento in 1942. He teaches photography at a college.\n")
    policy = _json.loads(DEFAULT_POLICY.read_text())
    policy["rules"]["LOCATION"] = {"operator": "keep"}
    keep = tmp_path / "keep.json"
    keep.write_text(_json.dumps(policy))
    outs = {}
    for name, extra in (("default", []), ("keep", ["--policy", str(keep)])):
        dst = tmp_path / f"{name}.txt"
        rc = main(["anonymize", str(src), "-o", str(dst), "--db", str(tmp_path / "veil.db"), "--no-progress", *extra])
        assert rc == 0, capsys.readouterr().err
        outs[name] = dst.read_text()
    assert "Sacramento" not in outs["default"] and "California" in outs["default"]
    assert "Sacramento" in outs["keep"] and "1942" not in outs["keep"]
    policy["rules"]["LOCATION"] = {"operator": "scramble"}
    bad = tmp_path / "bad.json"
    bad.write_text(_json.dumps(policy))
    capsys.readouterr()
    rc = main(["anonymize", str(src), "--db", str(tmp_path / "veil.db"), "--no-progress", "--policy", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and "unknown operator 'scramble'" in err and len(err.strip().splitlines()) == 1


def test_text_that_is_not_english_gets_the_pattern_recognizers_and_a_warning():
    import asyncio

    from veil.anonymizer import Anonymizer
    from veil.documents import Document

    text = ("Je m'appelle Claire Dubois et j'habite à Lyon depuis 1998. Vous pouvez m'écrire à "
            "claire.dubois@example.org ou m'appeler au +33 6 12 34 56 78 pour le rendez-vous de la semaine prochaine.")

    async def go():
        async with Anonymizer("local", db_path=None) as anon:
            return await anon.anonymize(Document(id="fr", text=text, name="Claire Dubois"))

    r = asyncio.run(go())
    out = r.anonymized_text
    assert "claire.dubois@example.org" not in out and "12 34 56 78" not in out and "Dubois" not in out
    assert "Lyon" in out and "1998" in out  # the English NER and policy did not run on French
    assert r.privacy_status == "unverified"
    assert any("not read as English" in p for p in r.protections)


@pytest.mark.parametrize(("rendered", "expected"), [
    ("Person A (the 1890s – the 1970s) was a tennis player.", "Person A (1890s–1970s) was a tennis player."),
    ("He (in the 1930s, Russia – in the 1990s, Russia) was a doctor.", "He (1930s, Russia–1990s, Russia) was a doctor."),
    ("From the 1860s until the 1860s he was president.", "In the 1860s he was president."),
    # a kind of organization needs no "of an organization" after it (the Wings of the National Lacrosse League)
    ("He is the former head coach of a team of an organization.", "He is the former head coach of a team."),
    ("He was a member of an organization.", "He was a member of an organization."),
    ("He is the head coach of a team of a league.", "He is the head coach of a team."),
    # a suffix after a pseudonym says it shares the subject's name; a ruler's pseudonym reads as no one writes
    ("One of the children of Person TA and Person SZ, Sr., he grew up in Texas.",
     "One of the children of Person TA and Person SZ, he grew up in Texas."),
    ("Following the death of Person AON, Jr. in the 1950s, he left.", "Following the death of Person AON in the 1950s, he left."),
    ("He was the son of Person AON Jr.", "He was the son of Person AON."),
    ("He was received by King Person FG of Prussia.", "He was received by the King of Prussia."),
    ("King Person FG of Prussia received him.", "The King of Prussia received him."),
    # the article a deleted clause left to settle takes the form of the word now after it
    ("He appeared in a(n) comedy.", "He appeared in a comedy."),
    ("A(n) engineering firm was large.", "An engineering firm was large."),
    ("The years the 1840s and 1850s are among his most fertile.", "The 1840s and 1850s are among his most fertile."),
    ("She is a multiple-time Olympian and multiple-time a medalist.", "She is a multiple-time Olympian and multiple-time medalist."),
    ("In the 2000s and the 2000s, she was ambassador.", "In the 2000s, she was ambassador."),
    ("He broke through in late the 2010s.", "He broke through in the 2010s."),  # "late 2012" is no "late 2010s"
    ("On the 2010s, he hosted an evening.", "In the 2010s, he hosted an evening."),
    ("the 1990s she was ranked first.", "In the 1990s she was ranked first."),
    ("He played for a basketball team, a basketball team and a basketball team.", "He played for three basketball teams."),
    ("Venues such as a gallery, an organization, an organization and an organization.",
     "Venues such as a gallery, and three organizations."),
    ("He , is a former punter.", "He is a former punter."),
    ("He died in the early hours of the 2010s.", "He died in the 2010s."),
    ("He won a race in the The Netherlands.", "He won a race in the Netherlands."),
    ("Starting as a comedian in California and California, he won.", "Starting as a comedian in California, he won."),
    ("He started training at as a child.", "He started training as a child."),  # "at 6 years old"
    ("She wrote her memoir at in her early eighties.", "She wrote her memoir in her early eighties."),
    ("He was elected to Congress (1870s–1870s).", "He was elected to Congress (1870s)."),
    ("He received his doctorate and an M.S..", "He received his doctorate and an M.S."),
    ("In the 1990s he was awarded an LL.D. .", "In the 1990s he was awarded an LL.D."),  # (of "an LL.D. from Carleton")
    ("He was noted for his work in the United States and the United States.", "He was noted for his work in the United States."),
    # a decade within the century beside it (of "for 1990 and 1991", each year at its own rung)
    ("He joined the team for the late 20th century and the 1990s.", "He joined the team for the late 20th century."),
    ("He (born in the 1980s), is a Canadian-Jamaican kickboxer.", "He (born in the 1980s) is a Canadian-Jamaican kickboxer."),
    ("He won in the 1950s and the late 20th century.", "He won in the 1950s and the late 20th century."),
    ("He won a championship in the 1990s, the 2010s and the 2010s.", "He won a championship in the 1990s and the 2010s."),
    ("In the 2010s, he announced his retirement in the 2010s.", "In the 2010s, he announced his retirement."),
    ("He won in the 1990s, the 2000s, and the 2010s.", "He won in the 1990s, the 2000s, and the 2010s."),
    ("He won a competition in the 2000s, in the early 21st century, in the 2010s.",
     "He won a competition in the 2000s, the early 21st century and the 2010s."),  # "Kinzer, (born 1963), is" ("He, is" was an output)
    ("He achieved a chess title title in the 1960s.", "He achieved a chess title in the 1960s."),  # "the Grandmaster title"
    ("He said that that was a very very long race.", "He said that that was a very very long race."),  # (no kind)
    # a bracket whose words all went ('\"Gentile\" ()' of '(non-Mormon)')
    ('He was one of the first "Gentile" () architects.', 'He was one of the first "Gentile" architects.'),
    # the end of a wider period is another time ("ended at the end of the 1990s" of "at the end of July, 1996")
    ("His career ended at the end of the 1990s.", "His career ended in the 1990s."),
    ("Until the end of the 1990s he trained horses.", "Into the 1990s he trained horses."),
    ("He stayed from the beginning of the 2000s.", "He stayed from the 2000s."),
    ("At the turn of the 20th century he left.", "At the turn of the 20th century he left."),
    # a comma the subject kept after its phrase went ("Grechko, along with ... established")
    ("He, established an association in the 1980s.", "He established an association in the 1980s."),
    ("He, however, moved.", "He, however, moved."),
    ('He, dubbed "ten of hearts" by his fans, was popular.', 'He, dubbed "ten of hearts" by his fans, was popular.'),
    ("He was a United States congressman from North America.", "He was a United States congressman."),
    ("She is a Welsh racing cyclist from Wales.", "She is a Welsh racing cyclist."),
    ('He moved millions of people ".', "He moved millions of people."),
    ("In the 1980s, he joined a team before joining a team.", "In the 1980s, he joined a team before joining another team."),
    ("He played for a team and then coached a team.", "He played for a team and then coached a team."),
    ("He was a member of an organization before becoming a member of an organization.",
     "He was a member of an organization before becoming a member of an organization."),
    ("He is a Brazilian footballer from Brazil's league.", "He is a Brazilian footballer from Brazil's league."),
    ("She is a Polish poet living away from Poland.", "She is a Polish poet living away from Poland."),
    ('He is 6\'4" and his motto was "win ".', 'He is 6\'4" and his motto was "win ".'),
    ("He played for a team in the 1990s and then moved to a team.", "He played for a team in the 1990s and then moved to a team."),
    ('I saw it in the 1990s."', 'I saw it in the 1990s."'),
    ('He said "no" to it.', 'He said "no" to it.'),
    ("He is a French painter from France.", "He is a French painter."),
    ("He is a British painter from Wales.", "He is a British painter from Wales."),
    ("He is an American painter from California.", "He is an American painter from California."),
    ("He was an American cadet from the United States Military Academy.",
     "He was an American cadet from the United States Military Academy."),
    ("By the end of the 1990s he had sold many records.", "By the end of the 1990s he had sold many records."),
    ("Prior to the start of the 2000s he left.", "Prior to the start of the 2000s he left."),
    # a state raised to the country the noun names ("from Kentucky")
    ("He was a United States congressman from the United States.", "He was a United States congressman."),
    ("She holds the World record for specials.", "She holds the world record for specials."),
    ("He is a chess Grandmaster (in the 2010s) and FIDE Trainer (in the 2010s).",
     "He is a chess Grandmaster and FIDE Trainer (in the 2010s)."),
    # the writer's sentences without a space, kept as one by the splitter; an address keeps its points
    ("He was elected to Congress (1890s).He was a farmer.", "He was elected to Congress (1890s). He was a farmer."),
    ("He wrote to john.Smith@example.com.", "He wrote to john.Smith@example.com."),
    ("He (born in the 1870s),a judoka,was a fighter with 1,000 fights.",
     "He (born in the 1870s), a judoka, was a fighter with 1,000 fights."),
    # a bracket left with small words only ("elected to an association (, now) board" of "the Women's Tennis
    # Association (WTA, now WTA Tour) board")
    ("She was elected to an association (, now) board.", "She was elected to an association board."),
    ("He played for a team (now a club) in Ohio.", "He played for a team (now a club) in Ohio."),
    # a decade without its "the" ("active during the late 20th century and 1980s" of "the 1970s and 1980s")
    ("He was active during the late 20th century and 1980s.", "He was active during the late 20th century."),
    # the comma a place left before a period at the sentence's end ("born in Ontario, in the 1850s" of "born in
    # Welland, Ontario, on August 26, 1859"); not where more follows
    ("She was born in Ontario, in the 1850s.", "She was born in Ontario in the 1850s."),
    ("He lived in England, from the 1940s.", "He lived in England from the 1940s."),
    ("He was born in Ohio, in the 1940s, and moved.", "He was born in Ohio, in the 1940s, and moved."),
])
def test_tidy_mends_what_generalization_leaves(rendered, expected):
    """What rung-by-rung replacement leaves behind reads as one writer would put it; tidy never
    drops a word that carried a fact."""
    from veil.agents.local.optimizer import tidy

    assert tidy(rendered) == expected


def test_deleting_a_sentence_takes_the_sentences_that_point_back_at_it():
    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import LocalOptimizer, Plan, analyse
    from veil.agents.local.policy import load_policy

    text = ("He co-founded the Association of Space Explorers in 1984. Membership is open to all who have flown. "
            "It meets every year. He retired in 1992.")
    task = Task(name="Georgy Grechko", label="Astronaut", original=text, doc_id="t")
    plan = Plan(analysis=analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()), load_policy(), set()))
    sentence_units = {u.sentence: i for i, u in enumerate(plan.units) if u.kind == "sentence"}
    assert [plan.units[j].sentence for j in LocalOptimizer._with_followers(plan, sentence_units[0])] == [0, 1, 2]
    assert [plan.units[j].sentence for j in LocalOptimizer._with_followers(plan, sentence_units[2])] == [2]


def test_attributes_profile_removes_stated_values_keeps_the_rest_and_certifies_nothing():
    """The local engine has no attacker that infers attributes from context: it removes the true
    values a comment states, leaves the rest as written, and says "unverified"."""
    import asyncio

    from veil.anonymizer import Anonymizer
    from veil.documents import Document
    from veil.graphs.anonymize import AnonymizeConfig

    text = ("Honestly the winters here in Zurich are brutal, but the trams run on time. I work as a software engineer "
            "at a bank and most evenings I just cook something simple and read before bed.")
    attrs = {"city_country": "Zurich, Switzerland", "occupation": "software engineer", "age": "31"}

    async def go():
        async with Anonymizer("local", config=AnonymizeConfig(profile="attributes"), db_path=None) as anon:
            return await anon.anonymize(Document(id="c1", text=text, attributes=attrs))

    r = asyncio.run(go())
    out = r.anonymized_text
    assert "Zurich" not in out and "software engineer" not in out
    assert "most evenings I just cook something simple and read before bed" in out  # nothing else deleted
    assert r.privacy_status == "unverified"
    assert any("word for word" in p for p in r.protections)


@pytest.mark.parametrize(("sentence", "ok"), [
    ("He participated.", False),          # every complement went, one edit at a time
    ("He went on.", False),
    ("He participated in several races.", True),
    ("He, as both a driver, had an influence.", False),
    ("He was both a driver and a manager.", True),
    ("Both men left the club.", True),
    # Massachusetts, then Ohio, both raised to the continent: a move to where it started is false
    ("Born in North America, he moved to North America.", False),
    ("Born in Massachusetts, he moved to Ohio in the 1810s.", True),
])
def test_edited_sentences_keep_a_complement_and_both_items(sentence, ok):
    from veil.agents.local.optimizer import sentence_ok

    assert sentence_ok(sentence, True)[0] is ok


def test_long_texts_are_parsed_in_pieces_that_keep_every_offset():
    para = ("Anna Berger was born in Lyon in 1961. She studied at Stanford University and worked in Denver. "
            "Her bakery won a prize in 1998.")
    text = "\n\n".join(f"{para} (Part {i}.)" for i in range(200))  # ~27 KB, no piece crosses a paragraph
    pieces = nlp.chunks(text, size=2_000)
    assert "".join(pieces) == text and len(pieces) > 10 and max(map(len, pieces)) <= 2_000
    doc = nlp.parse(text)
    assert doc.text == text
    starts = {s.start_char for s in doc.sents}
    assert all(text.find(f"Anna Berger was born", p) in starts for p in range(0, len(text), 5_000))
    ents = [(e.text, text[e.start_char:e.end_char]) for e in doc.ents]
    assert ents and all(a == b for a, b in ents)
    # one paragraph without breaks is cut at sentence ends
    flat = " ".join([para] * 100)
    assert "".join(nlp.chunks(flat, size=1_000)) == flat
    assert all(p.rstrip().endswith(".") for p in nlp.chunks(flat, size=1_000)[:-1])


def test_a_sentence_that_refers_back_to_a_deleted_one_goes_with_it():
    """"The Rockies went on to win the game" once the sentence that introduced the game went
    (a blind reader's ANTECEDENT complaint); a sentence that says something of its own stays."""
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import LocalOptimizer, Plan, analyse

    text = ("He pitched for the Rockies. In 2009 he started a game that went to extra innings. "
            "The Rockies went on to win the game, 9–5. He retired in 2012.")
    task = Task(original=text, doc_id="d", name="Jay Smith")
    a = analyse(text, task, GeneralizeContext(pseudonyms=PseudonymTable(), doc_id="d"), load_policy(), set())
    sentence = {u.sentence: k for k, u in enumerate(a.units) if u.kind == "sentence"}
    followers = LocalOptimizer._with_followers(Plan(analysis=a), sentence[1])
    assert followers == [sentence[1], sentence[2]]
    assert LocalOptimizer._with_followers(Plan(analysis=a), sentence[2]) == [sentence[2]]


def test_no_option_adds_a_word_of_the_label():
    """The conservatory of a "Classical Music Artist" is not "a music school": the label's words
    are never added where the text did not say them (the checker counts them as injections)."""
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import analyse

    text = "His father was professor of piano at the Zurich Conservatoire."
    ctx = GeneralizeContext(pseudonyms=PseudonymTable(), doc_id="d")
    units = analyse(text, Task(original=text, doc_id="d", label="Classical Music Artist"), ctx, load_policy(), set()).units
    options = [o for u in units if u.kind == "span" and "Conservatoire" in u.text for o in u.options]
    assert options and not any("music" in o for o in options), options
    units = analyse(text, Task(original=text, doc_id="d", label="Pianist"), ctx, load_policy(), set()).units
    assert any("a music school" in u.options for u in units if u.kind == "span"), [u.options for u in units]


def _span_units(text: str, name: str) -> list[tuple[str, list[str]]]:
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import analyse

    task = Task(original=text, doc_id="d", name=name)
    a = analyse(text, task, GeneralizeContext(pseudonyms=PseudonymTable(), doc_id="d"), load_policy(), set())
    return [(u.text, list(u.options)) for u in a.units if u.kind == "span"]


def _span_options(text: str, name: str) -> dict[str, list[str]]:
    return dict(_span_units(text, name))


def test_words_a_wider_rung_would_make_false_get_no_rung():
    """A nationality in a rank ("the first Dutch professional player" is not "the first European
    one"), a nationality naming the country an office serves ("British Ambassador": at most
    removed) and a gendered category ("the women's team" is no "people's team") get no rung."""
    opts = _span_options("Tom Hall was a baseball player. He was the first Dutch professional baseball player. In "
                         "1940 he was sent to Washington as British Ambassador. She played for the women's team and "
                         "won the Girls' division. He was a Japanese chef.", "Tom Hall")
    assert opts.get("Dutch", []) == []
    assert opts["British"] == [""]
    assert opts.get("women", []) == [] and opts.get("Girls", []) == []
    assert opts["Japanese"] == ["Asian"]  # (elsewhere a nationality widens as before)
    # a nationality as the ranked noun, a national rank, a national team: "the first European to reach a
    # final", "the European No. 1" and "the Oceanian squad" were outputs
    opts = _span_options("Tom Hall is a tennis player. At the Open he was the first Portuguese to reach a final. He is "
                         "the current Greek No. 1. She qualified for the Australian squad in 2008.", "Tom Hall")
    assert opts.get("Portuguese", []) == [] and opts.get("Greek", []) == [], opts
    assert opts["Australian"] == [""], opts
    # a title said of a person names its holder ("her parent is a chess title" was an output)
    units = _span_units("Anna Sty is a chess player. Her father Viacheslav is an International Master and a trainer. She holds the "
                        "title of International Master.", "Anna Sty")
    assert [o for t, o in units if t == "International Master"] == [["a titled chess player"], ["a chess title"]], units
    # (a rung that names a holder stays one: "He is a multiple-time WMC World Champion" was an output)
    opts = _span_options("Tom Hall is a kickboxer. He is a 5 time WMC World Champion and a 3 time Lumpinee Stadium "
                         "Champion.", "Tom Hall")
    assert opts["WMC World Champion"][:1] == ["a world champion"], opts
    # the country an ambassador is sent to is the office's scope: no continent has one ("the United States
    # Ambassador to Asia" was an output); a place elsewhere widens to its continent
    opts = _span_options("Tom Hall was a diplomat. He was the Ambassador to India. He was born in Bahrain.", "Tom Hall")
    assert not any("Asia" in o for o in opts.get("India", [])), opts
    assert any("Asia" in o for o in opts["Bahrain"]), opts
    # a rung the sentence already says is no rung, nor any wider one ("a United States congressman from the
    # United States" was an output): the phrase goes
    opts = _span_options("John Young was a politician. He was a United States congressman from Kentucky. He was "
                         "born in Paris, France.", "John Young")
    assert opts["Paris, France"][:1] == ["France"], opts
    out = anonymize(build(), "John Young was a politician. He was a United States congressman from Kentucky and New "
                             "Mexican politician and lawyer. He won.", name="John Young")
    assert "He was a United States congressman." in out and "Kentucky" not in out, out


def test_a_relative_clause_left_without_what_followed_its_verb_fails():
    from veil.agents.local.optimizer import _bared_clause

    original = "He is a footballer who played for Hartlepool United."
    assert _bared_clause("He is a footballer who played.", original)
    assert not _bared_clause("He is a player who retired.", "He is a player who retired.")
    assert not _bared_clause("He is a footballer who played for a team.", original)
    # a participle left before its "and" ("He was born and was Chief Engineer" was an output)
    original = "He was born in Orton Longueville (then in Huntingdonshire) and was Chief Engineer of the railway."
    assert _bared_clause("He was born and was Chief Engineer of the railway.", original)
    assert not _bared_clause("He was born in England and was Chief Engineer of the railway.", original)
    assert not _bared_clause("He was born and raised in England.", "He was born and raised in Leeds.")


def test_a_connective_after_a_deleted_sentence_goes():
    """"However, he remained involved." answered a sentence that is gone: the connective goes,
    the statement stays (and it stays after a sentence that is still there)."""
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse

    text = "He was a chef. He lost his last battle to a rival. However, he remained involved. Also, he cooked."
    task = Task(original=text, doc_id="d", name=None)
    a = analyse(text, task, GeneralizeContext(pseudonyms=PseudonymTable(), doc_id="d"), load_policy(), set())
    plan = Plan(analysis=a)
    second = a.sentence_unit(1)
    assert plan.render({second: ""}) == "He was a chef. He remained involved. Also, he cooked."
    assert plan.render({}) == text


def test_a_title_before_a_name_makes_a_person():
    """"Prince Alexey Orlov" (an organisation to the NER) became "an organization", "General Bertrand"
    a name of unknown kind whose phrase went: a rank or a title of nobility says it is a person; a
    hall named after one stays a hall."""
    opts = _span_options("Urbain Dubois was a chef. He served as a chef for General Bertrand. He later worked for "
                         "Prince Alexey Orlov. He cooked at the Prince Albert Hall.", "Urbain Dubois")
    assert re.fullmatch(r"Person [A-Z]+", opts["General Bertrand"][0]), opts
    assert re.fullmatch(r"Person [A-Z]+", opts["Prince Alexey Orlov"][0]), opts
    assert "a hall" in opts["Prince Albert Hall"], opts
    # a company or a work named with a title stays what it is ("He worked for Person B" would invent a person)
    opts = _span_options("Tom Hall was an engineer. He worked for General Electric. He listened to King Crimson.",
                         "Tom Hall")
    assert not any(re.fullmatch(r"Person [A-Z]+", o) for o in opts.get("General Electric", [])), opts
    from veil.agents.literal import POSTNOMINALS

    assert POSTNOMINALS.match(", DSc, MA (1905").group(0) == ", DSc, MA" and not POSTNOMINALS.match(", MA 02139")


def test_a_move_keeps_its_border():
    """A region alone at a move's end says the move crossed its border ("He returned to Germany" of
    "returned to Reutlingen" from Stuttgart, "returned to the United States" of New Jersey were outputs):
    every rung there is the place's kind in a region."""
    opts = _span_options("Tom Hall was a footballer. He returned to Reutlingen in 2008. In 2001, he moved from "
                         "Segbwema to New Jersey.", "Tom Hall")
    assert opts["Reutlingen"][0] == "a city in Germany", opts
    assert opts["Segbwema"][0] == "a city in Sierra Leone", opts
    assert opts["New Jersey"] and all(o.startswith("a state in ") for o in opts["New Jersey"]), opts
    # (the parse may hang "to" on "back": "he moved back to the United States" of New Mexico was an output)
    opts = _span_options("Chip Woolley is a horse trainer. He grew up in Dalhart, Texas. At age twenty he moved back to "
                         "New Mexico to pursue a career.", "Chip Woolley")
    assert opts["New Mexico"] and all(o.startswith("a state in ") for o in opts["New Mexico"]), opts


def test_a_list_the_edits_left_without_its_and_fails():
    """"He was an American stand-up comedian, director, producer, writer." was an output (of "..., writer, singer and
    voice artist"): the writer's list had its "and". A writer's own list without one stays as written."""
    from veil.agents.local.optimizer import _list_lost_its_and

    original = "He was an American stand-up comedian, actor, director, producer, writer, singer and voice artist."
    assert _list_lost_its_and("He was an American stand-up comedian, director, producer, writer.", original)
    assert not _list_lost_its_and("He was an American stand-up comedian, director, producer and voice artist.", original)
    own = "He is a comedian, producer, writer, director."
    assert not _list_lost_its_and(own, own)
    # (the parse may start the list at another item than the writer's: record 118 of DB-bio)
    original = ("Robin McLaurin Williams (July 21, 1951 – August 11, 2014) was an American stand-up comedian, actor, "
                "director, producer, writer, singer and voice artist.")
    assert _list_lost_its_and("He was an American stand-up comedian, actor, director, producer, writer.", original)
    # two items glued ("He is an attorney politician." of "an American attorney, diplomat and Democratic Party politician")
    original = "Tom Perriello (born October 9, 1974) is an American attorney, diplomat and Democratic Party politician."
    assert _list_lost_its_and("He is an attorney politician.", original)
    assert not _list_lost_its_and("He is an attorney and politician.", original)
    # two items left with a comma alone ("He is a comedian, writer." was an output)
    original = "Dylan Moran (born 3 November 1971) is an Irish comedian, writer, actor and filmmaker."
    assert _list_lost_its_and("He is a comedian, writer.", original)
    assert not _list_lost_its_and("He is a comedian and writer.", original)
    assert not _list_lost_its_and("He is a comedian, writer and actor.", original)
    assert not _list_lost_its_and("He played for Leeds, Chelsea.", "He played for Leeds, Chelsea.")
    # two items left with the comma of a longer list ("He was a table tennis player, and author." was an output)
    original = "Victor Barna was a Hungarian table tennis player, coach, and author."
    assert _list_lost_its_and("He was a table tennis player, and author.", original)
    assert not _list_lost_its_and("He was a table tennis player, coach, and author.", original)
    assert not _list_lost_its_and("He won the race, and later retired.", "He won the race, and later retired.")
    # a list whose parse made its first item a modifier of the second ("He is a counsellor, stand-up comic." was an
    # output): the renderer gives it its "and" back (the parse gave no unit that could); what only looks like one
    # - a place and its country, an appositive, a participle - keeps its comma
    from veil.agents.local.optimizer import _list_with_its_and
    original = "David Granirer is a counsellor, stand-up comic, the author of a book, and the founder of a charity."
    assert _list_with_its_and("He is a counsellor, stand-up comic.", original) == "He is a counsellor and stand-up comic."
    assert _list_with_its_and("He is a counsellor, stand-up comic, and the founder of a charity.", original) == \
        "He is a counsellor, stand-up comic, and the founder of a charity."
    for rendered, original in [
            ("He moved to Paris, France.", "He moved to Paris, France, and to Rome."),
            ("He played for the club, his hometown team.", "He played for the club, his hometown team, and later for Italy."),
            ("She studied the viola, her favourite instrument.", "She studied the viola, her favourite instrument, and the piano."),
            ("He retired, aged sixty.", "He retired, aged sixty, and moved to Florida."),
            ("She was a lawyer, summa cum laude.", "She was a lawyer, summa cum laude, and a judge."),
            ("He was a writer, born in Paris.", "He was a writer, born in Paris, and a painter.")]:
        assert _list_with_its_and(rendered, original) == rendered


@pytest.mark.parametrize("rendered, original, lost", [
    ("Son of a photographer, he was exposed at an early age.",
     "Son of photographer Glen Fishback, he was exposed to art photography at an early age as his friends included X.", True),
    ("Son of a photographer, he was exposed to photography at an early age.",
     "Son of photographer Glen Fishback, he was exposed to art photography at an early age as his friends included X.", False),
    ("As head, he has led a country.", "As head of his own architecture firm, Disch has led Germany as the solar pioneer.", True),
    ("As head of his own firm, he has led a country.", "As head of his own architecture firm, Disch has led Germany.", False),
    ("He first went in the 1930s with a goal of documenting ruins.", "Nash first went to Italy in 1936 with a goal of documenting ruins.", True),
    ("He went to a country in Europe in the 1930s with a goal.", "Nash first went to Italy in 1936 with a goal of documenting ruins.", True),
    ("He was one.", "He was one of the 47 representatives who voted against it.", True),
    ("He was one of the strongest players but never qualified.",
     "He was one of the strongest players but never qualified for the Candidates Tournament.", True),
    ("He was an unsuccessful candidate in the 1870s to a government body.",
     "He was an unsuccessful candidate for reelection in 1874 to the Forty-fourth Congress.", True),
    ("He is a member of the team, and is coached.", "He is a member of the team, and is coached and trained by Alejandro Maldonado.", True),
    ("He was one of the representatives who voted against it.", "He was one of the 47 representatives who voted against it.", False),
    # a word the writer left without one stays so
    ("He is a member.", "He is a member.", False),
    ("He went home in the 1990s.", "He went home in 1994.", False),
    # a rank without where ("who was ranked by a federation." was an output)
    ("She is a player, who was ranked by a federation.",
     "She is a player, who was ranked among the top ten athletes in her sport by the International Table Tennis "
     "Federation.", True),
    ("She was ranked in the top ten.", "She was ranked in the top ten in the world.", False),
    ("He started the season, combining a motor racing series with another one.",
     "He started the 1971 season, combining the Formula 1 Championship with the Spanish Touring Car Championships.", False),
    # or on the verb's object ("combining a motor racing series." was an output)
    ("He started the season, combining a motor racing series.",
     "He started the 1971 season, combining the Formula 1 Championship with the Spanish Touring Car Championships.", True),
    # wherever the parse hung the phrase ("his application of paint results." was an output)
    ("His application of paint results.", "His application of paint results in a consistently rich surface.", True),
    ("His application of paint results in a surface.", "His application of paint results in a consistently rich surface.",
     False),
    # ("he became a figure", "He progressed when he entered", "he completed a switch." were outputs)
    ("Later, he became a figure during the late 20th century.",
     "Later, he became a common figure at Formula One events during the 1970s and 1980s.", True),
    ("He progressed when he entered the series.", "He progressed to car racing when he entered the Formula Ford series.", True),
    ("At the end of the year, he completed a switch.", "At the end of the year, Popescu completed a switch to JEF United.", True),
    ("He was a key figure.", "He was a key figure.", False),
])
def test_a_word_keeps_the_phrase_that_completes_it(rendered, original, lost):
    """"he was exposed at an early age", "As head, Person AQ, he has led a country", "with a goal." were outputs:
    the edits took the prepositional phrase the word needs (the lexicon's ``complements``)."""
    from veil.agents.local.optimizer import _lost_complement

    assert _lost_complement(rendered, original) is lost


@pytest.mark.parametrize("rendered, original, lost", [
    # a range's start left without its end
    ("His assignments varied from undersea to aerial photography and from people while working abroad.",
     "His assignments varied from undersea to aerial photography and from people to complex science subjects "
     "while working in over 75 countries.", True),
    ("His assignments varied from undersea to aerial photography.",
     "His assignments varied from undersea to aerial photography and from people to complex science subjects.", False),
    ("He moved from a city in Europe to a country in Asia.", "He moved from Lyon to Japan.", False),
    # a judging adverb whose sentence lost its clause
    ("Unfortunately, he entered the tennis scene.",
     "Unfortunately, he entered the tennis scene after the GDR had decided to promote only Olympic sports.", True),
    ("Unfortunately, he entered the tennis scene in the 1970s.",
     "Unfortunately, he entered the tennis scene in 1974.", False),
    ("Sadly, he died in the 1990s.", "Sadly, he died on 12 March 1990 in New York City.", False),
    ("He entered the tennis scene.", "He entered the tennis scene after the GDR had decided to promote only Olympic "
     "sports.", False),
])
def test_an_edit_keeps_what_gives_a_sentence_its_point(rendered, original, lost):
    from veil.agents.local.optimizer import _lost_its_point

    assert _lost_its_point(rendered, original) is lost


def test_a_weekday_after_a_place_is_part_of_a_name():
    """"He wrote himself into the club's folklore by scoring Wednesday." was an output: the NER's place
    "Sheffield" went with its phrase and left the name's second word."""
    spans = {s.text for s in find_spans("He scored in the final game against Sheffield Wednesday, saving the club.")}
    assert "Sheffield Wednesday" in spans and "Sheffield" not in spans


def test_a_score_is_no_count():
    """"posting a 2–a couple of record" was an output: the number after the dash of "a 2–2 record" was
    read as a count of the noun after it."""
    assert not [s for s in find_spans("He played in 15 games, posting a 2–2 record.") if s.text == "2"]


def test_a_body_named_for_an_award_or_a_person_reads_as_the_body():
    """"He is currently Chairman for the award." (of "the Antonin Carême Medal Trustees") and "Person AQ" (of "his
    own firm, Rolf Disch Solar Architecture") were outputs: the last word says what the name is."""
    found = {s.text: s for s in find_spans("He is Chairman for the prestigious Antonin Carême Medal Trustees. He joined "
                                           "his brother's firm, Harry Weese Associates, in 1957.")}
    assert found["Antonin Carême Medal Trustees"].type == "ORG"
    assert found["Antonin Carême Medal Trustees"].meta["ladder"][0] == "a board of trustees"
    assert found["Harry Weese Associates"].type == "ORG"
    assert found["Harry Weese Associates"].meta["ladder"][0] == "a firm"
    assert {(s.text, s.type) for s in find_spans("He won the Nobel Prize in Physics.")} >= {("Nobel Prize in Physics", "AWARD")}


def test_a_sex_before_its_noun_goes_rather_than_becoming_person():
    """"In the 1970s, she became the first person photojournalist." was an output (of "the first woman
    photojournalist"): before the noun it describes, the word goes; as a noun it is "person"."""
    opts = [u for u in _span_units("In 1976 she became a woman photojournalist on the staff. She was a "
                                   "woman of rare talent.", "Mary Lou Foy") if u[0] == "woman"]
    assert sorted(o for _, o in opts) == [[""], ["person"]], opts


def test_a_sex_under_a_rank_keeps_its_word():
    """"He was the only child of Person EW." was an output of "the only son of ...": false where he had
    sisters; "the first photojournalist" of "the first woman photojournalist" is false too."""
    opts = _span_units("In 1976 she became the first black woman photojournalist on the staff. She was the only woman "
                       "in the room. She was the eldest daughter of a miner. Not only her paintings sold.", "Mary Lou Foy")
    assert ["their"] in [o for w, o in opts if w == "her"], opts  # (a pronoun is no rank's noun)
    sexed = [o for w, o in opts if re.search(r"\b(?:woman|daughter)\b", w)]
    assert all(o == [] for o in sexed), opts
    # (and a sex with no rank before it still generalizes)
    assert ["child"] in [o for w, o in _span_units("She was a daughter of a miner.", "Mary Lou Foy") if w == "daughter"]



def test_a_direction_and_a_province_go_with_their_place():
    """"based in central North America" (of "central Louisiana") and "in British Columbia, BC" (of "Vancouver, BC")
    were outputs: the direction is within the place, and "BC" is the province the city is in."""
    found = {s.text: s for s in find_spans("He represented the district based in central Louisiana. He lives in Vancouver, BC.")}
    assert found["central Louisiana"].type == "LOCATION" and found["central Louisiana"].meta["admin1"] == "Louisiana"
    assert found["Vancouver, BC"].meta["admin1"] == "British Columbia"


def test_a_given_name_after_a_comma_is_no_region():
    """"His designs have been worn by ..., a city Beckham" was an output: "Estelle, Victoria Beckham" was read as
    Estelle in the state of Victoria."""
    found = {s.text: s.type for s in find_spans("His designs have been worn by Estelle, Victoria Beckham and Mos Def. "
                                                "He lived in Melbourne, Victoria.")}
    assert found.get("Victoria Beckham") == "PERSON" and "Estelle, Victoria" not in found
    assert found.get("Melbourne, Victoria") == "LOCATION"


def test_parses_asked_for_at_once_are_each_their_own_and_as_parsed_alone():
    """Parses other threads ask for while the pipeline is busy go in one spaCy pipe (group commit):
    each thread gets the parse of its own text, the same as a call of its own gives."""
    import threading

    texts = [f"In {1900 + i} he moved to Ohio, where he painted portraits of {i} farmers." for i in range(24)]
    got: dict[str, object] = {}
    threads = [threading.Thread(target=lambda t=t: got.__setitem__(t, nlp._parse(t, True))) for t in texts]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    alone = nlp.nlp()
    for t in texts:
        ref = alone(t, disable=["ner", "lemmatizer"])
        assert got[t].text == t
        assert [(x.tag_, x.dep_, x.head.i) for x in got[t]] == [(x.tag_, x.dep_, x.head.i) for x in ref]


def test_a_unique_claim_goes_with_its_sentence_where_another_sentence_says_the_label(engine):
    """A ranking claim takes its sentence even where the sentence says the label, when another
    sentence says it too ("In doing so, they became only the fifth pair in tennis history." stayed
    for a tennis player, its "to complete a Career Grand Slam" cut); "the oldest ever player to ..."
    is a claim though the parse hangs "the" on the superlative."""
    text = ("Roberta Vinci is an Italian tennis player. At 33, she is also the oldest ever player to make her first "
            "appearance in the Top 10. In 2012 she won the French Open with Sara Errani. In doing so, they became "
            "only the fifth pair in tennis history to complete a Career Grand Slam. Vinci won 10 titles.")
    task = Task(original=text, doc_id="d", name="Roberta Vinci", label="Tennis Player")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Roberta Vinci", label="Tennis Player")]))
    out = asyncio.run(engine.optimizer.optimize(text, task, "privacy", PrivacyResult(score=1, k=10),
                                                UtilityResult(score=1.0), [], batch=batch)).text
    assert "pair" not in out and "oldest" not in out and "tennis player" in out, out


@pytest.mark.parametrize("text", [
    "He never played for the national team again.",  # (its loss under a negation is false)
    "The album includes six previously unreleased songs.",  # (inside a noun phrase)
    "He joined a similarly named club.",
    "He paid too little attention to defence.",  # (a degree)
])
def test_an_adverb_whose_loss_is_false_is_no_unit(text):
    assert "adverb" not in units_of(text), units_of(text)


def test_a_month_is_no_given_name_and_a_ranked_claim_keeps_its_phrases(engine):
    """June and August are given names too: "In June" stays a date; a phrase that lists persons, or
    the year of a season, stays in a sentence that ranks ("He became the first player" alone is false)."""
    assert [s.type for s in find_spans("In June, he signed for Chelsea.") if s.text == "June"] == []
    out = anonymize(engine, "Tom Ray is an American tennis player. He became, alongside Todd Woodbridge and Mark "
                            "Woodforde, the first player to win all four majors. He was the leading scorer in the 2009 "
                            "season. He won and his team won.", name="Tom Ray")
    assert "He became the first player" not in out and "He was the leading scorer." not in out, out
    # (one of many stays one of many without the list: "one of the best players, alongside A, B and C")
    out = anonymize(engine, "Ben Kay is a British comedian. He was one of the best doubles players, alongside Mark "
                            "Woodforde, Todd Woodbridge and Paul Haarhuis. He won and his team won.", name="Ben Kay")
    assert "He was one of the best doubles players." in out, out
    # the subject's own noun is no verb: "In Ireland, she paintings are" would be what a pronoun there wrote
    out = anonymize(engine, "Pauline Bewick is an Irish artist. In Ireland, Bewick paintings are widely collected. "
                            "She won and her team won.", name="Pauline Bewick")
    assert "she paintings" not in out.lower(), out


def test_an_adverb_that_points_back_goes_after_a_deletion_before_it(engine):
    """"She is also a player", "he was also elected twice", "He instead decided" were outputs
    whose antecedent the edits had removed: a referential adverb after a deletion in its sentence
    or the two before goes (its loss is true); with nothing removed before it, it stays."""
    opt = engine.optimizer
    text = ("Lang is a German cyclist. In 2011, he won a stage of the Tour de France for Omega Pharma. "
            "He also won the prize for the best climber. He, too, rode for Omega Pharma.")
    task = Task(original=text, doc_id="adv", name="Sebastian Lang", label="Cyclist")
    batch = asyncio.run(engine.prepare([Document(id="adv", text=text, name="Sebastian Lang", label="Cyclist")]))
    plan = opt.base_plan(task, batch)
    adverbs = [plan.units[j].text for j, u in enumerate(plan.units) if u.kind == "adverb"]
    assert adverbs == ["also", ", too,"], adverbs
    plan.choice = {}
    opt._drop_stale_adverbs(plan)
    assert plan.render() == text  # nothing removed: "also" still has what it points at
    plan.choice = {plan.analysis.sentence_unit(1): ""}
    opt._drop_stale_adverbs(plan)
    assert plan.render() == ("Lang is a German cyclist. He won the prize for the best climber. "
                             "He rode for Omega Pharma."), plan.render()
    assert all(plan.floor.get(j) == "" for j, u in enumerate(plan.units) if u.kind == "adverb")


def test_a_sentence_that_points_back_at_a_deleted_one_goes_with_it(engine):
    """"Other nominees include Person ARF." stayed after the nomination's sentence went; a sentence
    that opens with "Other", "In doing so", "It" ... goes with the sentence it points back at."""
    opt = engine.optimizer

    def planned(text, doc_id, name, label):
        """The text's base plan and its sentence units by sentence index."""
        task = Task(original=text, doc_id=doc_id, name=name, label=label)
        batch = asyncio.run(engine.prepare([Document(id=doc_id, text=text, name=name, label=label)]))
        plan = opt.base_plan(task, batch)
        return task, plan, {u.sentence: k for k, u in enumerate(plan.units) if u.kind == "sentence"}

    text = ("Ronald Turini is a Canadian pianist. In 1968 his recording of the Hindemith Sonata was nominated for a "
            "Grammy Award. Other nominees include Julian Bream. He taught piano.")
    task, plan, by_sentence = planned(text, "d", "Ronald Turini", "Pianist")
    plan.choice[by_sentence[1]] = ""
    opt._drop_orphans(plan, task)
    assert plan.choice.get(by_sentence[2]) == "" and by_sentence[3] not in plan.choice, plan.render()
    assert plan.render().startswith("He is a Canadian pianist.") and "nominees" not in plan.render(), plan.render()
    # a tail of numbers after "Nos." is its sentence's, not one of its own ("6, 171, 219, 256." was left
    # behind when the splitter cut it off and the sentence went)
    text = ("Carl Osten was a Russian entomologist. He published Loew's work in the Smithsonian Miscellaneous "
            "Collections, Nos. 6, 171, 219, 256. He proposed the term chaetotaxy.")
    task, plan, by_sentence = planned(text, "d2", "Carl Osten", "Entomologist")
    assert not any(text[a:b].startswith("6,") for a, b in plan.analysis.sentences)
    plan.choice[by_sentence[1]] = ""
    opt._drop_orphans(plan, task)
    assert "171" not in plan.render() and "chaetotaxy" in plan.render(), plan.render()
    # a sentence the edits left opening with "Both", and "In the same year" ("Both started in the 1930s." of
    # "Upon their return to Turkey both started as teachers", "In the same year he finished 4th." were outputs)
    text = ("Ferhunde Erkin was a Turkish pianist. She and her brother studied in Leipzig and graduated in 1930. "
            "Upon their return to Turkey both started as teachers in 1931. In the same year she married. She played "
            "in Berlin in 1943.")
    task, plan, by_sentence = planned(text, "d3", "Ferhunde Erkin", "Pianist")
    upon = next(k for k, u in enumerate(plan.units) if u.kind != "sentence" and u.text.startswith("Upon their return"))
    plan.choice[by_sentence[1]] = plan.choice[upon] = ""
    opt._drop_orphans(plan, task)
    out = plan.render()
    assert "Both" not in out and "same year" not in out and "She played in" in out, out

    def without_sentence_1(text, doc_id, name, label):
        """The text once its second sentence is deleted and the orphans it leaves go."""
        task, plan, by_sentence = planned(text, doc_id, name, label)
        plan.choice[by_sentence[1]] = ""
        opt._drop_orphans(plan, task)
        return plan.render()

    for text, name, label, gone, kept in [
        # "Ten years later, he commanded ..." after the flight's sentence went (an output): later than nothing
        ("Alan Shepard was an American astronaut. In 1961 he became the second person to fly in space. Ten years "
         "later, he commanded the Apollo 14 mission. He retired in 1974.", "Alan Shepard", "Astronaut",
         ("years later",), "He retired in"),
        # "Stewart agrees, saying ..." agrees with what the sentence before said ("He agrees, saying" was an output)
        ("Jon Stewart is an American comedian. Critics say Stewart benefits from a double standard. Stewart agrees, "
         "saying that his show is satire. He hosted the Academy Awards.", "Jon Stewart", "Comedian",
         ("agrees",), "He hosted"),
        # "She returned to a country in Europe." and "He was discharged in the 1910s." after the sentence that took
        # them away went (outputs): back from, or out of, nothing
        ("Lucila Pascua is a Spanish basketball center. In 2013 she signed with a club in Zagreb. She returned to "
         "Spain in 2014. She won the league.", "Lucila Pascua", "Basketball player", ("returned",), "She won the league"),
        ("Charles Peake was a British diplomat. He served in the Leicestershire Regiment during the war. He was "
         "discharged in 1918. He joined the Diplomatic Service in 1922.", "Charles Peake", "Diplomat",
         ("discharged",), "Diplomatic Service"),
        # (after a fronted period too, and "After that, ...": after what the deleted sentence told)
        ("Jamie Smith is an English midfielder. In 2011 he joined a club in Scotland. In 2013, he returned to England. "
         "After that he was not ranked any more. He wrote books.", "Jamie Smith", "Soccer player",
         ("returned", "After that"), "He wrote books."),
    ]:
        out = without_sentence_1(text, f"d-{name}", name, label)
        assert not any(g in out for g in gone) and kept in out, out
    # (where the sentence before stays, so does the return, whatever went before it)
    task, plan, by_sentence = planned("Lucila Pascua is a Spanish basketball center. In 2013 she signed with a club "
                                      "in Zagreb. She won the Hungarian league there. She returned to Spain in 2014.",
                                      "d8", "Lucila Pascua", "Basketball player")
    plan.choice[by_sentence[1]] = ""
    opt._drop_orphans(plan, task)
    assert by_sentence[3] not in plan.choice and "returned" in plan.render(), plan.render()


def test_a_town_a_footballer_signs_for_is_its_team():
    """"He signed for Person AIR" was an output of "He signed for Chester" (a given name to the
    lexicon, a town to the gazetteer): after "signed for" it is the town's team."""
    opts = _span_options("Simon Marples is an English football defender. He signed for Chester in the summer of 2006.",
                         "Simon Marples")
    assert opts["Chester"] == ["a team"], opts
    # a person after other verbs stays a person
    # (a person the text names once is "someone"; named twice, a pseudonym)
    opts = _span_options("Simon Marples is an English football defender. He met Chester Brown in 2006.", "Simon Marples")
    assert opts["Chester Brown"] == ["someone"], opts
    opts = _span_options("Simon Marples is an English football defender. He met Chester Brown in 2006. Brown is "
                         "a coach.", "Simon Marples")
    assert any(o.startswith("Person ") for o in opts["Chester Brown"]), opts


def test_a_season_of_a_year_generalizes_with_its_year(engine):
    """"in the summer of the 2000s" and "A summer the 2000s refurbishment" were outputs: the season
    goes with its year."""
    out = anonymize(engine, "Tom Hall is an architect. A summer 2007 refurbishment of the room retained his drapery "
                            "design. He signed for the club in the summer of 2006 on a free transfer. In spring 1990 he "
                            "moved.", name="Tom Hall")
    assert out == ("He is an architect. A refurbishment of the room retained his drapery design. He signed for the "
                   "club in the 2000s on a free transfer. In the 1990s he moved."), out


def test_a_place_a_claim_ranges_over_is_never_widened():
    """"performed all around Asia" (of "all around Japan") and "almost every comedy club in Oceania"
    (of "in Australia") were outputs: widening the place widens the claim."""
    units = dict(_span_units("Yoko Misumi is a Japanese pianist. She has performed all around Japan. He has played at "
                             "almost every comedy club in Sydney. She lived in Kyoto.", "Yoko Misumi"))
    assert units.get("Japan", []) == [] and units.get("Sydney", []) == [], units
    assert "Japan" in units["Kyoto"], units  # (elsewhere a place widens as before)


def test_a_county_at_a_move_s_end_is_a_county():
    """"he moved to a city in North America" was an output of "moved to Stark County, Ohio"."""
    units = dict(_span_units("Tom Spink was a politician. He moved to Stark County, Ohio, in 1815. He moved to "
                             "Wooster, Ohio in 1820.", "Tom Spink"))
    assert units["Stark County, Ohio"][0] == "a county in Ohio", units
    assert units["Wooster, Ohio"][0] == "a city in Ohio", units


def test_a_name_before_its_noun_takes_its_the_with_it(engine):
    """"He made his debut in the 1960s for the series" was an output of "for the Peabody Mason Concert series":
    without the name, "the" asks which one; "a" does not."""
    out = anonymize(engine, "Ronald Turini is a Canadian pianist. Turini made his debut in 1969 for the Peabody Mason "
                            "Concert series, and returned in 1971. He played with the Louis Armstrong band. He left the "
                            "Kelly brothers.", name="Ronald Turini")
    assert "for a series" in out and "with a band" in out and "the brothers" in out, out


def test_an_organisation_in_a_school_s_slot_keeps_to_school_rungs():
    """"He was educated at an organization" was an output (of "the Georgetown University")."""
    opts = _span_options("Gregory Mangin was an American tennis player. Mangin was educated at the Georgetown "
                         "University and learnt lawn tennis.", "Gregory Mangin")
    assert opts["Georgetown University"] == ["a university", "an educational institution"], opts


def test_a_long_quotation_goes(engine):
    """A quotation of six words or more is found by a search engine, and the person with it (“criticised
    and condemned the proposals of another engineer and had offered his services uninvited” stayed); a
    short one stays."""
    out = anonymize(engine, "Tom Hall was an engineer. In 1913 he was alleged to have “criticised and condemned the "
                            "proposals of another engineer and had offered his services uninvited” – an action which saw "
                            "him expelled. Critics called him \"a pianist of uncommon ability\" in 1965. He retired.",
                    name="Tom Hall")
    assert "criticised" not in out and "uninvited" not in out, out
    assert '"a pianist of uncommon ability"' in out and out.startswith("He was an engineer."), out


def test_a_kind_the_name_says_is_the_top_of_its_ladder():
    """A university, a league, a hall of fame never climb to "an organization" or "an honor"
    ("A member of an honor", "played in an organization" were outputs): past their kind, the
    phrase goes. A lowercase phrase the NER called an organisation is no name ("continued to play
    an organization" of "minor league baseball")."""
    opts = _span_options("Tom Hall was a baseball player. He studied at Harvard University. A member of the Baseball "
                         "Hall of Fame, he continued to play minor league baseball until 1985.", "Tom Hall")
    assert opts["Harvard University"] and "an organization" not in opts["Harvard University"]
    assert opts["Baseball Hall of Fame"] and "an honor" not in opts["Baseball Hall of Fame"]
    assert "minor league baseball" not in opts


def test_a_life_brackets_second_date_is_the_death_whatever_goes_before_it(engine):
    """"(born December 18, 1878 in Funazawa village, Japan – November 28, 1941)" read "(born in the 1870s in the
    1940s)" once the loop took the birthplace with the dash: the second date says "died", and the dash is no
    part of the place's phrase."""
    text = ("Mitsuyo Maeda (born December 18, 1878 in Funazawa village, Aomori, Japan  – November 28, 1941),a "
            "Brazilian naturalized as Otávio Maeda,was a judoka. He won and his team won.")
    task = Task(original=text, doc_id="maeda", name="Mitsuyo Maeda", label="Martial Artist")
    batch = asyncio.run(engine.prepare([Document(id="maeda", text=text, name="Mitsuyo Maeda", label="Martial Artist")]))
    plan = engine.optimizer.base_plan(task, batch)
    assert "(born in the 1870s in a village, Japan – died in the 1940s)" in plan.render(), plan.render()
    place = next(k for k, u in enumerate(plan.units) if u.kind == "prepositional phrase" and u.text.startswith("in Funa"))
    plan.choice[place] = ""
    assert "(born in the 1870s – died in the 1940s)" in plan.render(), plan.render()


def test_a_kind_that_only_repeats_its_verb_is_no_rung(engine):
    """"He also competed at a competition" was an output: the loop climbed from "a championship" to its
    ladder's next rung, which says nothing the verb did not."""
    text = "Riccardo Patrese was a racing driver. He also competed at the World Sportscar Championship. He won."
    task = Task(original=text, doc_id="rp", name="Riccardo Patrese", label="Formula One Racer")
    batch = asyncio.run(engine.prepare([Document(id="rp", text=text, name="Riccardo Patrese", label="Formula One Racer")]))
    plan = engine.optimizer.base_plan(task, batch)
    unit = next(u for u in plan.units if u.kind == "span" and u.text == "World Sportscar Championship")
    assert "a championship" in unit.options and "a competition" not in unit.options, unit.options


def test_a_name_one_trains_in_a_text_about_horses_is_a_horse():
    """"trainer of an organization" (of "trainer of Seabiscuit") and "He trained Brigadier Person BAX." (of the
    horse Brigadier Gerard) were outputs; a boxer one trains stays a person."""
    opts = _span_options("James Smith was an American Thoroughbred horse trainer. He was the son of Tom Smith, trainer "
                         "of Seabiscuit. He trained Brigadier Gerard, who was only beaten once.", "James Smith")
    assert opts["Seabiscuit"] == ["a horse"] and opts["Brigadier Gerard"] == ["a horse"], opts
    # a person after a role noun stays a person, and a dressage rider's or a disc jockey's text is no racing text
    opts = _span_options("Tom Hale was an American Thoroughbred horse trainer. He trained apprentice jockey Lester "
                         "Piggott.", "Tom Hale")
    assert "a horse" not in opts.get("Lester Piggott", []), opts
    opts = _span_options("Carl Hester is a British rider who trains horses. He trained Charlotte Dujardin.", "Carl Hester")
    assert "a horse" not in opts.get("Charlotte Dujardin", []), opts
    assert check("He trained Brigadier Gerard.", "He trained a horse.").ok
    opts = _span_options("Cus D'Amato was an American boxing trainer. He trained Floyd Patterson.", "Cus D'Amato")
    assert "a horse" not in opts.get("Floyd Patterson", []), opts


def test_a_range_of_days_is_one_date():
    """"From May 3-in the 2000s, photographs of him were on display" was an output: the range's first day
    stayed as written."""
    opts = _span_options("Mai Lee is a photographer. From May 3-August 31, 2008, photographs of Mai were on display "
                         "in a museum. They were shown again on May 5-7, 2011.", "Mai Lee")
    assert opts["From May 3-August 31, 2008"][0] == "in the 2000s", opts
    assert opts["May 5-7, 2011"][0] == "the 2010s", opts
    assert not any("May" in k and k not in ("From May 3-August 31, 2008", "May 5-7, 2011") for k in opts), opts
    # an ordinal's suffix, a range across New Year, a count after the days (an IndexError was a review's find)
    opts = _span_options("The festival ran May 3rd-5th, 2008. From December 28-January 3, 2000, he toured. "
                         "On June 12-13, 2000 runners took part.", "Mai Lee")
    assert opts["From December 28-January 3, 2000"][0] == "from the 1990s to the 2000s", opts
    assert "June 12-13, 2000" not in opts, opts


def test_fragments_of_a_citation_go_whole(engine):
    """"Bis. Stettiner Entomologische Zeitung 41: Bull. Soc. Imp. Nat." was an output: pieces of a German
    bibliography the splitter cut at its abbreviations, no sentences; a heading in common words stays."""
    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse
    from veil.agents.local.policy import load_policy

    def rendered(text):
        task = Task(name="Carl Plotz", label="Entomologist", original=text, doc_id="t")
        plan = Plan(analysis=analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()),
                                     load_policy(), set()))
        engine.optimizer._drop_fragments(plan, task)
        return plan.render()

    out = rendered("Carl Plotz was an entomologist. He wrote about moths in Cameroon. Bis. Stettiner Entomologische "
                   "Zeitung 41: Bull. Soc. Imp. Nat. He died in Greifswald.")
    assert out == "Carl Plotz was an entomologist. He wrote about moths in Cameroon. He died in Greifswald.", out
    # a lowercase abbreviation is a citation's too ("Berl. ent." was an output)
    out = rendered("Carl Plotz was an entomologist. He wrote about moths. Berl. ent. He died in Greifswald.")
    assert out == "Carl Plotz was an entomologist. He wrote about moths. He died in Greifswald.", out
    text = "Carl Plotz was an entomologist. He wrote about moths. A German entomologist. He died in Greifswald."
    assert rendered(text) == text  # (a word before the point is no abbreviation)
    text = "Carl Plotz was an entomologist. Early Life. He wrote about moths."
    assert rendered(text) == text


def test_a_sentence_the_splitter_cut_keeps_its_point_when_its_second_part_goes():
    """"He trained a horse" ended an output: the splitter cut "He also trained Champions | But Why Not (no SW),
    ..." and the point went with the deleted part."""
    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse
    from veil.agents.local.policy import load_policy

    text = ("James Smith was a horse trainer. He also trained Champions But Why Not (no SW), Star Pilot (no SW) and "
            "Beaugay (multiple SW). He died in 1970.")
    task = Task(name="James Smith", label="Horse trainer", original=text, doc_id="t")
    plan = Plan(analysis=analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()),
                                 load_policy(), set()))
    assert [text[a:b] for a, b in plan.analysis.sentences][1] == "He also trained Champions"  # (the cut)
    cut, after = plan.analysis.sentence_unit(2), plan.analysis.sentence_unit(3)
    assert plan.render({cut: ""}) == "James Smith was a horse trainer. He also trained Champions. He died in 1970."
    assert plan.render({cut: "", after: ""}) == "James Smith was a horse trainer. He also trained Champions."


def test_the_last_resort_spares_the_last_sentence_that_says_the_label(engine):
    """The label needs saying once: a sentence that says it may go while other kept sentences still say its
    words ("He teaches stand-up comedy to people ..." linked a comedian's record beside a second such
    sentence); the last one that says a label word, and the text's first, stay."""
    from collections import Counter

    from veil.agents.base import Task
    from veil.agents.local.generalize import GeneralizeContext, PseudonymTable
    from veil.agents.local.optimizer import Plan, analyse
    from veil.agents.local.policy import load_policy
    from veil.agents.local.retrieval import tokenize

    def deleted(text, label, weights):
        """The sentences the last resort deletes first, when the attacker's weights are on these words."""
        task = Task(name="David Granirer", label=label, original=text, doc_id="t")
        plan = Plan(analysis=analyse(text, task, GeneralizeContext(doc_id="t", pseudonyms=PseudonymTable()),
                                     load_policy(), set()))
        opt = engine.optimizer
        live = opt._deletable_sentences(plan, set())
        pick = opt._sentences_to_delete(plan, live, Counter({t: 1.0 for w in weights for t in tokenize(w)}),
                                        set(tokenize(label)))
        return None if pick is None else [plan.units[i].sentence for i in pick]

    comedy = "He teaches stand-up comedy to patients."
    assert deleted(f"David Granirer is a counsellor and comedian. {comedy} He lives in Vancouver.", "Comedian",
                   ["patients"]) == [1]
    # the only sentence that says the label stays: the next one the attacker uses goes instead
    assert deleted(f"David Granirer is a counsellor. {comedy} He lives in Vancouver.", "Comedian",
                   ["patients", "Vancouver"]) == [2]
    assert deleted(f"David Granirer is a counsellor. {comedy} He lives in Vancouver.", "Comedian", ["patients"]) is None
    # every word of a two-word label: "The horse won" says only half of "horse trainer"
    text = "Tom Smith is a jockey. He trained horses in Ohio. The horse won the Derby."
    assert deleted(text, "Horse trainer", ["Ohio", "Derby"]) == [2]
    assert deleted(text, "Horse trainer", ["Ohio"]) is None
    # the text's first never goes
    assert deleted("David Granirer is a comedian. He lives in Vancouver.", "Comedian", ["comedian"]) is None


def test_a_list_subject_cut_to_one_item_keeps_no_plural_verb():
    """"a company in Finland have all been clients of him" was an output (of a list of eight clients): a
    subject cut to one item of the writer's list takes no plural verb; the writer's own sentence stays."""
    from veil.agents.local.optimizer import _lost_plural_subject

    original = ("British style markets have also used Wale for their brands; Adidas, Caterpillar Inc., Nokia, Martell, "
                "Slazenger, Superdrug, Sky and New Era have all been clients of Wale.")
    assert _lost_plural_subject("Style markets have used him for their brands; a company in Finland have all been "
                                "clients of him.", original)
    assert not _lost_plural_subject("Style markets have used him for their brands; companies have all been clients "
                                    "of him.", original)
    assert _lost_plural_subject("His father were teachers.", "His mother and father were teachers.")
    assert not _lost_plural_subject("His parents were teachers.", "His mother and father were teachers.")
    assert not _lost_plural_subject("Smith and Jones were partners.", "Smith and Jones were partners.")
    # a writer's own listed subject elsewhere in the sentence does not make every edit fail
    assert not _lost_plural_subject("Smith and Jones were partners, and the club were champions.",
                                    "Smith and Jones were partners, and the club were champions in 1990.")


def test_an_honour_of_the_year_is_an_award_of_many():
    """"He was awarded the Supporters Player of the year award." kept the honour's name (no NER found it);
    "named" such an honour takes its core, not "an award" ("He was named an award" is false)."""
    opts = _span_options("Stephen Turnbull is an English footballer. Whilst at the club he was awarded the 2010–11 "
                         "Supporters Player of the year award. He was named NBA Rookie of the Year in 2005.",
                         "Stephen Turnbull")
    assert opts["2010–11 Supporters Player of the year award"][-1] == "an award", opts
    assert opts["NBA Rookie of the Year"] == ["rookie of the year"], opts
    assert check("He was named NBA Rookie of the Year.", "He was named rookie of the year.").ok


@pytest.mark.parametrize("text, name, expected", [
    # a period the sentences before said already goes with its phrase ("In the 2010s" six times in one
    # output); the first stays
    ("Scott Kelly is an American astronaut. In November 2012, Kelly was selected for a year-long mission. He "
     "returned to Earth on 1 March 2016. In October 2015, he walked in space. He won and his team won.",
     "Scott Kelly", "He is an American astronaut. In the 2010s, he was selected for a year-long mission. He returned "
                    "to Earth. He walked in space."),
    # (not where the sentence ranks: a record's period bounds it)
    ("Scott Kelly is an American astronaut. In November 2012, Kelly was selected for a year-long mission. In October "
     "2015, he set the record for days in space. He won and his team won.", "Scott Kelly",
     "He is an American astronaut. In the 2010s, he was selected for a year-long mission. In the 2010s, he set the "
     "record for days in space."),
    # a second name a sentence before gave the same kind phrase: "another team" ("the head coach of a team.
    # ... the head coach of a team." was an output); one that may be the same (a name inside the other) stays
    ("Tony Resch is a lacrosse coach. He was the head coach of the Philadelphia Wings. He then became the head "
     "coach of the Philadelphia Barrage. He won and his team won.", "Tony Resch",
     "He is a lacrosse coach. He was the head coach of a team. He then became the head coach of another team."),
    ("Tony Resch is a lacrosse coach. He was drafted by the Detroit Lions. He later played for the Detroit Tigers. "
     "He won and his team won.", "Tony Resch",
     "He is a lacrosse coach. He was drafted by a sports team. He later played for another sports team."),
    # the role before a name keeps its words and takes the article: "head coach", lower-case adjectives, and a
    # verb the parse took for an adjective ("married jockey X")
    ("Tony Resch is a lacrosse coach. He also serves as assistant to head coach Bill Leahy. His daughter Sheila "
     "married jockey Alex Solis. He trained for automotive industrialist Charles Fisher. He won and his team won.",
     "Tony Resch", "He is a lacrosse coach. He also serves as assistant to a head coach. His daughter married a "
                   "jockey. He trained for an automotive industrialist."),
    # a participle before the role is no verb ("his noted a colleague" would be garbled); an acronym may be the
    # name before it: no "another" ("the NHL" of "the National Hockey League")
    ("Tom Lee is an American physicist. He worked with his noted colleague John Smith. He won and his team won.",
     "Tom Lee", "He is an American physicist. He worked with his noted colleague."),
    ("Tom Lee is a hockey player. He played in the National Hockey League. He was later an official of the NHL. He won "
     "and his team won.", "Tom Lee", "He is a hockey player. He played in a hockey league. He was later an official of a "),
    ("Tom Lee is a hockey player. He was drafted by the NY Rangers. He later played for the New York Rangers. He won "
     "and his team won.", "Tom Lee", "He is a hockey player. He was drafted by a sports team. He later played for a "
                                    "sports team."),
    # whom the subject did something with goes with "with" ("along with Person GJ"); not before "among others"
    ("Scott Kelly is an American astronaut. In 2012, Kelly was selected, along with Mikhail Korniyenko, for a "
     "mission. He has worked with Jane Doe, among others. He won and his team won.", "Scott Kelly",
     "He is an American astronaut. In the 2010s, he was selected for a mission. He has worked with Person "),
    # a year or a name that was the only thing saying which one leaves "a" ("the official suit of the football
    # team", "to produce the spy plane for an agency" were outputs); a span of time keeps "the"
    ("Ana Silva is a Portuguese fashion designer. She worked on the design of the official suit of the 2006 "
     "Portuguese football World Cup team. Her work was later used to produce the A-12 spy plane for the Central "
     "Intelligence Agency. She won and her team won.", "Ana Silva",
     "She is a Portuguese fashion designer. She worked on the design of the official suit of a Portuguese football "
     "team. Her work was later used to produce a spy plane for an agency."),
])
def test_stand_ins_read_as_one_text(engine, text, name, expected):
    out = anonymize(engine, text, name=name)
    assert out.startswith(expected), out


@pytest.mark.parametrize("text, name, expected", [
    # "was on the Board of X" is what "was" says: never "he was, until 2011" (an output)
    ("Ana Perez is an American physicist. Since 2005 Perez was on the Board of Directors of TomoTherapy "
     "Incorporated, until 2011. She won and her team won.", "Ana Perez", "was on a board"),
    # a place after "near" or "outside" is no region's ("near the United States" of "near Albany")
    ("Edward Jones was an American architect. He lived near Paris. He won and his team won.", "Edward Jones",
     "He lived near a city."),
    # the NER stopped inside a name before its year: "a law the 1960s" was an output
    ("Sam Gibbons was an American politician. He was the author of the Economic Opportunity Act of 1964, one of "
     "the key laws of the decade. He won and his team won.", "Sam Gibbons", "the author of a law of the 1960s"),
    # a remaining or a partner's "with" is what the verb says: the person stays; others go with "with"
    ("Yoko Sato is a designer. She remained with Fendi prior to returning to Rome. Projects were carried out in "
     "association with Jean Dubois. She won and her team won.", "Yoko Sato", "She remained with "),
    # a league one played is the sport ("he played a baseball league" was an output)
    ("Jim Umbricht was an American baseball player. A right-handed relief pitcher, he played Major League Baseball "
     "(MLB) between 1959 and 1963. He won and his team won.", "Jim Umbricht", "he played baseball between"),
    # the parse hung the subject in the phrase before it ("In the 2010s wore the white jersey" was an output)
    ("David Rosendo is a Spanish cyclist. In 2011 due to a strong ride in a breakaway in Stage 2 of the Vuelta "
     "Rosendo wore the white jersey for one day. He won and his team won.", "David Rosendo", " he wore the white jersey"),
])
def test_what_a_phrase_says_for_its_verb_stays(engine, text, name, expected):
    out = anonymize(engine, text, name=name)
    assert expected in out, out


def test_a_shell_noun_goes_with_the_phrase_it_summed_up(engine):
    """"The project impressed X" after the project's phrase went points at nothing: it goes; where the
    sentence before kept its phrase, or the text never pointed back, it stays."""
    def run(text, cut):
        task = Task(original=text, doc_id="d", name="Edward Jones")
        batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Edward Jones")]))
        plan = engine.optimizer.base_plan(task, batch)
        if cut:
            k = next(j for j, u in enumerate(plan.units) if u.constituent is not None and u.text.startswith("with the design"))
            plan.choice[k] = ""
        engine.optimizer._drop_dangling(plan, task)
        return plan.render()

    text = ("Edward Jones was an American architect. He began his career in 1936 with the design of the Gillionville "
            "Plantation near Albany. The project impressed the firm so much that it hired him. He won and his team won.")
    assert "The project" not in run(text, cut=True)
    assert "The project impressed the firm" in run(text, cut=False)
    other = text.replace("The project impressed the firm so much that it", "The firm")
    assert "The firm hired him." in run(other, cut=True)


def test_a_phrase_takes_the_comma_that_closes_its_own_commas_only():
    """"in the gala, a rare feat": the comma sets off what follows and stays; "at Helston, Cornwall, England,"
    closes the place's own commas and goes with it ("was born, in the 1770s" was an output)."""
    units = units_of("He was born at Helston, Cornwall, England, on 18 March 1772.")["prepositional phrase"]
    assert "at Helston, Cornwall, England," in units, units
    units = units_of("In 2010, he was selected to perform alongside a slew of international comedy veterans in the Sydney "
                     "Comedy Festival's Cracker Night gala, a rare feat considering he did not actually have a show in the "
                     "festival.")["prepositional phrase"]
    assert "in the Sydney Comedy Festival's Cracker Night gala" in units, units


@pytest.mark.parametrize("text, expected", [
    # whom the subject beat: an opponent
    ("Tom Hall is a tennis player. In 1998 he defeated Carlos Moya in the final.",
     "He is a tennis player. In the 1990s he defeated an opponent in the final."),
    ("Tom Hall is a tennis player. He reached the quarter-final by defeating Carlos Moya in the fourth round.",
     "by defeating an opponent in the fourth round"),
    # the apposition says who they are: the name goes, its commas with it
    ("Tom Hall was a writer. In 1939 he travelled to Berlin to meet Herbert von Dirksen, the German ambassador.",
     "He was a writer. In the 1930s he travelled to Germany to meet the German ambassador."),
    ("Tom Hall was a poet. She was the daughter of Carl Weber, a timber merchant and tax collector.",
     "She was the daughter of a timber merchant and tax collector."),
    # a possessive, an object of "for"
    ("Tom Hall was a horse trainer. He became Ben Jones's assistant trainer.",
     "He became someone's assistant trainer."),
    ("Tom Hall was a chef. His uncle had served as a chef for Carl Weber.",
     "His uncle had served as a chef for someone."),
    # a sentence that only says whose relative the subject was goes
    ("Tom Hall was a pianist. He studied in Vienna. His father was Carl Weber.",
     "He was a pianist. He studied in Austria."),
    ("Tom Hall was a pianist. He studied in Vienna. Hall was the son of Carl Weber by his wife, Anna Berg.",
     "He was a pianist. He studied in Austria."),
    # a source goes with its "according to"
    ("Tom Hall was a pitcher. According to Carl Weber, one of his tricks was to offer another team two players.",
     "One of his tricks was to offer another team two players."),
])
def test_a_person_named_once_becomes_what_the_sentence_says_of_them(engine, text, expected):
    """"Person AJE" read as a form no one filled in (blind reads): a person the text names once,
    with no role noun before the name, is what the sentence says of them."""
    out = anonymize(engine, text, name="Tom Hall")
    assert expected in out, out
    assert "Person" not in out, out


@pytest.mark.parametrize("text, kept", [
    # the sentence is about them: a pseudonym, never "Someone took over as manager"
    ("Tom Hall was a baseball player. In 1884 Harry Wright took over as manager.", "Person"),
    # named twice: the pseudonym says it is one person
    ("Tom Hall was a pianist. He met Carl Weber in Vienna. Weber taught him.", "Person"),
    # a title or role before the name, an "of" phrase: no "someone" there (a conjunct neither: the API test
    # of tests/test_batch.py, "photographed Person B and Person C")
    ("Tom Hall was a chef. He served as a chef for General Bertrand.", "Person"),
    ("Tom Hall was a pianist. The music of Carl Weber occupies a special place.", "Person"),
    # an attribute that is no relative's: "His coach was someone" reads as a riddle
    ("Tom Hall was a pianist. He studied in Vienna. His coach was Carl Weber.", "Person"),
    # a subject's apposition keeps its name ("In the 2000s, a photo editor, was admitted" was an output)
    ("Tom Hall was a surgeon. In 2006, Carl Weber, a photo editor, was admitted to a clinic.", "Person"),
])
def test_a_person_named_once_keeps_a_pseudonym_where_no_stand_in_reads(engine, text, kept):
    out = anonymize(engine, text, name="Tom Hall")
    assert kept in out and "someone" not in out.lower(), out


def test_a_person_another_document_names_keeps_the_batch_pseudonym(engine):
    """Two records that speak of one person say so through one pseudonym: named once in each, the
    name is no "someone" in either."""
    a = Document(id="a", text="Tom Hall was a pianist. He studied with Carl Weber in Vienna.", name="Tom Hall")
    # (the other record writes the name at a sentence's end and as a possessive)
    b = Document(id="b", text="Ann Lee was a singer. In 1990 she married Carl Weber. Carl Weber's son sang.",
                 name="Ann Lee")
    batch = asyncio.run(engine.prepare([a, b]))
    outs = []
    for d in (a, b):
        task = Task(original=d.text, doc_id=d.id, name=d.name)
        outs.append(asyncio.run(engine.optimizer.optimize(d.text, task, "privacy", PrivacyResult(score=1, k=10),
                                                          UtilityResult(score=1.0), [], batch=batch)).text)
    found = [set(re.findall(r"Person [A-Z]+", o)) for o in outs]
    assert found[0] and found[0] == found[1], outs


@pytest.mark.parametrize("text, expected", [
    ("Hank Greenberg was a baseball player. He played in Major League Baseball (MLB), primarily for the Detroit "
     "Tigers as a first baseman in the 1930s.", "He played in a baseball league, primarily for"),  # (the bracket's
    # deletion leaves the comma that sets the league apart)
    ("Tom Hall is a footballer. Hall began his career with Romanian side Universitatea Craiova, before moving to "
     "Spain.", "He began his career before moving to"),
])
def test_a_deleted_phrase_takes_the_comma_that_only_set_it_apart(engine, text, expected):
    """"He played, primarily for a sports team" was an output: with the phrase gone, the comma
    after it parts the verb from its own adverbial."""
    out = anonymize(engine, text, name=text.split(" was ")[0].split(" is ")[0])
    assert expected in out, out


def test_a_time_counted_from_a_sentence_that_went_goes_with_it(engine):
    """"Ten years later, in his late forties, he commanded the mission" was an output whose
    sentence before had gone: the count goes, and a name's "the" before its noun becomes "a"."""
    text = ("Tom Hall is an American astronaut. He studied in Ohio. His father was Carl Weber. Ten years later, at "
            "age 47, he commanded the Apollo 14 mission (1971).")
    task = Task(original=text, doc_id="d", name="Tom Hall")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Tom Hall")]))
    out = engine.optimizer.base_plan(task, batch).render()
    assert out == "He is an American astronaut. He studied in Ohio. In his late forties, he commanded a mission (in the 1970s).", out
    # with the sentence before it kept, the count stays
    text = "Tom Hall is an American astronaut. He studied in Ohio. Ten years later, he flew."
    task = Task(original=text, doc_id="e", name="Tom Hall")
    batch = asyncio.run(engine.prepare([Document(id="e", text=text, name="Tom Hall")]))
    assert "Ten years later, he flew." in engine.optimizer.base_plan(task, batch).render()


def test_a_verb_the_writer_capitalised_after_the_name_stays_a_verb(engine):
    """"Mark Millon Coached and was Director": the NER read the verb into the name ("Person EB and
    was Director" was an output); the known name ends the mention and the verb follows its pronoun."""
    out = anonymize(engine, "Mark Millon is an American lacrosse player. He played for the Boston Cannons. Mark Millon "
                            "Coached and was Director of Player Development for the Baltimore Breakers program.",
                    name="Mark Millon")
    assert "He coached and was Director" in out and "Person" not in out, out


@pytest.mark.parametrize("text, absent", [
    # no contest of the subject's: the board's doing, a beating, a testimony
    ("Tom Hall was a banker. The board ousted Carl Weber in 1990.", "opponent"),
    ("Tom Hall was a banker. He testified against Carl Weber in 1990.", "opponent"),
    # a relative's sentence that says more stays
    ("Tom Hall was a pianist. He was the son of Carl Weber and grew up in Vienna with his brothers.", "Person"),
])
def test_a_stand_in_says_nothing_the_sentence_did_not(engine, text, absent):
    out = anonymize(engine, text, name="Tom Hall")
    if absent == "Person":
        assert "grew up" in out, out
    else:
        assert absent not in out, out


def test_an_orphan_comma_goes_only_before_an_adverbial_of_the_verb():
    from veil.agents.local.optimizer import _with_orphan_comma

    def cut(sentence: str, phrase: str) -> str:
        a = sentence.index(phrase)
        _, sp, _ = _with_orphan_comma((len(phrase), Span(a, a + len(phrase), phrase, "UNIT"), ""), sentence)
        return re.sub(r"\s+,", ",", " ".join((sentence[:sp.start] + sentence[sp.end:]).split()))

    assert cut("He played in Major League Baseball, primarily for the Tigers.", "in Major League Baseball") \
        == "He played primarily for the Tigers."
    assert cut("He began his career with Craiova, before moving to Spain.", "with Craiova") \
        == "He began his career before moving to Spain."
    # a clause after the comma keeps it
    assert cut("He worked at a bank, later becoming its president.", "at a bank") == "He worked, later becoming its president."
    assert cut("He played for Ajax, then joined Barcelona.", "for Ajax") == "He played, then joined Barcelona."
    # and so does a sentence whose comma before may pair with it
    assert cut("In 1990, he played in Spain, primarily for Real.", "in Spain") == "In 1990, he played, primarily for Real."


def test_a_connective_time_needs_its_comma_after_after():
    from veil.agents.local.optimizer import _CONNECTIVE

    assert _CONNECTIVE.match("Ten years later, he flew.") and _CONNECTIVE.match("Shortly afterwards, he flew.")
    assert not _CONNECTIVE.match("Shortly after his graduation, he joined the army.")
    assert not _CONNECTIVE.match("Soon after he moved to Paris, he met her.")


def test_a_modifier_that_said_which_one_takes_its_the_along(engine):
    """"He failed to receive the party nomination." was an output ("the Democratic party nomination"
    lost its modifier): "the" asked which one; with the modifier it becomes "a"."""
    text = "Tom Hall was an American politician. In 1870, he failed to receive the Democratic party nomination."
    task = Task(original=text, doc_id="d", name="Tom Hall")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Tom Hall")]))
    plan = Plan(analysis=engine.optimizer.analysis(task, batch))
    mods = [i for i, u in enumerate(plan.units) if u.kind == "modifier" and "Democratic" in u.text]
    assert mods, [u.text for u in plan.units]
    assert "receive a party nomination." in plan.render({mods[0]: ""})


def test_a_common_modifier_or_a_rank_keeps_its_the(engine):
    text = ("Tom Hall is a Greek tennis player. He is the former Greek No. 1. He played at the small forward "
            "position.")
    task = Task(original=text, doc_id="d", name="Tom Hall")
    batch = asyncio.run(engine.prepare([Document(id="d", text=text, name="Tom Hall")]))
    plan = Plan(analysis=engine.optimizer.analysis(task, batch))
    checked = 0
    for i, u in enumerate(plan.units):
        if u.kind == "modifier" and u.text.strip() in ("former Greek", "Greek", "small"):
            checked += 1
            assert not u.text.startswith("the"), u.text
            assert "the" in plan.render({i: ""}).split("He is")[-1], plan.render({i: ""})
    assert checked, [(u.kind, u.text) for u in plan.units]


def test_a_name_after_a_fronted_phrase_the_parse_cut_is_the_subject(engine):
    """"Along with his father, James Smith trained for Maine Chance Farm": the parse made "father" the
    subject and the name its apposition ("His parent, trained for a farm." was an output)."""
    out = anonymize(engine, "James Smith was an American horse trainer. Along with his father, James Smith trained "
                            "for Maine Chance Farm.", name="James Smith")
    assert ", he trained for" in out, out


@pytest.mark.parametrize("sentence, deleted, expected", [
    # the last items went with the list's "and": it goes back before the last item that stays (DB-bio 147 and 44:
    # "She studied at a school, at an academy." and "conferred by an organization, a school." were outputs)
    ("She studied at the St Louis School of Fine Art, at the National Academy of Design, the School of the Art "
     "Institute of Chicago, at Pennsylvania Academy of Fine Arts and at the Art Students League.",
     [", the School of the Art Institute of Chicago", ", at Pennsylvania Academy of Fine Arts and at the Art Students League"],
     "She studied at the St Louis School of Fine Art and at the National Academy of Design."),
    ("Honorary doctorates have been conferred by ASU, Embry-Riddle Aeronautical University, Thunderbird School of "
     "Global Management, the University of South Carolina, Pepperdine University and Finlandia University.",
     [", Embry-Riddle Aeronautical University", ", the University of South Carolina, Pepperdine University and Finlandia University"],
     "Honorary doctorates have been conferred by ASU and Thunderbird School of Global Management."),
    ("He played for Leeds, Chelsea, Fulham and Everton in the 1990s.", [", Fulham and Everton"],
     "He played for Leeds and Chelsea in the 1990s."),
    # no list to give it back to: a fronted phrase's comma, an apposition to one noun, a clause, a kept "and"
    ("In 1990, he studied at Yale and at Harvard.", [" and at Harvard"], "In 1990, he studied at Yale."),
    ("He studied at Yale, a private university, and at Harvard.", [", and at Harvard"],
     "He studied at Yale, a private university."),
    ("He moved to Paris, where he taught French and Latin.", [" and Latin"], "He moved to Paris, where he taught French."),
    ("He played for Leeds and Chelsea, Fulham and Everton.", [", Fulham and Everton"], "He played for Leeds and Chelsea."),
    ("He thanked John and Mary Smith, a singer and songwriter, for the song.", [" and songwriter"],
     "He thanked John and Mary Smith, a singer, for the song."),
    ("He was born in Leeds, England, and raised in York.", [", and raised in York"], "He was born in Leeds, England."),
    # (nor the "and" of a list inside the last item that stays: "He married P, a divorcee and the child of P" was an
    # output of "Hall, a divorcee, the daughter of John Hoagland and Harriet Rupp, of LDS Church fame")
    ("He married Alice Cornelia (Hoagland) Hall, a divorcee, the daughter of John Aaron Hoagland (1861–1929) and "
     "Harriet Maria Louditt Rupp (1862–1949), of LDS Church fame, on 4 December 1911 in Boise, Ada, Idaho.",
     [" (1861–1929)", " and Harriet Maria Louditt Rupp (1862–1949), of LDS Church fame", " in Boise, Ada, Idaho"],
     "He married Alice Cornelia (Hoagland) Hall, a divorcee, the daughter of John Aaron Hoagland, on 4 December 1911."),
])
def test_a_lists_and_goes_back_where_its_last_items_went(sentence, deleted, expected):
    from veil.agents.local.optimizer import _and_given_back
    from veil.agents.local.units import list_marks
    sent = next(nlp.parse(sentence).sents)
    reps = [(len(d), Span(sentence.index(d), sentence.index(d) + len(d), "", "UNIT"), "") for d in deleted]
    reps += _and_given_back(reps, list_marks(sent))
    reps.sort(key=lambda x: (-x[0], x[1].type != "UNIT"))
    assert tidy(apply(sentence, [(s, r) for _, s, r in reps])) == expected


@pytest.mark.parametrize("text, present, absent", [
    # a sum before its noun reads as its count of figures ("a tens of thousands of dollars raise" was an output)
    ("Hank Greenberg was a baseball player. In 1947 he signed a contract with a $40,000 raise. He won and his team won.",
     "a five-figure raise", "$40,000"),
    # after its own article and adjective, the kind noun ("to a record a hundred thousand dollars" was an output)
    ("Hank Greenberg was a baseball player. He got a raise to a record $100,000. He won and his team won.",
     "to a record sum", "100,000"),
    # a decimal's point keeps its space ("a batting average over.300" was an output)
    ("Hank Greenberg was a baseball player. He had a batting average over .300 in eight seasons. He won and his team "
     "won.", "over .300", "over.300"),
    # a city modifying a noun after "the" is a city ("on the Detroit team" stayed)
    ("Hank Greenberg was a baseball player. He played twelve seasons in the major leagues on the Detroit team. He won "
     "and his team won.", "He played twelve seasons", "Detroit"),
])
def test_sums_decimals_and_a_citys_team(engine, text, present, absent):
    out = anonymize(engine, text, name="Hank Greenberg")
    assert present in out and absent not in out, out


def test_an_events_place_is_its_continent(engine):
    # "an international multi-sport event in India" is the 2010 Commonwealth Games to anyone who knows sport
    out = anonymize(engine, "Ross Hutchins is a tennis player. He competed for England at the 2010 Commonwealth Games "
                            "in Delhi where he won silver. He won and his team won.", name="Ross Hutchins")
    assert "multi-sport event in Asia where he won silver" in out and "India" not in out, out


def test_the_others_go_with_the_one_they_are_others_of(engine):
    # "He recorded among other labels." was an output of "He recorded for Decca among other labels."
    out = anonymize(engine, "Adrian Aeschbacher was a Swiss classical pianist. He recorded for Decca among other "
                            "labels. He won and his team won.", name="Adrian Aeschbacher")
    assert "recorded among" not in out and "Decca" not in out and out.endswith("He won and his team won."), out


def test_an_article_before_another_noun_is_no_sums(engine):
    # "He paid a man sum to fix the fence" (a review's find): only an amount's own adjectives make "a … sum"
    out = anonymize(engine, "Hank Greenberg was a farmer. He paid a man $50 to fix the fence. He won and his team won.",
                    name="Hank Greenberg")
    assert "a man sum" not in out and "fix the fence" in out, out


def test_a_clock_abbreviation_ends_no_sentence(engine):
    # "entered the store at about 9:15 p.m. In March," was an output: "p.m." read as a sentence's end
    out = anonymize(engine, "Travis Odom is a cook. Odom entered the store at about 9:15 p.m. on March 4, showed a "
                            "folding knife and left. He won and his team won.", name="Travis Odom")
    assert "p.m. in March, showed" in out, out


@pytest.mark.parametrize("text, present, absent", [
    # a form's value stands alone: a pseudonym, a kind, a placeholder, never nothing ("Full name:" and
    # "Position applied for:" were outputs), and its short line is no stub to delete
    ("Full name: Jonathan Perkins\nPosition applied for: Junior Marine Surveyor\nDepartment: Accounts Payable\n"
     "He was born on 14/03/1962 in Leeds.",
     ["Full name: Person A", "Position applied for: [redacted]", "Department: [redacted]"], ["Perkins", "Surveyor"]),
    # two dates that bound one period are one span ("the 2020s – in the 2020s" was an output)
    ("Manager: Danielle Osei\nReview period: Oct 1, 2023 – Sep 30, 2024\nOverall rating: 4", ["Review period: the "],
     ["– in the", "Osei", "2023"]),
    ("She worked there from 3 May 2001 to 9 June 2003. She liked it.", ["in the 2000s"], ["to the", "May"]),
    # the second field of a line after a gap keeps its value, and the gap ("Employee ID:" was emptied)
    ("Employee: Marcus Delacroix-Webb    Employee ID: 00483127\nManager: Danielle Osei",
     ["Employee: Person A    Employee ID: [id]"], ["00483127"]),
    # an all-caps heading before a dash keeps its value's kind ("EMPLOYMENT APPLICATION –" was an output)
    ("EMPLOYMENT APPLICATION – Halvorsen Marine Services Ltd.\nPosition applied for: Surveyor",
     ["EMPLOYMENT APPLICATION – a company"], ["Halvorsen"]),
    # a relative's or a pet's name after "my wife", "our dog" goes, the relative stays
    ("I will work on it – my wife Tasha would agree! Our dog Biscuit barked at the mail carrier.",
     ["my wife would agree", "Our dog barked"], ["Tasha", "Biscuit", "Person"]),
    # a bare role noun before a name takes the name's article ("with vendor an organization" was an output)
    ("He will lead the compressor replacement project with vendor Linde.", ["with a vendor."], ["Linde", "organization"]),
    # an acronym's number is an id under its label, and the acronym no organisation ("PPSN: [id] no.:" was an output)
    ("PPSN: 7823456TA    GMS no.: 1093284\nMobile: 087 614 2290", ["GMS no.: [id]"], ["1093284"]),
    # a greeting in Māori is no carmaker ("Ora koutou" was an output), a financial year no id ("Our [id] return"),
    # a phone's extension is the phone's ("[phone]. 214"), a plan's year no duration, a numbered list keeps its numbers
    ("Kia ora koutou, I'm Hemi Walker and I live in Porirua.\nOur FY2023-24 return is attached.\nPlease call me on "
     "604-463-2281 ext. 214 before March 14.\nGoals for FY2025\n1. Complete the certification.\n2. Lead the project.",
     ["Kia ora koutou", "Our return is attached", "call me on [phone] before", "Goals for the 2020s\n1. Complete",
      "\n2. Lead"], ["[id]", "214", "Walker"]),
    # the first of two ways to reach someone keeps its placeholder ("Please contact me or [phone]" was an output)
    ("Please contact me at g.whitcombe@sd42.ca or 604-463-2281 to book a conference.",
     ["contact me at [email] or [phone] to book"], ["whitcombe"]),
    # a numbered line's head keeps its person ("Room 4 – Mrs Nora Quigley, 88." went, and its notes read as
    # the room above's); a form's value the parser split from its label stays ("GP:" was emptied)
    ("Room 6 – Mr Patrick Halloran, DOB 12/05/1941, MRN SBH-0093317\nGP: Dr Aoife Brennan, Monkstown Medical "
     "Centre, (01) 284 7719\n\nRoom 4 – Mrs Nora Quigley, 88. Comfortable, no changes overnight.",
     ["Room 6 – Person A, DOB the 1940s, MRN [id]", "GP: Person B", "Room 4 – Person C, over 80. Comfortable"],
     ["Halloran", "Quigley", "Brennan", "7719", "–,"]),
    # a list whose items name nothing is the writer's content, not an appendix ("Outcome at discharge" and its
    # items went whole); an acronym of the clinic is no organisation ("Progressed from passive ROM" went)
    ("Treatment: 14 sessions. Progressed from passive ROM to weighted strengthening.\n\nOutcome at discharge "
     "(30/08/2024):\n• Shoulder flexion 165° (from 95°)\n• Pain 1/10 at rest\n\nDNAR in place.",
     ["passive ROM", "• Shoulder flexion 165°", "• Pain 1/10 at rest", "DNAR in place."], ["2024", "organization"]),
    # a street's "Dr." before "It" ends the sentence ("I left work It had been raining" was an output); a
    # possessive that opens a label is no person ("Someone's license"), nor is "Madam" ("Dear Sir,"); a short
    # bracket after a field's value keeps the field; "ref." stands before its number
    ("Dear Sir or Madam,\n\nDriver's license: W143-6628-1197 (IL)\n\nI left work at Kessler & Royce LLP, 233 S. "
     "Wacker Dr. It had been raining.\n\n- Oven door glass (quote from Harrogate Appliance Repairs, ref. "
     "HAR/22931): £89.50\n- Removal of the sofa: £60.00",
     ["Dear Sir or Madam,", "Driver's license: [id] (IL)", "at an organization. It had been raining.",
      "(quote from a repair business, ref. [id]):"], ["Someone", "W143", "Harrogate"]),
    # a name called out to at a line's start, a pet's name after its comma, a nickname in brackets said again,
    # a sign-off that shortens a given name: each is the person's (or the pet's)
    ("Patient: Mrs Deborah (Deb) Kowalczyk\n\nDeb reports she walks her greyhound, Dolly, twice daily. Paddy "
     "was a ferry engineer with Irish Ferries.\n\nAdaeze, I know the last months were hard.\n\nBest,\nFiona "
     "McAllister\n\nThanks again,\nFi",
     ["reports she walks her greyhound twice daily"], ["Deb ", "Dolly", "Irish Ferries", "Adaeze", "\nFi"]),
    # a chat's line keeps its time and its speaker, a pseudonym: a line whose first message went keeps them for
    # the rest ("[Sat 10:07]" and "She's still cross" stood on lines of their own, the second under the line
    # above's speaker); "Mum" is no one's name; a bare number as a subject takes no range ("dozens of looks")
    ("[Sat 10:02] Karen Doyle: ok so Mum's 70th is Sat 14 June.\n[Sat 10:05] Dave: Legend. deposit?\n"
     "[Sat 10:07] Mel 🌸: Done ✅ Also who's telling Aunty Rewa? She's still cross about Christmas\n"
     "[Sat 10:15] Karen Doyle: Good call. She's at 42 Ngatai Road.\n[Sat 10:21] Tama Doyle: Love you Maureen "
     "Doyle, 70 looks good on you",
     ["[Sat 10:02] Person A: ok so Mum's 70th is", "\n[Sat 10:05] Person B: Legend. deposit?\n",
      " 🌸: She's still cross about Christmas\n[Sat 10:15] Person A: Good call. She's at [address]."],
     ["Karen", "Dave", "Mel", "Rewa", "Doyle", "dozens", "[Sat 10:07]\n"]),
    # a workplace chat: the speaker's own line in bold keeps a pseudonym, and stays for the rest of a message whose
    # first sentence went; a mention is a person, surname and all; a channel's name is one id ("#-warehouse")
    ("#ops-denver-warehouse  |  Thursday, October 17, 2024\n\n**Kyle Brannigan** 8:02 AM\nheads up team, Marisa is "
     "out today, her son Ezra got sent home from Lincoln Elementary with a fever again. @Deshawn can you cover "
     "receiving dock 4?\n\n**Deshawn Pryor** 9:12 AM\n@Kyle Brannigan dock 4 door sensor is throwing errors.\n\n"
     "**Priya Natarajan** 9:20 AM\nalso the night shift lead wants to swap his slot. I said fine",
     ["[id] | ", "AM\nPerson ", " can you cover receiving dock 4?", " dock 4 door sensor is throwing errors.",
      " 9:20 AM\nalso the night shift lead"],
     ["Kyle", "Brannigan", "Deshawn", "Priya", "denver", "#-", "\n ", "dock a few"]),
])
def test_forms_keep_their_fields(engine, text, present, absent):
    out = anonymize(engine, text)
    for p in present:
        assert p in out, out
    for a in absent:
        assert a not in out, out


def test_a_line_that_goes_takes_its_line_break_and_a_list_keeps_its_bullets(engine):
    # a deleted line left a blank line in a form, a deleted first sentence left " In March" at a line's start, a
    # deleted item took the next one's bullet, and a quotation's opening mark left its closing one
    text = ("ANNUAL REVIEW\nEmployee: Marcus Webb\nTitle: Senior Cryogenic Systems Technician, Building 7 Helium Recovery\n"
            "Manager: Danielle Osei\n\nSummary\nMarcus continues to be the go-to person for the Zorvex liquefier. In March "
            "he diagnosed a failing bearing.\n\nAction taken:\n- Assisted up using the Raizer chair.\n- Skin tear dressed "
            "with Steri-Strips.\n- Daughter informed at 08:05.\n\nEmployee comments\n\"Thanks Danielle. I will work on "
            "it – my wife Tasha would agree! Please note my new cell: 630-555-0172.\"")
    out = anonymize(engine, text)
    lines = out.split("\n")
    assert not any(line.startswith(" ") for line in lines), out
    assert "Employee: Person A\nManager: Person B\n" in out, out  # (no blank line where a field's line went)
    assert "- Daughter informed" in out, out
    assert not out.rstrip().endswith('"') or out.count('"') % 2 == 0, out


def test_everyday_speech_a_note_reports_is_no_searchable_quotation(engine):
    """A crisis line's note lost its presenting concern: 'feeling "like I can't keep doing this"' was taken for a
    quotation a search engine finds. A rare quotation still goes."""
    out = anonymize(engine, 'Presenting concern: Caller reported feeling "like I can\'t keep doing this" after failing '
                            "two midterms. Risk level: moderate.")
    assert "like I can't keep doing this" in out and "failing two midterms" in out, out
    out = anonymize(engine, "He was an engineer. He was alleged to have \u201ccriticised and condemned the proposals of "
                            "another engineer and had offered his services uninvited\u201d. He retired early.")
    assert "uninvited" not in out and "He retired early." in out, out


def test_a_date_that_opens_a_sentence_keeps_its_capital_and_a_brands_last_letter_is_no_article(engine):
    """"- On 4 May, he moved" read "- On May, he moved"; "the Chick-fil-A at 11621 Southern Blvd" read "at the
    -fil-An" (the brand's "A" taken for an article) and then "an organizationn"."""
    out = anonymize(engine, "I kept the plot for years.\n- On 4 May, he moved the path.\n\nExchanges shall occur at the "
                            "Chick-fil-A at 11621 Southern Blvd, Royal Palm Beach, unless agreed.")
    assert "- In May, he moved the path." in out and "at an organization unless agreed." in out, out


def test_a_lists_pet_keeps_its_item_and_a_quoted_name_goes(engine):
    """"- Pōhutu, 9-year-old huntaway, arthritic." went as a stub and left "- Won't get in the car willingly." with
    no one to be about; "Pōhutu gets anxious" kept the name (its "ō" was no letter to the rule); a boat's quoted name
    stayed in a listing's first line."""
    out = anonymize(engine, "Animals:\n- Pōhutu, 9-year-old huntaway, arthritic. Won't get in the car willingly.\n"
                            "- Clementine, ginger cat.\n\nPōhutu gets anxious when the siren goes off.")
    assert "- Person A, a huntaway, arthritic. Won't get in the car" in out and "Pōhutu" not in out, out
    out = anonymize(engine, 'FOR SALE: 1998 Farr 727 "Southerly Buster" – trailer sailer, ready to go\n\nSelling her '
                            "as I am moving for work.")
    assert "Southerly" not in out and "ready to go" in out, out


def test_an_id_inside_what_the_writer_says_of_it_keeps_its_placeholder(engine):
    """"Hi, my order OD4418732290 for a Prestige induction cooktop was marked delivered" (read as an apposition) lost
    its subject with the id: "Hi, was marked delivered"."""
    out = anonymize(engine, "Customer: Hi, my order OD4418732290 for a Prestige induction cooktop was marked delivered "
                            "on 3rd January but I never got it.")
    assert "my order [id] for a" in out and "OD44" not in out, out


def test_a_line_of_placeholders_or_a_checklist_is_no_chat_line():
    """A chat's line holds a time in its brackets: "[address]" and "[x] Pharmacy:" are none (a letter's header of
    placeholders was deleted as a chat line left with its speaker alone)."""
    from veil import nlp
    from veil.agents.local.optimizer import _BARE_CHAT_LINE

    assert _BARE_CHAT_LINE.search("Person A\n[address]\n[email]\n") is None
    assert nlp.CHAT_LINE.match("[x] Pharmacy: collect prescription") is None
    assert nlp.CHAT_LINE.match("[Sat 10:02] Karen Doyle: ok so") is not None
