"""Grammatical units of a parsed text: what the local optimizer may edit.

A unit is one of
- an **entity or noun phrase** (a span of :mod:`veil.agents.local.spans`), replaced by a rung of
  its generalization ladder that fits its slot;
- a **removable dependent**, deleted whole with its commas and coordinator: a prepositional
  phrase, an appositive, a relative, adverbial or participial clause, a parenthetical, a
  conjunct or list item, an adjectival modifier;
- a **whole sentence**.

Nothing else is ever deleted: no single word from the middle of a constituent. Each unit is a
list of *pieces* (character ranges of the original with their replacement), because deleting
the last item of a list also turns the comma before the previous item into "and".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veil import nlp

# dependents whose whole subtree can go without breaking the clause that holds them
REMOVABLE = {
    "prep": "prepositional phrase", "agent": "prepositional phrase", "appos": "appositive",
    "relcl": "relative clause", "advcl": "adverbial clause", "acl": "participial clause",
    "conj": "conjunct", "parataxis": "parenthetical", "npadvmod": "adverbial phrase", "amod": "modifier",
}
_OPEN = {",": ",", "(": ")", "—": "—", "–": "–", "-": "-"}
MAX_MODIFIER_TOKENS = 3
# nouns that are incomplete without their prepositional complement
RELATIONAL = frozenset("""part member one some many most all each none several both number series kind type sort
piece couple lot majority rest half group pair set member members parts ones dozen hundreds thousands millions
variety range list total amount share brother sister son daughter wife husband father mother parent child
children cousin uncle aunt nephew niece grandson granddaughter grandfather grandmother widow widower friend
partner spouse twin sibling relative descendant ancestor field area role position rank capacity slew host handful
array plethora multitude bunch lots focus emphasis interest specialty speciality specialization expertise
winner winners runner-up recipient holder founder co-founder assistant aide adviser advisor ambassador envoy
delegate heir successor predecessor love passion fondness talent aptitude enthusiasm fascination devotion
dedication commitment contribution contributions student students pupil pupils disciple apprentice master expert
specialist pioneer graduate graduates alumnus alumna alumni fellow fellows laureate trustee trustees patron
patrons sense terms""".split())  # ("He was a student." of "a student of Roman architecture": empty and
# misleading; "in terms of clothing" -> "in terms" was an output)
# nouns whose "of" phrase is their complement (their other phrases may go): an office needs what it is held in
# ("In the 1860s he was president." of "president of the New Orleans & Ohio Railroad Company" read as a head of
# state), a maker what he made ("He, inventor, was born" of "inventor of the 'Rocket' life-saving apparatus")
OF_COMPLEMENT = frozenset("""president presidents vice-president chairman chairwoman chairperson chair director
directors head chief ceo treasurer secretary dean rector provost chancellor governor editor captain commander
inventor inventors creator creators designer designers author authors composer publisher owner owners
developer""".split())
# nouns that claim a standing in a field: a narrower field is a smaller claim ("a pioneer of archaeological
# photography" -> "a pioneer of photography" was false)
CLAIM_NOUNS = frozenset("""pioneer pioneers innovator innovators father mother founder leader leaders authority
expert experts specialist specialists master masters champion champions advocate proponent exponent icon legend
doyen""".split())
# determiners that quantify over every member of what the noun and its restrictive clause pick out
# ("open to all people who have flown in outer space" -> "open to all people" was false)
UNIVERSAL = frozenset("all every any each no only sole".split())
# verbs whose "as" phrase is what they say of the object ("was selected as the Player of the Year", "is
# regarded as a pioneer"): without it the verb says nothing
AS_VERBS = frozenset("""select name elect appoint choose vote crown designate regard consider describe recognize
recognise hail rank rate dub style label acclaim proclaim nominate induct install""".split())
# the noun before a verb's "as" phrase that the phrase completes ("left his role as tournament director")
AS_NOUNS = frozenset("role roles position positions post job capacity duties seat title career stint tenure term".split())
# words that make a preposition with the "to"/"of"/"from" after them: the phrase goes with the word
# ("the best female player, thanks to her play" -> "the best female player, thanks." was an output)
COMPLEX_PREPOSITIONS = frozenset("thanks due according prior owing instead regardless irrespective apart".split())
# a light verb's object that needs its "to" phrase: "gave birth to", "gave rise to", "made way for"
LIGHT_OBJECTS = frozenset("birth rise way credit access attention".split())
# determiners that make a noun's "of" phrase its complement: "the end of that season" -> "the end"
_DEFINITE_DETS = frozenset("the this that these those his her its their my our your".split())


# what else may follow a verb so that it still says something once a prepositional phrase goes
_COMPLEMENTS = frozenset({"prep", "dobj", "advmod", "npadvmod", "attr", "prt", "xcomp", "ccomp", "acomp", "oprd", "dative",
                          "agent", "advcl"})
# modifiers whose loss makes the rest false ("former", "backup", "minor planet", "female candidate")
KEEP_MODIFIERS = frozenset("""former ex late backup interim acting honorary assistant deputy vice co associate
alleged would unsuccessful failed minor junior senior retired emeritus female male non first second third
fourth fifth sixth seventh eighth ninth tenth last only later earlier early final previous next subsequent
posthumous different other same own separate""".split())  # ("his later years" -> "his years" was an output;
# "edges of different colors" -> "edges of colors")
# the first word of a noun English writes as two ("civil servant", "hot walker", "tight end", "prime
# minister": "He was a servant." was an output); a modifier of its own, not a qualifier (a bracket with
# "High Court" in it still goes: see _QUALIFIERS)
TWO_WORD_NOUN_MODIFIERS = frozenset("""civil hot public private free real tight wide defensive offensive secret
prime general foreign small high long""".split())
# nouns that say nothing without the modifier that says which kind ("agricultural pursuits")
EMPTY_WITHOUT_MODIFIER = frozenset("""pursuits pursuit activities activity affairs matters interests things issues
circles concerns endeavors endeavours ventures undertakings fields circumstances reasons means""".split())
QUANTIFIERS = frozenset("several many few numerous various countless multiple much little more most fewer".split())
# verbs whose "to"/"into" phrase is their complement, not an adjunct
DIRECTED_VERBS = frozenset("""go come move return travel emigrate immigrate relocate name appoint elect promote
transfer send bring lead return marry belong contribute switch convert turn""".split())
# nouns whose "to" infinitive is their complement: "made several efforts to get into shape" ->
# "made several efforts" was an output
INFINITIVE_NOUNS = frozenset("""effort efforts attempt attempts bid bids decision plan plans ability right chance
opportunity intention desire campaign drive permission order failure refusal willingness determination""".split())
# verbs whose "from ... to ..." pair is one complement: "varied from people to science subjects" ->
# "varied from people" was an output
SPAN_VERBS = frozenset("vary range span stretch extend".split())
# verbs whose "as" phrase is the role they are about ("served as", "worked as")
ROLE_VERBS = frozenset("serve work act function remain continue appear star perform".split())
# verbs that do not stand without their prepositional complement
NEEDS_COMPLEMENT = frozenset("""get put place lead bring send consist belong branch rely depend refer result
specialize specialise designate know regard describe bury""".split())  # lemmas ("He started as a comedian, but branched." was an output)


@dataclass(frozen=True)
class Piece:
    start: int
    end: int
    replacement: str = ""


@dataclass(frozen=True)
class Constituent:
    """A removable dependent (or a sentence) of the original text."""

    kind: str
    pieces: tuple[Piece, ...]
    sentence: int  # index of the sentence that holds it
    n_tokens: int

    @property
    def start(self) -> int:
        return min(p.start for p in self.pieces)

    @property
    def end(self) -> int:
        return max(p.end for p in self.pieces)


def _char(tok) -> tuple[int, int]:
    return tok.idx, tok.idx + len(tok.text)


_ORDINAL_WORD = re.compile(r"[\w-]+(?:st|nd|rd|th)")


def is_ordinal(tok) -> bool:
    """"3rd", "41st", "third", "ninth", "twenty-first": a number word that ranks, counting nothing."""
    return (tok.like_num or tok.lower_[:1].isdigit()) and bool(_ORDINAL_WORD.fullmatch(tok.lower_))
# words that rank the noun they modify: a phrase they make true stays with them
RANKING = frozenset("first second third fourth fifth last only sole youngest oldest earliest".split())
_HEDGES = frozenset("allegedly reportedly unofficial unofficially later stripped disputed claimed unconfirmed".split())
_NEEDS_ITS_CLAUSE = RANKING | {"person", "one", "man", "woman",  # "the oldest person to walk on the Moon"
                                "fact", "idea", "notion", "belief", "claim", "view", "hope", "grounds",  # "due to the fact he ..."
                                # "there was a widespread feeling that he ..." ("a widespread feeling." was an output)
                                "feeling", "impression", "perception", "sense", "suggestion", "fear", "concern",
                                "expectation", "assumption", "rumour", "rumor", "speculation", "consensus"}
# adjectives a predicate needs the phrase of: "he remained involved with the series" -> "he remained involved"
NEEDS_ITS_PHRASE = frozenset("""involved interested responsible famous known based engaged associated related devoted
dedicated committed credited renowned noted notable notorious popular eligible similar subject due prone
accustomed entitled capable fond aware proud""".split())
_QUALIFIERS = KEEP_MODIFIERS | _HEDGES  # a bracket holding one qualifies the claim: "(interim)", "(allegedly)"


def _after_the(tok):
    """The word after ``tok``, past an article."""
    doc = tok.doc
    j = tok.i + 1
    while j < len(doc) - 1 and doc[j].lower_ in ("the", "a", "an"):
        j += 1
    return doc[min(j, len(doc) - 1)]


# words that stand for a noun the text leaves out: a clause after one is what says which
_QUANTIFIERS = frozenset("several some many few most all both each one two three four five those these others "
                         "any none".split())


_EXCEPTIONS = frozenset("except excepting barring save".split())


def _a_record(tok) -> bool:
    """A definite record one sets, holds or breaks ("the record", "his records"), not a win-loss record
    ("a 2-2 record") nor an album."""
    return tok.lower_ in ("record", "records") and tok.pos_ == "NOUN" and not any(
        re.fullmatch(r"\d+\s*[-–]\s*\d+", c.text) or c.like_num for c in tok.children) \
        and tok.head.lemma_.lower() not in ("post", "finish", "compile", "have", "go", "end")


def _past_number_sign(right, sent):
    """"No. 1" the parse cut at its point is one word: "and the current Greek No | . 1" (no unit held
    the rank): the phrase that ends on "No" ends on its number."""
    doc = right.doc
    if right.text in ("No", "Nos") and right.i + 2 < sent.end and doc[right.i + 1].text == "." \
            and doc[right.i + 2].like_num and not right.whitespace_:
        return doc[right.i + 2]
    return right


def _joined_adjective(tok, noun, comma: int) -> bool:
    """Whether ``tok`` (a word next to a comma) belongs to an adjective of ``noun`` that stands on
    the same side of the comma: "handsome, | well-styled" (not "English, | modern Greek")."""
    lo, hi = sorted((comma, noun.i))
    while tok.head.i != noun.i and lo < tok.head.i < hi:
        tok = tok.head
    return tok.head.i == noun.i and tok.dep_ == "amod"


def _dependent(tok, sent) -> Constituent | None:
    dep = tok.dep_
    if dep not in REMOVABLE or tok.text == ".":
        return None  # (a point the parse took for a phrase's head: ". 1" of "Greek No. 1")
    left, right = tok.left_edge, tok.right_edge
    if dep == "appos" and right.i + 1 < sent.end:
        # a bracket after the name, or its closing half, that the parse hung elsewhere is the
        # appositive's own: "His wife, Anne Hunter (née Home), was" (no unit, so "His wife, Person B
        # (née Home), was" was an output)
        doc = tok.doc
        opened = sum(t.text == "(" for t in doc[left.i:right.i + 1]) - sum(t.text == ")" for t in doc[left.i:right.i + 1])
        start = right.i + 1 if opened == 1 else right.i + 2 if opened == 0 and doc[right.i + 1].text == "(" else None
        close = next((t for t in doc[start:sent.end] if t.text in ("(", ")")), None) if start is not None else None
        if close is not None and close.text == ")" and close.i + 1 < sent.end and doc[close.i + 1].text == ",":
            right = close
    if dep == "prep" and left.i == sent.start and not any(t.dep_ in ("pobj", "pcomp") for t in tok.subtree):
        # a fronted phrase the parse cut after its preposition: "Along with | his father, James Smith
        # trained" made "his father" the subject ("His parent, he trained for a farm." was what deleting
        # "Along with" left); the phrase runs to its comma
        j = right.i + 1
        while j < sent.end and tok.doc[j].pos_ in ("DET", "PRON", "ADJ", "NOUN", "PROPN", "NUM") and tok.doc[j].text != ",":
            j += 1
        if j == right.i + 1 or j >= sent.end or tok.doc[j].text != ",":
            return None
        right = tok.doc[j - 1]
    if left.i <= sent.start and right.i >= sent.end - 1:
        return None
    if sent.root.i in range(left.i, right.i + 1):
        return None
    if dep == "amod" and (tok.pos_ != "ADJ" or right.i - left.i + 1 > MAX_MODIFIER_TOKENS):
        return None
    if dep == "amod" and sent.root.pos_ not in ("VERB", "AUX") and (tok.tag_ in ("VBN", "VBD") or tok.lower_.endswith("ed")):
        return None  # the verb of a sentence the parse found none in: "His daughter Sheila married jockey Alex
        # Solis." ("His child jockey Person AUM." was what its loss left)
    if dep == "amod" and any(c.dep_ == "det" and c.lower_ == "the" for c in tok.head.children) \
            and not any(c.dep_ in ("amod", "compound") and c.i != tok.i for c in tok.head.children):
        # "the solar system" -> "the system": after "the", a noun's only modifier says which one it is
        return None
    if dep in ("acl", "relcl") and tok.head.pos_ not in ("NOUN", "PROPN") and tok.head.lower_ in _QUANTIFIERS:
        return None  # a quantifier's clause is all it says: "including several honored with the Collier
        # Trophy" ("including several." was what its loss left)
    relational = tok.head.lower_ in RELATIONAL or tok.head.lemma_.lower() in RELATIONAL  # ("over 100 types" of aircraft)
    if dep == "prep" and tok.lower_ == "of" and (tok.head.pos_ not in ("NOUN", "PROPN") or relational
                                                 or tok.head.lower_ in OF_COMPLEMENT):
        return None  # "part of X", "one of X", "member of X": the noun needs its complement
    if dep == "prep" and tok.head.pos_ in ("NOUN", "PROPN", "NUM", "PRON") and relational:
        return None
    prev = tok.doc[tok.i - 1] if tok.i > 0 else None
    if dep == "prep" and prev is not None and prev.pos_ == "NOUN" and (
            prev.lower_ in RELATIONAL or (tok.lower_ == "of" and prev.lower_ in OF_COMPLEMENT)):
        return None  # the parse hung the complement on the noun before ("trainer and winner | of the Derby")
    noun = tok.head if tok.head.pos_ == "NOUN" else prev  # (the parse may hang it on the verb: "set the record | for")
    if dep == "prep" and noun is not None and noun.pos_ == "NOUN" and (tok.i == noun.i + 1 or (
            noun.i == tok.head.i and tok.i - noun.i <= 4
            and all(t.dep_ == "cc" or (t.dep_ == "conj" and t.head == noun) for t in tok.doc[noun.i + 1:tok.i]))) and any(
            c.dep_ in ("det", "poss") and c.lower_ in _DEFINITE_DETS
            # (a "for" phrase too, wherever the parse hung it: "the main costume designer | for Torchwood" -> "the
            # main costume designer" asks of what; this read "noun is not tok.head", always true of spaCy's tokens)
            for c in (*noun.children, *(noun.head.children if noun.dep_ == "conj" and noun.head.pos_ == "NOUN"
                                         and not any(d.dep_ in ("det", "poss") for d in noun.children) else ()))
            if tok.lower_ in ("of", "for")):
        # (the article of a list of nouns: "on the design and manufacture | of apparel" -> "on the design and
        # manufacture." was an output)
        # a definite noun's complement: "the end of that season" -> "at the end", "in the
        # discipline of Wing Chun" -> "in the discipline", "his love for photography" -> "his love",
        # "he set the record for the most days in space" -> "he set the record"
        return None
    if dep == "acl" and tok.head.lemma_.lower() in INFINITIVE_NOUNS and tok.i > tok.head.i \
            and any(c.dep_ == "aux" and c.lower_ == "to" for c in tok.children):
        return None
    if dep == "prep" and tok.lower_ in ("from", "to") and tok.head.lemma_.lower() in SPAN_VERBS and any(
            c.dep_ == "prep" and c.lower_ in ("from", "to") and c.i != tok.i for c in tok.head.children):
        return None
    if dep == "prep" and tok.pos_ == "ADP" and all(c.dep_ == "advmod" for c in tok.children):
        return None  # no object: the parse's "as" of "as well as" (its removal leaves "a luthier a bow maker")
    if dep == "prep" and tok.lower_ == "than":
        return None  # a comparison's other side: "purports to be anything other than satire and comedy" ->
        # "anything other." was an output
    if dep == "prep" and (any(c.dep_ == "advmod" and c.lower_ in ("only", "except", "solely", "exclusively")
                              for c in tok.children) or tok.lower_ in _EXCEPTIONS or (tok.head.lower_ in _EXCEPTIONS and tok.head.pos_ == "ADP")):
        return None  # an exception or a restriction is what the clause asserts: "missing out only in 1998" ->
        # "missing out." and "every time except in 1998" -> "every time" are false
    if dep == "prep" and left.i > sent.start and right.i + 2 < sent.end and tok.doc[right.i + 1].text == "," and (
            (n := tok.doc[right.i + 2]).dep_ == "prep"
            and n.head.i in (tok.head.i, tok.head.head.i if tok.head.dep_ == "prep" else tok.head.i)
            and n.lower_ in (tok.lower_, *(c.lower_ for c in tok.children if c.dep_ == "prep" and c.i == tok.i + 1))):
        return None  # the first of a list of phrases the parse hung on the verb one by one: "worked his way up
        # to a groom, to an assistant trainer, and to a trainer" -> "worked his way, to an assistant trainer"
        # was an output
    if dep == "prep" and left.i == right.i == tok.i:
        return None  # a preposition alone is a verb's particle: "were called upon during" ("were called during"
        # was an output)
    if dep == "prep" and right.i + 3 < len(tok.doc) and " ".join(
            t.lower_ for t in tok.doc[right.i + 1:right.i + 4]) == "as well as":
        return None  # the first of "as a luthier as well as a bow maker" ("trained a bow maker" was an output)
    if dep == "conj" and tok.pos_ == "VERB" and tok.head.pos_ == "VERB" and tok.i > tok.head.i \
            and any(c.dep_ in ("dobj", "prep", "attr", "xcomp", "ccomp") for c in tok.children) \
            and not any(c.dep_ not in ("conj", "cc", "punct", "aux", "auxpass", "neg", "advmod", "nsubj", "nsubjpass")
                        for c in tok.head.children):
        return None  # the object the verbs before it share: "co-wrote, produced, and starred in his film"
        # -> "co-wrote, produced." was an output
    if dep == "amod" and tok.lower_ in COMPLEX_PREPOSITIONS:
        return None  # "due mainly" of "due mainly to the fact": the parse split the preposition
    if dep == "npadvmod" and tok.head.dep_ in ("amod", "compound"):
        return None  # inside a noun's modifier: "a self taught artist" -> "taught artist" was an output
    if dep == "npadvmod" and any(c.dep_ == "poss" for c in tok.children) and right.i + 1 < sent.end \
            and tok.doc[right.i + 1].pos_ in ("NOUN", "PROPN"):
        return None  # a subject's determiner the parse took for a time: "His lifetime ERA stands at 0.00" -> "ERA
        # stands at 0.00." was an output
    if dep == "prep" and tok.head.pos_ == "ADJ" and tok.head.lower_ in NEEDS_ITS_PHRASE and tok.i > tok.head.i:
        return None
    if dep == "prep" and tok.head.pos_ == "VERB" and tok.i > tok.head.i and any(
            c.dep_ == "dobj" and c.lower_ in ("himself", "herself", "themselves", "itself", "myself") for c in tok.head.children):
        return None  # "wrote himself into the club's folklore" -> "wrote himself": the phrase completes the verb
    if dep == "prep" and tok.lower_ == "to" and tok.head.pos_ == "VERB" and any(
            c.dep_ == "dobj" and c.lower_ in LIGHT_OBJECTS for c in tok.head.children):
        return None  # "gave birth to two daughters" -> "gave birth"
    if dep == "appos" and tok.pos_ == "PROPN" and tok.head.i < tok.i and tok.head.left_edge.i == sent.start \
            and right.i + 1 < sent.end and tok.doc[right.i + 1].text != ",":
        return None  # "A prolific artist, Bewick paints": the name is the subject ("A prolific artist, paints" was an output)
    if dep == "conj" and tok.head.dep_ in ("appos", "compound", "nmod") and tok.head.head.tag_ in ("NNS", "NNPS") \
            and sum(c.dep_ == "conj" for c in tok.head.children) == 1:
        return None  # one of the two names a plural noun lists: "He and teammates Person A were known" was an output
    if dep == "conj" and any(t.lower_ in ("both", "either", "neither") for t in tok.doc[
            max(sent.start, tok.head.left_edge.i - 3):tok.head.i]):
        return None  # "both stand-up comedy and feature film acting" -> "both stand-up comedy acting"
    if dep == "prep" and tok.head.lemma_.lower() == "be" and tok.i > tok.head.i and not any(
            c.dep_ in ("attr", "acomp", "oprd", "xcomp", "ccomp", "dobj") or (c.dep_ == "prep" and tok.head.i < c.i < tok.i)
            for c in tok.head.children):
        return None  # what "was" says: "he was on the Board of Directors of X, until 2011" -> "he was, until 2011" was an output
    if dep == "prep" and tok.head.lower_ in COMPLEX_PREPOSITIONS:
        return None  # "thanks to X" -> "thanks" (the word and its phrase go together, as one unit)
    if dep == "prep" and tok.lower_ == "as" and tok.head.pos_ == "VERB" and prev is not None \
            and prev.lower_ in AS_NOUNS and prev.head == tok.head and prev.dep_ == "dobj":
        return None  # "he left his role as tournament director" -> "he left his role"
    if dep == "prep" and tok.lower_ == "of" and tok.head.lower_ in ("record", "score", "tally", "average", "total", "mark"):
        return None  # "a mixed martial arts record of 2-1-1" -> "He has a martial arts record." said nothing
    if dep == "prep" and tok.lower_ == "as" and tok.head.pos_ == "VERB" and tok.head.lemma_.lower() in AS_VERBS \
            and tok.i > tok.head.i and any(c.dep_ == "auxpass" for c in tok.head.children) \
            and not any(c.dep_ in ("prep", "dative") and c.lower_ in ("to", "into", "onto") for c in tok.head.children):
        return None  # what one was selected as: "he was selected in the 2010s" (of "selected as the Player of the Year");
        # not beside where one was elected to ("was elected as a Democrat to Congress": "elected to Congress" says it)
    if dep == "prep" and tok.lower_ == "to" and prev is not None and prev.dep_ == "pobj" and prev.head.lower_ == "as":
        return None  # "to serve as Assistant to the President" -> "to serve as Assistant"
    if dep == "prep" and tok.lower_ == "to" and tok.head.lemma_.lower() == "make" and any(
            c.dep_ == "dobj" and c.lower_ == "it" for c in tok.head.children):
        return None  # "he made it to the third round" -> "he made it"
    if dep == "prep" and tok.lower_ == "of" and tok.head.pos_ == "PROPN" and tok.head.text[:1].isupper() \
            and _after_the(tok).text[:1].isupper():
        return None  # part of a name: "a Hall of Fame inductee" -> "a Hall inductee", "the Horse of the Year"
    if dep == "npadvmod" and right.i - left.i + 1 > 6 and not (
            left.i > sent.start and tok.doc[left.i - 1].text == "," and right.i + 2 >= sent.end):
        return None  # (a long one set off at the sentence's end is an apposition: ", the first astronaut to ...")
    if dep in ("prep", "agent") and tok.head.pos_ in ("VERB", "AUX") and tok.i > tok.head.i \
            and not any(c.i > tok.head.i and c.i != tok.i and c.dep_ in _COMPLEMENTS
                        and not (c.dep_ == "advcl" and c.left_edge.i > 0 and c.doc[c.left_edge.i - 1].text == ",")
                        for c in tok.head.children):
        # (a clause set off by a comma is no complement: "He participated in the 1961 Rand Grand Prix,
        # scoring a point" -> "He participated, scoring a point" was an output)
        # a verb's only complement: "He graduated from the Institute" -> "He graduated.",
        # "Born in El Paso, he" -> "Born he", "get to the final" -> "get": the verb says nothing without it
        return None
    if dep == "prep" and tok.head.pos_ == "VERB" and tok.head.lemma_.lower() in NEEDS_COMPLEMENT and tok.i > tok.head.i \
            and not any(c.dep_ in ("dobj", "prt") for c in tok.head.children):
        return None
    if dep == "prep" and tok.lower_ == "as" and tok.head.pos_ == "VERB" and tok.head.lemma_.lower() in ROLE_VERBS \
            and tok.i > tok.head.i:
        return None  # "He then served as Executive secretary to X in 1947" -> "He then served in the 1940s"
    if dep == "prep" and tok.lower_ in ("to", "into", "onto", "toward", "towards") and tok.head.pos_ == "VERB" \
            and tok.head.lemma_ in DIRECTED_VERBS:
        return None  # "first went to Italy in 1936" -> "first went in the 1930s": where is part of the fact
    if dep in ("prep", "agent") and any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in tok.subtree):
        return None  # the parse hung a clause with its own subject on the phrase ("as an engineer ... and I cook")
    if dep == "amod" and (tok.tag_ == "JJS" or any(c.tag_ == "RBS" for c in tok.children)):
        return None  # "the youngest driver to compete" -> "the driver to compete": a superlative picks one out
    if dep in ("relcl", "acl") and tok.i > tok.head.i and tok.doc[tok.left_edge.i - 1].text not in (",", "(", "–", "—") \
            and (tok.head.lower_ in ("those", "anyone", "everyone", "anybody", "everybody", "all")
                 or any(c.lower_ in UNIVERSAL for c in tok.head.children if c.i < tok.head.i)):
        return None  # a restrictive clause under "all", "every", "only": "open to all people who have flown in
        # outer space" -> "open to all people" was false
    if dep in ("amod", "compound") and tok.i < tok.head.i and (
            any(c.lower_ in UNIVERSAL for c in tok.head.children if c.i < tok.i)
            or (tok.head.dep_ == "pobj" and tok.doc[tok.head.head.i].lower_ in ("among", "amongst")
                and any(t.lower_ in ("first", "second", "third", "fourth", "fifth", "top") for t in tok.doc[tok.sent.start:tok.head.head.i]))):
        return None  # "second amongst all active players" -> "all players" was false: a modifier under
        # "all", "every", "only" narrows the set the claim ranges over
    if dep in ("amod", "compound") and tok.head.dep_ == "pobj" and tok.head.head.dep_ == "prep" \
            and CLAIM_NOUNS.intersection((tok.head.head.head.lower_, tok.doc[tok.head.head.i - 1].lower_)) \
            and not any(c.dep_ in ("det", "poss") for c in tok.head.children):
        return None  # "a pioneer of archaeological photography" -> "a pioneer of photography" claims more (the
        # parse may hang the phrase on the noun before "pioneer": "a student of architecture and pioneer | of")
    if dep == "prep" and any(c.dep_ == "pobj" and c.lower_ in ("whom", "which", "whose") for c in tok.children):
        return None  # a relative clause's own phrase: "He married X, with whom he had four sons" -> "He married
        # X, he had children." was an output
    if dep == "amod" and any(c.dep_ == "advmod" and c.i < tok.i for c in tok.children):
        return None  # a graded adjective is what the phrase asserts: "a reputation as being a totally clean
        # rider" -> "as being a rider" (an output) says nothing
    if dep == "amod" and tok.lower_ in QUANTIFIERS:
        return None  # "one of several players" -> "one of players": a quantifier is the noun's determiner
    if dep == "prep" and tok.right_edge.i + 2 < sent.end and tok.doc[tok.right_edge.i + 1].lower_ in ("among", "amongst") \
            and tok.doc[tok.right_edge.i + 2].lower_.startswith("other"):
        return None  # "He recorded for Decca among other labels" -> "He recorded among other labels": the others
        # are the phrase's
    if dep == "prep" and tok.head.dep_ == "pobj" and tok.head.head.lower_ in ("including", "like", "excluding", "except"):
        return None  # an example is its phrase: "47 months of military service including service in World War II"
        # -> "including service" (an output); the example goes whole
    if dep == "amod" and tok.head.lower_ in EMPTY_WITHOUT_MODIFIER:
        return None  # "He engaged in agricultural pursuits" -> "He engaged in pursuits." says nothing
    if dep == "amod" and (tok.lower_.split("-")[0] in KEEP_MODIFIERS or tok.lower_ in TWO_WORD_NOUN_MODIFIERS):
        return None  # "the former head coach" -> "the head coach" is false
    if dep in ("amod", "compound", "acl", "relcl", "prep", "agent", "npadvmod") and any(
            (a.i < tok.i and _a_record(a))
            # (the parse may hang the "for" phrase on the verb: "set the record | for ...")
            or (a.dep_ == "prep" and a.lower_ in ("for", "of") and a.i > 0 and a.i < tok.i and _a_record(tok.doc[a.i - 1]))
            for a in tok.ancestors):
        return None  # what a record is a record of is its scope: "set the record for the total number of days spent
        # in space by an American astronaut" -> "set the record for the accumulated number of days" was false
    if dep in ("amod", "compound") and tok.i < tok.head.i and any(
            c.i < tok.i and (c.lower_ in RANKING or is_ordinal(c) or c.tag_ == "JJS"
                             or (c.dep_ == "amod" and any(g.tag_ == "RBS" for g in c.children)))
            for c in tok.head.children):
        return None  # "the third most conservative member" -> "the third member" is false; "one of the best
        # French road cyclists" -> "one of the best road cyclists" (an output) claims more: a modifier after a
        # rank or a superlative narrows the set it ranges over
    if dep in ("advcl", "acl", "relcl") and tok.i > tok.head.i and left.i > 0 and (n := tok.doc[left.i - 1]).pos_ == "NOUN" \
            and any(c.tag_ in ("JJS", "RBS") or c.lower_ in RANKING or is_ordinal(c)
                    or (c.lower_ == "few" and any(d.lower_ == "the" for d in n.children)) for c in n.children if c.i < n.i):
        return None  # the parse hung it on the verb: "became the first physician | to make a space flight", "one
        # of the few opposing players | to publicly welcome Jackie Robinson" ("one of the few opposing players."
        # was an output)
    if dep in ("acl", "relcl", "amod") and tok.head.lower_ in _NEEDS_ITS_CLAUSE:
        return None  # "the fifth and oldest person to walk on the Moon" -> "the person"
    if dep in ("acl", "relcl", "prep") and tok.i > tok.head.i and any(
            c.i < tok.head.i and (c.tag_ in ("JJS", "RBS") or c.lower_ in RANKING
                                  or (c.lower_ == "few" and any(d.lower_ == "the" for d in tok.head.children)))
            for c in tok.head.children):
        return None  # "the first physician to fly in space" -> "the first physician": a false superlative; "one
        # of the few opposing players to publicly welcome him" -> "one of the few opposing players" says nothing
    if dep == "prep" and tok.i > tok.head.i and any(t.tag_ in ("JJS", "RBS") for t in tok.subtree) and any(
            c.lower_ == "the" for n in (tok.head, tok.doc[tok.i - 1]) if n.pos_ in ("NOUN", "PROPN") for c in n.children):
        # (the parse may hang the phrase on the verb: "became the Spaniard | with the most medals")
        return None  # "the Spaniard with the most Olympic medals ever" -> "the Spaniard": the phrase picks him out
    if dep == "prep" and tok.lower_ == "since" and any(
            t.i < tok.i and (t.lower_ in RANKING or is_ordinal(t)) for t in sent):
        return None  # "the first driver killed ... since Ayrton Senna" -> "the first driver killed": false
    doc = tok.doc
    if dep == "prep" and left.i - 1 >= sent.start and doc[left.i - 1].dep_ == "mark" and doc[left.i - 1].head == tok.head:
        left = doc[left.i - 1]  # "While at Nobu he got his start": the conjunction goes with its phrase
    if dep == "prep" and left.i - 1 >= sent.start and (cc := doc[left.i - 1]).dep_ == "cc" and cc.lower_ == "and" \
            and cc.head.i < cc.i and not any(c.dep_ == "conj" and c.i > cc.i for c in cc.head.children) \
            and not any(t.lower_ in ("both", "either", "neither") for t in doc[sent.start:cc.i]):
        # a coordinator the parse left without a conjunct: this phrase is it, and goes with its "and"
        # and the comma before it ("... classics of French Cuisine, and as the creator of Veal
        # Orloff": "..., and." was what the phrase's loss left)
        left = cc
        if left.i - 1 >= sent.start and doc[left.i - 1].text == ",":
            left = doc[left.i - 1]
    if dep == "prep" and tok.head.pos_ in ("ADV", "ADP", "PART") and tok.head.i == left.i - 1 \
            and tok.head.dep_ in ("advmod", "prt", "prep") and not any(c.i > tok.i for c in tok.head.children):
        left = tok.head  # "up to the Civil War", "away from home": the particle goes with its phrase
    right = _past_number_sign(right, sent)
    # a closing bracket the parse hung on the phrase ("in Porreres, Majorca)") is not its own
    while right.i > left.i and right.text in (")", "]", ",") and \
            sum(t.text in ("(", "[") for t in doc[left.i:right.i + 1]) < sum(t.text in (")", "]") for t in doc[left.i:right.i + 1]):
        right = doc[right.i - 1]
    # nor is a dash the parse hung on its last word: it stands between the phrase and what follows
    # ("(born 1878 in a village, Japan – 1941)" -> "(born 1878 1941)" was what its loss left)
    while right.i > left.i and right.text in ("–", "—", "-") and right.i + 1 < sent.end:
        right = doc[right.i - 1]
    # nor a comma the parse hung on its last word: it sets off what follows ("to perform alongside X in the
    # gala, a rare feat": "to perform a feat" was what the phrase's loss left); a fronted phrase takes its
    # comma below, and two commas left side by side are one once rendered. Not one that closes commas
    # inside it: "born at Helston, Cornwall, England, on 18 March" ("was born, in the 1770s" was what it left)
    # Nor a coordinator the parse hung on its last word, whose conjunct is outside it ("in the Eastern
    # Colored League | but most of his career was in Cuba": "He played in the 1920s most of his career
    # was" was an output), nor the comma before such a one (", and").
    inside = {t.i for t in tok.subtree}
    while right.i > left.i and right.i + 1 < sent.end and (
            (right.dep_ == "cc" and doc[right.i + 1].i not in inside)
            or (right.text == "," and not any(t.text == "," for t in doc[left.i:right.i]))):
        right = doc[right.i - 1]
    own = None  # the apposition's own length, where it takes what the parse hung on its noun after it
    if dep == "appos" and left.i > sent.start and doc[left.i - 1].text == "," and tok.head.i < left.i:
        # what follows an apposition set off at the end of its noun's phrase is the apposition's, whatever the
        # parse hung it on (", one of the famous Four Musketeers | from France who dominated tennis ...": its
        # loss left "a French tennis player, from France who dominated")
        k = right.i + 1
        while k < sent.end and doc[k].is_punct and doc[k].text in ('"', "”", "’"):
            k += 1
        edge = tok.head.right_edge
        if k < sent.end and doc[k].head.i == tok.head.i and doc[k].dep_ in ("prep", "relcl", "acl") \
                and edge.i > right.i and (edge.i + 1 >= sent.end or doc[edge.i + 1].is_punct and doc[edge.i + 1].text in ".;!?"):
            # (counted as the apposition alone: MAX_DROP_TOKENS bounds what the writer set off)
            own, right = right.i - left.i + 1, edge
    start, end = _char(left)[0], _char(right)[1]
    seg, rest = nlp.text_of(doc)[start:end], nlp.text_of(doc)[end:end + 1]
    if (seg.count('"') % 2 == 1 and rest == '"') or (seg.count("“") > seg.count("”") and rest == "”"):
        # a quote opened inside the phrase closes right after it, where the parse hung it on the noun before
        # (", one of the famous "Four Musketeers" from France": no unit, its loss left a quote alone)
        end += 1
    if dep == "amod" and ((right.i + 1 < len(doc) and doc[right.i + 1].text in ("-", "–", "/"))
                          or (left.i > 0 and doc[left.i - 1].text in ("-", "–", "/"))):
        return None  # one half of "Greek - German" ("a professional - German footballer" was an output)
    text = nlp.text_of(doc)  # (Doc.text rebuilds the text from every token on each access)
    if text[start - 1:start] == "-" or text[end:end + 1] == "-":
        return None  # inside a hyphenated compound: "editor-in-chief" -> "editor-", "pound-for-pound" -> "pound-"
    pieces: list[Piece] = []
    n = own or right.i - left.i + 1
    before = doc[left.i - 1] if left.i - 1 >= sent.start else None
    after = doc[right.i + 1] if right.i + 1 < sent.end else None
    if after is not None and after.pos_ in ("VERB", "AUX") and right.pos_ in ("NOUN", "PROPN", "PRON") and not any(
            c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") for c in (after.head if after.dep_ in ("aux", "auxpass") else after).children):
        return None  # a phrase the parse ran into the subject of the verb after it, which has none: "an in-patient
        # at Royal Gwent Hospital, Newport, throughout those dates and my card was in my handbag" ("at a hospital
        # was in my handbag" was what its loss left)
    if dep == "prep" and tok.lower_ in ("with", "in", "by", "for") and any(
            (is_ordinal(t) or t.lower_ in RANKING) and t.dep_ in ("acomp", "attr", "oprd", "advmod", "npadvmod")
            and t.head.dep_ == "ROOT" and t.i < tok.i for t in sent):
        return None  # what a rank is in: "second amongst all players with 48 double-doubles" -> "second
        # amongst all players" was false (second in what?)
    if dep in ("prep", "amod", "relcl", "acl", "compound", "nummod", "npadvmod") and tok.head.i != tok.i and negated(tok.head):
        return None  # under a negation a restrictive phrase narrows what is denied: "never qualified for a
        # competition" (of "... for the actual title") is false
    if dep == "amod" and before is not None and before.text == "," and after is not None and after.i == tok.head.i \
            and _joined_adjective(doc[before.i - 1], tok.head, before.i):
        # the last of adjectives a comma joins goes with its comma: "handsome, well-styled, tailored
        # apparel" -> "handsome, well-styled apparel" ("well-styled, apparel" was an output)
        return Constituent(REMOVABLE[dep], (Piece(before.idx, end),), 0, n)
    if dep == "amod" and after is not None and after.text == "," and after.i + 1 < tok.head.i:
        if _joined_adjective(doc[after.i + 1], tok.head, after.i):
            # and the first, or one between, with the comma after it ("of , well-styled apparel")
            return Constituent(REMOVABLE[dep], (Piece(start, after.idx + 1),), 0, n)
    if dep in ("acl", "advcl", "conj") and tok.pos_ == "VERB" and before is not None and before.text == "," \
            and before.i - 1 >= sent.start and (bare := doc[before.i - 1]).pos_ == "VERB" and bare.tag_ in ("VBD", "VBN") \
            and not any(c.dep_ in _COMPLEMENTS | {"dobj", "pobj"} for c in bare.children):
        return None  # verbs that share the object at the list's end: "co-wrote, produced, and starred
        # in his film" -> "co-wrote." was what the loss of the rest left
    if dep == "advcl" and left.i == sent.start and after is not None and after.text != "," \
            and after.dep_ not in ("nsubj", "nsubjpass", "expl"):
        return None  # a fronted clause ends at its comma or at the main clause's subject; else the parse cut
        # it short ("Although she was ranked no. 9 in the UCI | rankings for ..." left "Rankings for ...")
    if dep in ("relcl", "acl", "advcl", "appos") and after is not None and after.pos_ in ("NOUN", "PROPN", "NUM", "ADJ"):
        return None  # the parse cut the clause short ("who won 10 Grand Slam | doubles titles")
    if dep == "prep" and after is not None and after.text == "," and _item_cut_loose(doc, right.i + 1, left.i, sent):
        return None  # the parse hung the list's next item on the verb ("a resident at the X Institute,
        # Y Cancer Center at Z and had a fellowship": "He was a resident, a center" was what it left)
    if dep == "prep" and after is not None and after.text == "," and _list_runs_on(doc, right.i + 1, sent):
        return None  # the parse cut a list after its first item ("served on the boards of A, B and C, D":
        # "She also served, a school and a company, a clinic" was what deleting "on the boards of A" left)
    if dep == "prep" and after is not None and after.text == "," and (tail := _name_tail(doc, right.i + 1, sent)):
        # a name set off after the phrase's last noun that the parse did not hang on it ("as a rider
        # for his uncle, W. C. 'Farmer Bill' Scully."): it goes with the phrase ("He began his
        # career, Person AAV." was what the phrase's loss left)
        right = tail
        end = _char(right)[1]
        n = right.i - left.i + 1
        after = doc[right.i + 1] if right.i + 1 < sent.end else None
    if dep in ("relcl", "acl", "prep") and after is not None and after.text == "," \
            and (loose := _loose_attr(doc, after.i + 1, left.i, sent)) is not None:
        # an apposition to the clause's last noun that the parse made a second complement of the
        # copula before it: "is a Comedian who ... was the host of The RDA, a daily talk show,
        # which ..." ("He is an award-winning Comedian, a late-night topical comedy talk show" -
        # false - was what the clause's loss left): it goes with the clause
        right = loose
        end = _char(right)[1]
        n = right.i - left.i + 1
        after = doc[right.i + 1] if right.i + 1 < sent.end else None
    if dep in ("relcl", "acl") and after is not None and after.text == "," and after.i + 1 < sent.end \
            and (p := doc[after.i + 1]).dep_ == "prep" and p.head == tok.head.head and tok.head.dep_ == "attr" \
            and p.head.pos_ == "AUX" and p.right_edge.i + 2 >= sent.end and doc[sent.end - 1].is_punct:
        # a phrase set off at the sentence's end that the parse hung on the copula tells of the clause
        # before it: "a civil engineer particularly associated with harbour works in Burma, during the
        # early years of the 20th century" ("He was a civil engineer, during the early years of the 20th
        # century." - false of a career that ran on - was what the clause's loss left)
        right = p.right_edge
        end = _char(right)[1]
        n = right.i - left.i + 1
        after = doc[right.i + 1] if right.i + 1 < sent.end else None
    if dep in ("relcl", "acl", "advcl") and after is not None and after.text == "," and after.i + 1 < sent.end \
            and (cc := doc[after.i + 1]).dep_ == "cc" and cc.head.pos_ in ("VERB", "AUX") and cc.head.i < tok.i:
        tail = next((c for c in cc.head.children if c.dep_ == "conj" and c.i > cc.i), None)
        if tail is not None and tail.pos_ in ("NOUN", "PROPN", "NUM") and tail.right_edge.i < sent.end:
            # the clause's own elliptical end, which the parse hung on the main verb: "moved to London,
            # where she completed a degree, and later two diplomas" ("She moved to a city in England
            # and later two postgraduate diplomas." was what the clause's loss left)
            right = tail.right_edge
            end = _char(right)[1]
            n = right.i - left.i + 1
            after = doc[right.i + 1] if right.i + 1 < sent.end else None
    if dep in ("prep", "agent") and after is not None and after.head.pos_ in ("NOUN", "PROPN", "NUM") \
            and after.head.i > right.i and (after.pos_ in ("NOUN", "PROPN", "NUM") or after.dep_ == "nsubj"):
        return None  # the parse cut the phrase short ("amongst all active NCAA Division | I players": "second I players")
    trailing_prep = dep == "conj" and tok.pos_ == "ADP" and (
        tok.right_edge.i + 1 >= sent.end or (doc[tok.right_edge.i + 1].is_punct and tok.right_edge.i + 2 >= sent.end))
    # (a prepositional phrase the parse hung on the verb as a conjunct, ending the sentence: ", and as
    # the creator of Veal Orloff" goes whole with its comma and "and")
    first = tok.head
    while dep == "conj" and first.dep_ == "conj" and first.head.i < first.i:
        first = first.head  # the list's first item
    nxt = tok.doc[right.i + 1] if right.i + 1 < sent.end else None
    if dep == "conj" and tok.pos_ == "PROPN" and first.pos_ == "NOUN" and left.i > tok.head.i and nxt is not None \
            and nxt.pos_ == "NOUN" and (nxt.i == first.head.i or nxt.head.i == first.i):
        # the parse took a noun's proper-noun modifier for the last item of the list of common
        # nouns before it: "an attorney, diplomat and Democratic Party politician" ("an attorney
        # and diplomat politician" was what removing that item left)
        return Constituent("modifier", (Piece(_char(left)[0], _char(right)[1]),), 0, right.i - left.i + 1)
    if dep == "conj" and first.dep_ in ("compound", "nmod") and first.head.i > tok.i:
        return None  # a noun modifier's conjunct is part of the noun phrase, and often a misparse of two
        # nouns: "a racing driver and team manager" -> "a racing driver manager" was an output
    if dep == "conj" and any(t.lower_ in ("then", "later", "subsequently")
                             for t in tok.doc[max(tok.head.i + 1, tok.left_edge.i - 2):tok.left_edge.i + 2]) \
            and any(t.lower_ in ("first", "initially", "originally") for t in tok.doc[sent.start:tok.left_edge.i]):
        return None  # the second of "first X and then Y": "he has represented first Czechoslovakia." was what its
        # loss left
    if dep == "conj" and any(c.lower_ in _EXCLUSIVE and c.i < tok.i for c in (tok.head, *tok.head.children)):
        return None  # "He worked alone and with partners" -> "He worked alone." is false
    if dep == "conj" and tok.tag_ in ("NNS", "NNPS") and tok.head.tag_ in ("NN", "NNP") \
            and not any(c.dep_ in ("det", "poss") for c in tok.children) and any(c.dep_ == "det" for c in tok.head.children) \
            and any(c.dep_ in ("compound", "amod") and c.i < tok.i for c in tok.children):
        return None  # a singular noun before a plural one both share: "the abstract expressionist and graffiti art
        # movements" ("influenced by the abstract expressionist" was an output)
    if dep == "conj" and not trailing_prep and (tok.head.pos_ in ("VERB", "AUX")) != (tok.pos_ in ("VERB", "AUX")):
        return None  # the parse joined a noun to a verb ("trained as a luthier as well as a bow maker")
    if dep == "conj":
        # a conjunct without the conjuncts chained after it ("German" in "French, German and
        # Italian" holds "and Italian" in the parse)
        right = tok
        for ch in tok.children:
            if ch.i > tok.i and (ch.dep_ not in ("conj", "cc", "punct") or (
                    # a noun the parse joined to the verb is the verb's own object: "and won
                    # individual gold and bronze, and team silver" ("and team silver" was left)
                    ch.dep_ == "conj" and ch.pos_ in ("NOUN", "PROPN") and tok.pos_ == "VERB") or (
                    # an adjective the parse joined to a verb, with no separator, is the verb's own:
                    # "stood 5 feet 10 inches (1.78 m) tall and weighed" ("batted right-handed tall"
                    # was an output)
                    ch.dep_ == "conj" and ch.pos_ in ("ADJ", "ADV") and tok.pos_ in ("VERB", "AUX")
                    and doc[ch.i - 1].dep_ != "cc" and doc[ch.i - 1].text not in (",", ";"))):
                right = max(right, ch.right_edge, key=lambda t: t.i)
        if tok.head.pos_ == "NOUN" and any(c.i > right.i and c.dep_ == "prep" for c in tok.head.children):
            return None  # a complement both nouns share: "a piano and composition pupil of Mozart" -> "a piano of"
        verb = tok.head.head
        while tok.pos_ in ("NOUN", "PROPN") and tok.head.pos_ in ("NOUN", "PROPN") and verb.pos_ in ("VERB", "AUX") \
                and right.i + 1 < sent.end and (p := doc[right.i + 1]).dep_ == "prep" and p.head == verb \
                and p.right_edge.i < sent.end:
            # a phrase right after the last noun of a list, which the parse hung on the verb, tells
            # of that noun: "a delegate from 1786 to 1788 and a Representative | from 1789 to 1793"
            # ("He was a delegate in the 1780s from the 1780s to the 1790s" - false - was what
            # removing the conjunct alone left)
            right = p.right_edge
        right = _past_number_sign(right, sent)
        if right.i + 2 < sent.end and doc[right.i + 1].text == "," and (ap := doc[right.i + 2].head).dep_ == "appos" \
                and ap.left_edge.i == right.i + 2 and ap.head.i < tok.i and ap.head in (first, *first.conjuncts) \
                and ap.right_edge.i + 2 >= sent.end:
            # an apposition the parse hung on the list's first item, right after the last one, ending
            # the sentence, tells of the last item's noun: "expert, author, and founder of the X
            # process, an approach to personal evolution" ("author, an approach to ..." was what the
            # item's loss left)
            right = ap.right_edge
        if right.i + 1 < sent.end and doc[right.i + 1].text == "," \
                and (loose := _loose_attr(doc, right.i + 2, left.i, sent)) is not None:
            right = loose  # (the copula's loose apposition, as for a clause above)
        end = _char(right)[1]
        n = right.i - left.i + 1
        # take the separator before the conjunct: "A, B and C" - B goes with its comma, C with "and"
        seps = []
        j = left.i - 1
        while j >= sent.start and (doc[j].dep_ == "cc" or doc[j].text in (",", ";")) and len(seps) < 2:
            seps.append(doc[j])
            j -= 1
        if not seps:
            return None
        start = seps[-1].idx
        if any(s.dep_ == "cc" for s in seps):
            # the last item went with "and": the comma before the previous item becomes "and"
            head = tok.head
            earlier = [c for c in head.children if c.dep_ == "conj" and c.i < tok.i]
            if not earlier and head.dep_ == "conj":
                earlier = [head]  # a chained list: the previous item is the head itself
            if earlier:
                prev = earlier[-1]
                p = prev.left_edge.i - 1
                if p >= sent.start and doc[p].text == "," and not (
                        len(prev.text.replace(".", "")) <= 3 and prev.text.replace(".", "").isupper()):
                    # (not the comma of a place's state: "Washington, DC" is no "Washington and DC")
                    cc = next(s for s in seps if s.dep_ == "cc")
                    pieces.append(Piece(doc[p].idx, doc[p].idx + 1, f" {cc.text}"))
        pieces.append(Piece(start, end))
        return Constituent(REMOVABLE[dep], tuple(pieces), 0, n)
    if dep == "appos" and before is not None and before.text == "," and tok.head.tag_ in ("NNS", "NNPS") \
            and any(c.dep_ == "conj" and c.i > tok.i for c in (*tok.children, *tok.head.children)) \
            and doc[sent.end - 1].text in ".!?" \
            and not any(t.pos_ in ("VERB", "AUX") or t.text in (";", "(", ")") for t in doc[right.i + 1:sent.end - 1]) \
            and all(t.dep_ in ("prep", "cc", "punct") or (t.dep_ == "conj" and t.head in (tok, tok.head))
                    for t in doc[right.i + 1:sent.end - 1] if not right.i < t.head.i < sent.end - 1):
        # (only the list's own items and phrases after it: "He called his two albums, X and Y, failures."
        # keeps its complement)
        # a list in apposition to a plural noun that ends the sentence goes whole, with what the parse
        # hung elsewhere: "two champions, Gallant Fox in 1930 and Omaha in 1935." ("Included were
        # champions, in the 1930s." was what its names' loss left)
        last = doc[sent.end - 2]
        return Constituent(REMOVABLE[dep], (Piece(before.idx, last.idx + len(last.text)),), 0, sent.end - 1 - left.i)
    if dep == "appos" and before is not None and before.text == ":" and (after is None or after.text in ".!?"):
        # a list that a colon opens at the sentence's end goes with its colon: "They had five
        # children: A, B, C and D." ("They had five children: Person H, Person I." was an output)
        return Constituent(REMOVABLE[dep], (Piece(before.idx, end),), 0, n)
    if before is not None and before.text in _OPEN:
        close = _OPEN[before.text]
        if after is not None and after.text == close:
            # ", a photographer," / "(born 1942)": both separators go
            if before.text == "(":
                return Constituent("parenthetical", (Piece(before.idx, after.idx + 1),), 0, n)
            prior = doc[before.i - 1] if before.i - 1 >= sent.start else None
            nxt = doc[after.i + 1] if after.i + 1 < sent.end else None
            opens_clause = tok.head.i > right.i or (nxt is not None and nxt.dep_ in ("nsubj", "nsubjpass")
                                                   and nxt.head.i > nxt.i)
            if before.text == "," and opens_clause and prior is not None and not prior.is_punct \
                    and prior.dep_ not in ("cc", "mark") and prior.lower_ != "that":
                # a phrase set off before its own clause keeps the comma that ends what stood before:
                # "In 1990, after the war, he moved" -> "In 1990, he moved" ("composer, graduate he is
                # the founder" was what the writer's comma splice became without it)
                return Constituent(REMOVABLE[dep], (Piece(before.idx + 1, after.idx + len(after.text)),), 0, n)
            return Constituent(REMOVABLE[dep], (Piece(before.idx, after.idx + len(after.text)),), 0, n)
        if after is None or after.is_punct and after.text in ".!?;:":
            return Constituent(REMOVABLE[dep], (Piece(before.idx, end),), 0, n)
        if before.text == "(":
            return None
    if dep in ("acl", "relcl") and (the := _definite_by(tok)) is not None:
        # a clause that said which one: "with the engineering firm run by John Wolfe-Barry" ->
        # "with an engineering firm" ("with the engineering firm" asked which)
        # (the article is settled where the sentence is rendered: the word after "the" may go too,
        # "the Irish black comedy titled X" -> "a comedy")
        art = ARTICLE if the.text[:1].islower() else ARTICLE.capitalize()
        return Constituent(REMOVABLE[dep], (Piece(the.idx, the.idx + len(the.text), art), Piece(start, end)), 0, n)
    if before is None and after is not None and after.text == ",":
        # a fronted phrase: "In 1942, he moved" -> "He moved"
        return Constituent(REMOVABLE[dep], (Piece(start, after.idx + 1),), 0, n)
    if dep in ("appos", "parataxis") and before is not None and before.text not in _OPEN:
        return None  # an appositive without its commas is part of a name ("photographer Glen Fishback")
    return Constituent(REMOVABLE[dep], (Piece(start, end),), 0, n)


# an indefinite article whose form the next word settles, once the sentence is rendered
# (:func:`veil.agents.local.optimizer.tidy`)
ARTICLE = "a(n)"
# nouns "the" or "that" needs no antecedent for: "at that time", "the world"
DEICTIC_NOUNS = frozenset("time times point moment way period stage day days world".split())


def _definite_by(clause):
    """The "the" of the singular noun a restrictive clause (no comma before it) makes definite,
    where nothing else after the noun says which one; None otherwise."""
    noun, doc = clause.head, clause.doc
    if noun.tag_ != "NN" or noun.lower_ in DEICTIC_NOUNS or noun.lower_ == "year" or clause.i < noun.i \
            or doc[clause.left_edge.i - 1].text == ",":
        return None
    dets = [c for c in noun.children if c.dep_ == "det"]
    if len(dets) != 1 or dets[0].lower_ != "the" or dets[0].i != noun.left_edge.i:
        return None
    if any(c.i > noun.i and c.i != clause.i and c.dep_ in ("prep", "acl", "relcl", "appos") for c in noun.children):
        return None
    if any(c.tag_ in ("JJS", "RBS") or c.lower_ in RANKING or is_ordinal(c) for c in noun.children if c.i < noun.i):
        return None  # "the first firm run by ..." (a clause after a rank is no unit anyway)
    return dets[0]


def _list_runs_on(doc, comma: int, sent) -> bool:
    """From the comma at ``comma`` to the sentence's end only names, nouns and their joints, with
    an "and" among them: the rest of a list whose first item ends before the comma."""
    rest = [t for t in doc[comma + 1:sent.end] if not (t.i == sent.end - 1 and t.is_punct)]
    return bool(rest) and any(t.dep_ == "cc" for t in rest) and all(
        t.pos_ in ("PROPN", "NOUN", "DET", "CCONJ", "PUNCT", "ADJ", "NUM") or t.lower_ == "of" for t in rest)


def _item_cut_loose(doc, comma: int, left: int, sent) -> bool:
    """Is what follows the comma at ``comma`` a name or noun the parse joined as a conjunct to a
    word before ``left`` (the phrase's start), though it is the next item of the phrase's list?"""
    if comma + 1 >= sent.end or not doc[comma + 1].text[:1].isupper():
        return False
    t = doc[comma + 1]
    while t.dep_ in ("compound", "amod", "nmod", "det", "punct") and comma < t.head.i < sent.end and t.head.i > t.i:
        t = t.head
    return t.dep_ == "conj" and t.pos_ == "PROPN" and t.head.i < left


def _brackets(sent) -> list[Constituent]:
    """Every bracketed aside of the sentence that holds no part of its main clause's root: removable
    whole, brackets and all, whatever the parse hung inside it."""
    out, stack = [], []
    for tok in sent:
        if tok.text == "(":
            stack.append(tok)
        elif tok.text == ")" and stack:
            o = stack.pop()
            inside = sent.doc[o.i + 1:tok.i]
            if not stack and sent.root.i not in range(o.i, tok.i + 1) and 1 < tok.i - o.i <= 24 \
                    and o.i > sent.start and not any(t.lower_ in _QUALIFIERS for t in inside):
                # (never "(interim)", "(acting)", "(allegedly)": the sentence would claim more)
                out.append(Constituent("parenthetical", (Piece(o.idx, tok.idx + 1),), 0, tok.i - o.i - 1))
    return out


# words that say "this and nothing else": a conjunct beside one cannot go
_EXCLUSIVE = frozenset("alone solely exclusively only solo".split())


def _first_conjunct(sent) -> Constituent | None:
    """The first of two verb phrases that share the subject, with its auxiliary and its "and":
    "He [was born in Orton Longueville and] was Chief Engineer" -> "He was Chief Engineer". Only
    where the second verb is finite on its own (no auxiliary of the first's to borrow: "He has
    won X and lost Y" keeps both) and says something after it."""
    root = sent.root
    if root.pos_ not in ("VERB", "AUX") or root.lemma_.lower() == "be":
        return None  # (never "was an English racehorse trainer and": what the person is stays)
    subj = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < root.i]
    conj = [c for c in root.children if c.dep_ == "conj" and c.i > root.i and c.pos_ in ("VERB", "AUX")]
    if not subj or not conj:
        return None
    c = conj[0]
    cc = [t for t in root.children if t.dep_ == "cc" and t.i < c.i]
    if not cc or c.tag_ not in ("VBD", "VBZ", "VBP") or any(t.dep_ in ("nsubj", "nsubjpass", "aux", "auxpass")
                                                               for t in c.children) \
            or not any(t.i > c.i and t.dep_ not in ("punct", "cc", "conj") for t in c.children):
        return None
    if any(t.dep_ == "auxpass" for t in root.children) and any(t.dep_ == "agent" for t in c.children):
        return None  # a participle that borrows the first's "was": "was recognized as X and honored as Y by Z"
        # ("Person APG honored by ..." was what its loss left)
    start = min([t for t in root.children if t.dep_ in ("aux", "auxpass", "neg") and t.i > subj[0].right_edge.i] + [root],
                key=lambda t: t.i)
    if start.i != subj[0].right_edge.i + 1:
        return None  # something stands between the subject and the verb ("He, too, was born ...")
    end = cc[-1]
    if any(t.text in ("(", ")") for t in sent.doc[start.i:end.i]) and \
            sum(t.text == "(" for t in sent.doc[start.i:end.i]) != sum(t.text == ")" for t in sent.doc[start.i:end.i]):
        return None
    return Constituent("conjunct", (Piece(start.idx, end.idx + len(end.text) + 1),), 0, end.i - start.i + 1)


_NEGATORS = frozenset("not n't never no neither nor without".split())


def negated(tok) -> bool:
    """Does ``tok`` stand in a negated clause ("never qualified for the Candidates Tournament", "did
    not play in 1990")? There a wider phrase, or one without its modifier, says more than the
    writer did, and is false: "never qualified for a competition"."""
    t = tok
    for _ in range(12):
        if any(c.dep_ == "neg" or (c.lower_ in _NEGATORS and c.dep_ in ("advmod", "neg", "det", "preconj"))
               for c in t.children):
            return True
        if t.pos_ in ("VERB", "AUX") and t.dep_ not in ("xcomp", "conj", "aux", "auxpass"):
            return False
        if t.head.i == t.i:
            return False
        t = t.head
    return False


def _name_tail(doc, comma: int, sent):
    """The last token of a proper name that runs from after the comma at ``comma`` to the
    sentence's end, with no verb or preposition in it (an appositive the parse cut loose), or None."""
    last = sent.end - 1
    while last > comma and doc[last].is_punct and doc[last].text not in ('"', "”", "'"):
        last -= 1
    tail = doc[comma + 1:last + 1]
    if not 0 < len(tail) <= 8 or not any(t.pos_ == "PROPN" for t in tail) or not tail[0].text[:1].isupper() \
            or any(t.pos_ in ("VERB", "AUX", "ADP", "SCONJ", "CCONJ", "PRON") or t.text in (",", ";", "(", ")") for t in tail):
        return None
    return doc[last]


def _loose_attr(doc, first: int, left: int, sent):
    """The last token (before the sentence's closing mark) of a noun phrase that opens at ``first``
    (just after a comma) and that the parse made a second complement of a copula whose first
    complement stands before ``left`` - an apposition cut loose from the noun before the comma -
    or None."""
    if first >= sent.end:
        return None
    head = doc[first]
    while head.head.i != head.i and head.head.i > head.i and head.dep_ not in ("attr", "appos"):
        head = head.head
    cop = head.head
    if head.dep_ != "attr" or head.left_edge.i != first or head.pos_ not in ("NOUN", "PROPN") or cop.i >= left \
            or not any(c.dep_ == "attr" and c.i < left for c in cop.children):
        return None
    last = head.right_edge
    while last.i > first and last.is_punct and last.i == sent.end - 1:
        last = doc[last.i - 1]
    return last


# adverbs that presuppose something said before them: "she is also a player", "he instead
# decided", "he had previously played", "he was elected again". Each is an adverb phrase of its
# own (a dependent of the verb), and its loss is true: the sentence says less, never more.
REFERENTIAL_ADVERBS = frozenset("also instead previously again too likewise similarly additionally".split())


def _referential_adverb(tok, sent) -> Constituent | None:
    """``tok`` as a removable referential adverb (:data:`REFERENTIAL_ADVERBS`): a one-word adverb
    phrase of a verb or predicate, inside its clause (a sentence-initial "Also," is
    ``optimizer._CONNECTIVE``'s), with the comma that sets a closing "too" off."""
    if tok.lower_ not in REFERENTIAL_ADVERBS or tok.dep_ != "advmod" or list(tok.children) \
            or tok.head.pos_ not in ("VERB", "AUX") or tok.head.dep_ in ("amod", "compound") or tok.i == sent.start:
        return None  # (not inside a noun phrase: "six previously unreleased songs", "a similarly named club")
    if negated(tok.head):
        return None  # "He never played for the team again" -> "He never played for the team" is false
    if tok.lower_ == "too" and tok.head.i > tok.i and tok.nbor(1).text != ",":
        return None  # a degree: "too little attention" ("little attention" says the opposite)
    doc = tok.doc
    prev = doc[tok.i - 1]
    nxt = doc[tok.i + 1] if tok.i + 1 < sent.end else None
    if prev.text in ("(", "-", "–", "—") or (nxt is not None and nxt.text in (")", "-", "–", "—")):
        return None
    if prev.text == ",":
        if nxt is not None and nxt.text == ",":  # "He, too, was born": both commas go
            return Constituent("adverb", (Piece(prev.idx, nxt.idx + 1),), 0, 1)
        if nxt is None or nxt.is_punct and nxt.text in ".!?;":  # "..., too."
            return Constituent("adverb", (Piece(prev.idx, tok.idx + len(tok.text)),), 0, 1)
        return None
    if nxt is not None and nxt.text == ",":
        return None  # "He was, instead, ..." with one comma: a parse of something else
    return Constituent("adverb", (Piece(tok.idx, tok.idx + len(tok.text)),), 0, 1)


# the marks of a sentence that say where a list's lost "and" may go back (``list_marks``)
LIST_CC, LIST_ITEM, LIST_STOP = "cc", "item", "stop"


@dataclass(frozen=True)
class ListMark:
    """A token that tells where a list's lost coordinator may go back (``list_marks``); offsets
    are in the sentence."""

    start: int
    end: int
    kind: str
    text: str
    # an item's comma: where the item's root word stands, and the item's first word
    root: int = -1
    first: str = ""
    # a coordinator's: where the word before it and each word that holds that one stand, and the
    # word after it ("the daughter of X and Y" coordinates inside the item "the daughter of X";
    # "at X and at Y" does not, though the parse may hang "and at Y" on "at X")
    holds: frozenset[int] = frozenset()
    after: str = ""


def list_marks(sent, base: int | None = None) -> tuple[ListMark, ...]:
    """The tokens of ``sent`` that tell where a coordinator a deletion took with a list's last items
    goes back: each "and"/"or" (``LIST_CC``), each comma that opens an item of a
    list (``LIST_ITEM``: a conjunct, an apposition to a listed noun, or a prepositional phrase after
    one with the same preposition on the same head), and what a list does not run past
    (``LIST_STOP``: a verb, another comma, a semicolon, a bracket, a colon). "She studied at X, at
    Y, Z, at W and at V." with ", Z, at W and at V" gone is "She studied at X, at Y." without them;
    with them, "at X and at Y" (the renderer reads them: the parse of a list is too often wrong - Z
    an apposition to "She", "and at V" a conjunct of "at W" - for one unit to know its list).
    Offsets count from ``base`` (the sentence's start in veil.nlp.sentence_spans, which skips the
    whitespace a parse may open a sentence with)."""
    doc = sent.doc
    base = sent.start_char if base is None else base
    out = []
    for t in sent:
        mark = None
        if t.dep_ == "cc" and t.lower_ in ("and", "or"):
            prev = doc[t.i - 1] if t.i > sent.start else t
            while prev.i > sent.start and (prev.is_punct or prev.dep_ == "appos" and prev.head.i < prev.i
                                           and doc[prev.i - 1].text == "("):
                prev = doc[prev.i - 1] if prev.is_punct else doc[prev.i - 2]  # (past a bracket: "X (1861–1929) and Y")
            holds, a = {prev.idx - base}, prev
            while a.head.i != a.i:
                if a.dep_ != "conj":  # (the head of a conjunct is the item before it, not one that holds it)
                    holds.add(a.head.idx - base)
                a = a.head
            mark = ListMark(t.idx - base, t.idx - base + len(t.text), LIST_CC, t.text, holds=frozenset(holds),
                            after=doc[t.i + 1].lower_ if t.i + 1 < sent.end else "")
        elif t.pos_ in ("VERB", "AUX") or t.text in (";", ":", "(", ")", "—", "–"):
            mark = ListMark(t.idx - base, t.idx - base + len(t.text), LIST_STOP, t.text)
        elif t.text == ",":
            kind, root = LIST_STOP, t
            if t.i + 1 < sent.end:
                nxt = root = doc[t.i + 1]
                while root.head.i != root.i and root.head.left_edge.i >= nxt.i:
                    root = root.head
                head = root.head
                listed = head.dep_ == "conj" or any(c.dep_ == "conj" for c in head.children)
                if root.dep_ == "conj" or (root.dep_ == "appos" and listed) or (
                        root.dep_ == "prep" and any(c.dep_ == "prep" and c.i < root.i and c.lower_ == root.lower_
                                                    for c in head.children)):
                    kind = LIST_ITEM
            mark = ListMark(t.idx - base, t.idx - base + len(t.text), kind, t.text, root=root.idx - base,
                            first=doc[t.i + 1].lower_ if t.i + 1 < sent.end else "")
        if mark is not None:
            out.append(mark)
    return tuple(out)


def constituents(doc, sentences: list[tuple[int, int]]) -> list[Constituent]:
    """Every removable dependent of every sentence, then the sentences themselves."""
    out: list[Constituent] = []
    seen: set[tuple[Piece, ...]] = set()
    live = nlp.live_sents(doc)  # the sentences of veil.nlp.sentence_spans
    for si, sent in enumerate(live):
        for tok in sent:
            c = _dependent(tok, sent)
            if c is None or c.pieces in seen:
                continue
            seen.add(c.pieces)
            out.append(Constituent(c.kind, c.pieces, si, c.n_tokens))
        first = _first_conjunct(sent)
        adverbs = [c for tok in sent if (c := _referential_adverb(tok, sent)) is not None]
        for c in _brackets(sent) + ([first] if first else []) + adverbs:  # whatever the parse made of it ("(born Daniel Nall)")
            if c.pieces not in seen:
                seen.add(c.pieces)
                out.append(Constituent(c.kind, c.pieces, si, c.n_tokens))
    for si, (a, b) in enumerate(sentences):
        out.append(Constituent("sentence", (Piece(a, b),), si, 0))
    return out


__all__ = ["Constituent", "Piece", "RANKING", "REFERENTIAL_ADVERBS", "REMOVABLE", "constituents", "is_ordinal"]
