"""Literal identifiers: the ground-truth name (or any distinctive part of it) and the protected
attribute values, still written in a text.

They decide before any model does (issue 12): a text that still names the person is
re-identified at rank 1 whatever the attacker guessed, and the LLM engine's optimizer removes
them deterministically, the way the embedded engine does: the subject's name becomes the role
noun ("the photographer", :func:`veil.agents.local.generalize.role_noun`) or "the person";
an attribute value left in an answer becomes a ``[attribute]`` placeholder.

Names are matched part by part (a surname alone names the person); attribute values (the whole
value and, for "Lyon, France", its most specific part) with :func:`veil.matching.matches`, the
tolerant matcher the P-Evaluator scores guesses with.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from veil.matching import fold, matches

# honorifics and titles written before a name ("Chef Clyde Serda" became "Chef the chef")
_HONORIFIC = (r"(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Sir|Dame|Lord|Lady|Rev|Reverend|Chef|Coach|Capt|Captain|"
              r"Col|Colonel|Gen|General|Judge|Justice|Sen|Senator|Gov|Governor|President|Rabbi|Bishop)\.?\s+)")
_NAME_STOP = frozenset("the a an of and de la le von van der den du di da del della y jr sr ii iii mr mrs ms dr sir".split())
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d+")


def _ascii(text: str) -> str:
    """Diacritics removed, one character for one character where possible (offsets kept when
    the text has no multi-code-point letters; callers check lengths)."""
    out = unicodedata.normalize("NFKD", text)
    return "".join(c for c in out if not unicodedata.combining(c))


def name_parts(name: str) -> list[str]:
    """The distinctive parts of a name: every word of 3+ letters that is not a particle or an
    honorific, and the halves of a hyphenated one ("Jean-Baptiste" -> also "Jean", "Baptiste")."""
    parts: list[str] = []
    for w in re.findall(r"[^\W\d_][\w'’-]*", name):
        w = re.sub(r"['’]s$", "", w)
        for p in [w, *w.split("-")] if "-" in w else [w]:
            if len(p) >= 3 and fold(p) not in _NAME_STOP and p not in parts:
                parts.append(p)
    return parts


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    target: str  # "identity" or the attribute's name
    what: str  # the identifier matched (the known value, never the text around it)


# what may stand between two parts of one written name: initials, up to three middle names, a
# quoted nickname ("Ross Dan Hutchins", "Jacques \"Toto\" Brugnon" for "Ross Hutchins",
# "Jacques Brugnon"): one mention, so the name becomes one role noun, not "The tennis player Dan
# the tennis player"
# the lowercase particles of a surname ("Jan de Groot", "Ludwig van Beethoven")
NAME_PARTICLE = r"(?:de|van|von|der|den|da|di|del|della|du|la|le|dos|das|ter|ten|bin|ibn|al)"
# a quoted nickname (with the data's escaped quotes too); NICKNAME also a bracketed one between
# parts of a known name ("Johannes Hendrikus (Hein) Donner"), which alone says nothing
# ("Real Madrid (Spain) Career" is no name)
QUOTED_NICKNAME = r"(?:\\?[\"“][^\"”\n]{1,30}?\\?[\"”]|(?<![\w'’])['‘][A-Z][^'’\n]{0,28}?['’](?![\w'’]))"
NICKNAME = rf"(?:{QUOTED_NICKNAME}|\([A-Z][a-z][\w'’-]*\))"
# honours and fellowships written after a name ("John Alfred Leach MBE", "Sir Charles Inglis, OBE, FRS"):
# part of the name's mention, and as identifying as the name
POSTNOMINALS = re.compile(r"(?:,?\s+(?:MBE|OBE|CBE|KBE|DBE|GBE|GCMG|GCB|GCVO|GCSI|GCIE|KCSI|KCIE|CIE|CSI|MVO|LVO|DCM|"
                          r"KCB|KCMG|KCVO|CB|CMG|CVO|FRS|FRSE|FREng|FBA|FRCP|FRCS|"
                          r"FRSA|FRAeS|RA|QC|KC|VC|GC|DSO|DFC|MC|OM|CH|AO|AC|DSc|PhD|Ph\.D\.|"
                          # degrees and professional fellowships ("John Holmes Jellett OBE, DSc, MA" left "He, MA")
                          r"MA|MSc|BSc|BA|MD|LLD|LLB|DPhil|MPhil|DD|MP|FICE|FIMechE|FIEE|FRIBA|FRCO|FRAS|FGS|FLS|FZS|"
                          # Canadian and Australian orders, fellowships ("Maxwell Freeman Yalden, CC" left "He, an organization")
                          r"CC|OC|CM|CQ|OOnt|OBC|AOE|SOM|ONL|PC|OAM|FRSC|FAIA|FRACP|FRCPC|FRCSC|FMedSci|"
                          # Portuguese orders ("Fátima Lopes, ComIH" left "She, an organization")
                          r"(?:Com|GO|GC)(?:IH|C|SE|M|L|A|TE|MAI|IP|PI|IM|ME))(?![\w])"
                          r"(?![ \t]*\d)"  # (", MA 02139": a state and its ZIP code)
                          r"(?![ \t]+[A-Z][a-z]))+")  # not "John Smith, AC Milan coach"
# a whole name written with a nickname: 'Clarence Leonard "Kelly" Johnson', 'Andreas Nikolaus "Niki" Lauda, Jr.'
# (the bracketed form only as a whole written name before its bracket, comma or verb:
# "Johannes Hendrikus (Hein) Donner (July 6, 1927", never "Real Madrid (Spain) Career")
NICKNAMED = re.compile(rf"(?<![\w'’])(?:[A-Z][\w'’-]*\.?[ \t]+){{1,4}}{QUOTED_NICKNAME}[ \t]+"
                       rf"(?:{NAME_PARTICLE}[ \t]+)*(?:[A-Z][\w'’-]+[ \t]+){{0,2}}(?!(?:Jr|Sr)\b)[A-Z][\w'’-]+(?:,?[ \t]+(?:Jr|Sr)\.?)?"
                       r"|(?<![\w'’])(?:[A-Z][\w'’-]*[ \t]+){2,3}\([A-Z][a-z][\w'’-]*\)[ \t]+[A-Z][\w'’-]+"
                       r"(?=[ \t]*[(,]|[ \t]+(?:is|was|were)\b)")
NAME_GAP = re.compile(rf"\s+(?:(?:[A-Z]\.|[A-Z][^\W\d_][\w'’-]*|{NICKNAME}|{NAME_PARTICLE})\s+){{0,3}}")


def _name_mentions(text: str, name: str) -> list[Mention]:
    """Capitalised mentions of the name's parts; neighbouring parts (with initials, middle names
    or a quoted nickname between, or an honorific before) merge into one mention."""
    plain = _ascii(text)
    if len(plain) != len(text):  # offsets would drift: match on the text itself
        plain = text
    hits: list[tuple[int, int]] = []
    for part in name_parts(name):
        p = _ascii(part)
        for m in re.finditer(rf"(?<![\w'’-]){re.escape(p)}(?![\w-])", plain, re.I):
            if plain[m.start()].isupper():
                hits.append((m.start(), m.end()))
    if not hits:
        return []
    hits.sort()
    merged: list[list[int]] = []
    for s, e in hits:
        if merged and (s <= merged[-1][1] or NAME_GAP.fullmatch(text[merged[-1][1]:s] or "x")):
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    out = []
    for s, e in merged:
        h = re.search(_HONORIFIC + r"$", text[max(0, s - 12):s])
        if h:
            s -= len(h.group(0))
        out.append(Mention(s, e, "identity", name))
    return out


def _attribute_mentions(text: str, attribute: str, value: str, max_extra: int = 1) -> list[Mention]:
    """The smallest word windows that the tolerant matcher takes for ``value``."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    n_value = max(1, len(value.split()))
    taken: list[tuple[int, int]] = []
    for n in range(1, n_value + max_extra + 1):
        for i in range(0, len(words) - n + 1):
            s, e = words[i][0], words[i + n - 1][1]
            if any(s < te and ts < e for ts, te in taken):
                continue
            if matches(text[s:e], value):
                taken.append((s, e))
    return [Mention(s, e, attribute, value) for s, e in sorted(taken)]


def find(text: str, name: str | None, attributes: dict[str, str] | None = None) -> list[Mention]:
    """Every literal identifier in ``text``, in order."""
    out: list[Mention] = []
    if name:
        out += _name_mentions(text, name)
    for attr, value in (attributes or {}).items():
        # "Lyon, France": the whole value, and its most specific part ("Lyon") on its own
        head = value.split(",")[0].strip() if "," in value else ""
        for v in (value, head):
            if v and len(fold(v)) >= 3:
                out += [m for m in _attribute_mentions(text, attr, v)
                        if not any(m.start < o.end and o.start < m.end for o in out)]
    return sorted(out, key=lambda m: m.start)


def _sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip(" \t\"'“(")
    return not before or before[-1] in ".!?\n:"


def role_said_beside(text: str, start: int, end: int, noun: str, sentence: tuple[int, int] | None = None) -> bool:
    """Does the sentence holding the mention ``text[start:end]`` (``sentence``: its bounds, else
    found with the project's sentence splitter) say the role noun's head outside the mention
    ("X is a German chef")? Where it does, the mention becomes "this person", not the role noun."""
    from veil import nlp  # the project's one sentence splitter and tokenizer
    from veil.agents.local.retrieval import tokenize

    head = (tokenize(noun) or [""])[-1]
    if sentence is None:
        sentence = next(((a, b) for a, b in nlp.sentence_spans(nlp.parse(text, light=True)) if a <= start < b), None)
        if sentence is None:
            return False
    a, b = sentence
    return head in tokenize(text[a:start]) + tokenize(text[end:b])


def subject_noun(label: str | None) -> str:
    """What the subject's name becomes: the role noun of the label, else "the person"."""
    if label and label.strip():
        from veil.agents.local.generalize import role_noun  # the embedded engine's wording

        return role_noun(label)
    return "the person"


def scrub(text: str, name: str | None, attributes: dict[str, str] | None = None, *, label: str | None = None,
          include_attributes: bool = True) -> tuple[str, list[dict[str, str]]]:
    """``text`` with its literal identifiers replaced, and the edits made (as
    :class:`~veil.agents.base.Edit` dicts)."""
    mentions = find(text, name, attributes if include_attributes else None)
    if not mentions:
        return text, []
    noun = subject_noun(label)
    out, edits, pos = [], [], 0
    for m in mentions:
        if m.target == "identity":
            # "this person" where the mention's own sentence says the role ("The chef (born 1952)
            # is a chef" read as a tautology)
            said = noun != "the person" and role_said_beside(text, m.start, m.end, noun)
            repl = "this person" if said else noun
            repl = repl[0].upper() + repl[1:] if _sentence_start(text, m.start) else repl
            reason = "the subject's name is a literal identifier"
        else:
            repl = f"[{m.target.replace('_', ' ')}]"
            reason = f"the protected {m.target.replace('_', ' ')} is written in the text"
        out.append(text[pos:m.start])
        out.append(repl)
        edits.append({"before": text[m.start:m.end], "after": repl, "operation": "obscure", "reason": reason})
        pos = m.end
    out.append(text[pos:])
    new = "".join(out)
    new = re.sub(r"\b(the|a|an) (the|a|an) ", lambda g: g.group(2) + " ", new, flags=re.I)  # "a the photographer"
    return new, edits


__all__ = ["Mention", "find", "name_parts", "role_said_beside", "scrub", "subject_noun"]
