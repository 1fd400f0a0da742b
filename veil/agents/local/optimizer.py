"""Local optimizer: attack-driven, truthful generalization (INTACT + GreedySanitize, no LLM).

Privacy mode:
1. always: names become consistent pseudonyms / role nouns (same replacement for every mention
   across the batch), contact details and ids become placeholders, deny-listed terms go;
2. then, while the simulated attacker still finds the person (rank <= p_max), the text
   units that help it most (spans with their generalization ladders; clue words outside
   spans) are edited, each with the MOST SPECIFIC candidate that takes away (nearly) as much of
   the attacker's score as the most general one would — the attack is re-run per candidate;
3. when no unit is left and the attacker still wins, the sentence that helps it most is
   deleted (NAP²'s delete), never the last one.
Utility mode: every edit whose undoing keeps the attacker beyond p_max is undone (edits the
privacy target does not need only cost utility); names and contact details stay replaced.
Label words (the downstream task's) and allow-listed terms are never touched.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from veil.agents.base import Edit, MemoryEntry, Mode, Optimizer, OptimizerResult, PrivacyResult, Task, UtilityResult
from veil.agents.local.generalize import GeneralizeContext, apply, candidates
from veil.agents.local.p_evaluator import LocalPrivacyEvaluator, fast_rank
from veil.agents.local.retrieval import tokenize
from veil.agents.local.spans import Span, deny_spans, find_spans
from veil.agents.local.world import LocalWorld, sentences

ALWAYS = {"PERSON", "EMAIL", "PHONE", "URL", "ID", "DENY"}
_CLAUSE = re.compile(r"[^,;:.()!?\n]+")
_TOKEN = re.compile(r"\w\w+")


def _token_positions(seg: str, offset: int) -> list[tuple[str, tuple[int, int]]]:
    out = []
    for m in _TOKEN.finditer(seg):
        toks = tokenize(m.group(0))
        if toks:
            out.append((toks[0], (offset + m.start(), offset + m.end())))
    return out


def _word_positions(seg: str, offset: int, term: str) -> list[tuple[int, int]]:
    return [span for t, span in _token_positions(seg, offset) if t == term]
_WS = re.compile(r"[ \t]{2,}")
_SPACE_PUNCT = re.compile(r"\s+([,.;:)])")
_EMPTY_PUNCT = re.compile(r"([,;:])\s*(?=[,.;:])|\(\s*\)")


def tidy(text: str) -> str:
    text = _EMPTY_PUNCT.sub("", text)
    text = _SPACE_PUNCT.sub(r"\1", text)
    return _WS.sub(" ", text).strip()


@dataclass
class Unit:
    span: Span
    weight: float
    ladder: list[str]


class LocalOptimizer(Optimizer):
    engine = "local"

    def __init__(self, world: LocalWorld, evaluator: LocalPrivacyEvaluator, *, max_rounds: int = 12,
                 keep_ratio: float = 0.9, max_sentence_deletions: int = 6):
        self.world = world
        self.evaluator = evaluator
        self.max_rounds = max_rounds
        self.keep_ratio = keep_ratio
        self.max_sentence_deletions = max_sentence_deletions

    # -- helpers ---------------------------------------------------------------------------
    def _ctx(self, task: Task) -> GeneralizeContext:
        return GeneralizeContext(
            doc_id=task.doc_id, pseudonyms=self.world.pseudonyms, role=_role(task),
            allow=set(self.world.allow), deny=set(self.world.deny),
        )

    def _protected(self, task: Task) -> set[str]:
        """Tokens never edited: the label's words (and their stems) and allow-listed terms."""
        words = set(tokenize(task.label or ""))
        for term in self.world.allow:
            words |= set(tokenize(term))
        return words

    @staticmethod
    def _is_protected(token: str, protected: set[str]) -> bool:
        return any(token == p or (len(p) >= 5 and token[:5] == p[:5]) for p in protected)

    def _score_total(self, text: str, task: Task) -> float:
        attack = self.evaluator.link_attack(task)
        if attack is None:
            w = self.world
            truth = w.candidate_index(task.doc_id, task.name)
            if truth is None or w.pop_pool is None:
                return 0.0
            return w.pop_pool.score_doc(tokenize(text), w.pop_pool.tokens[truth])
        pool = self.world.release_pool
        toks = Counter(tokenize(text))
        return sum(pool.score_doc(q, toks) for q in attack.queries)  # type: ignore[union-attr]

    # -- privacy ---------------------------------------------------------------------------
    def _mandatory(self, text: str, task: Task, ctx: GeneralizeContext) -> tuple[str, list[Edit]]:
        spans = [s for s in find_spans(text) if s.type in ALWAYS] + list(deny_spans(text, self.world.deny))
        spans += _name_mentions(text, task.name, spans)
        chosen: list[tuple[Span, str]] = []
        edits: list[Edit] = []
        taken: list[tuple[int, int]] = []
        for s in sorted(spans, key=lambda s: (s.start, -(s.end - s.start))):
            if any(s.start < e and b < s.end for b, e in taken):
                continue
            if s.text.lower() in {a.lower() for a in self.world.allow}:
                continue
            if s.type == "DENY":
                repl = "[redacted]"
            else:
                ladder = candidates(s, ctx=ctx)
                if not ladder:
                    continue
                repl = ladder[0]
            chosen.append((s, repl))
            taken.append((s.start, s.end))
            edits.append(Edit(before=s.text, after=repl, operation="obscure" if s.type != "PERSON" else "generalize",
                              reason=f"{s.type.lower()} is always replaced"))
        return (tidy(apply(text, chosen)) if chosen else text), edits

    def _units(self, text: str, task: Task, ctx: GeneralizeContext, weights: Counter, protected: set[str]) -> list[Unit]:
        """Edit units, most useful first: spans (with their ladders) and, for clue words outside
        spans, the clause around them (deleting a clause reads better than dropping a word).
        Priority = the attacker's weight on the unit / the content words it holds (GreedySanitize's
        gain against the cost of what is withheld)."""
        spans = find_spans(text)
        units: list[Unit] = []
        covered = [(s.start, s.end) for s in spans]
        for s in spans:
            toks = tokenize(s.text)
            if not toks or all(self._is_protected(t, protected) for t in toks):
                continue
            w = sum(weights.get(t, 0.0) for t in set(toks))
            if w > 0:
                units.append(Unit(span=s, weight=w / len(toks), ladder=candidates(s, ctx=ctx)))
        for m in _CLAUSE.finditer(text):
            start, end = m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m.end() - (len(m.group(0)) - len(m.group(0).rstrip()))
            if end <= start:
                continue
            seg = text[start:end]
            toks = tokenize(seg)
            # weight of the clause's words outside spans: what the span edits cannot reach
            outside = [t for t, (a, b) in _token_positions(seg, start) if not any(a < e and x < b for x, e in covered)]
            w = sum(weights.get(t, 0.0) for t in set(outside))
            if w <= 0 or not toks:
                continue
            if any(self._is_protected(t, protected) for t in toks):
                # the clause carries the task's words: drop only the clue words themselves
                for t in set(outside):
                    if weights.get(t, 0.0) <= 0 or self._is_protected(t, protected):
                        continue
                    for a, b in _word_positions(seg, start, t):
                        units.append(Unit(span=Span(a, b, text[a:b], "WORD", 1.0, "attack:clue", {}),
                                          weight=weights[t] / 2, ladder=[]))
                continue
            units.append(Unit(span=Span(start, end, seg, "CLAUSE", 1.0, "attack:clause", {}), weight=w / len(toks),
                              ladder=[]))
        units.sort(key=lambda u: -u.weight)
        return units

    def _choose(self, text: str, unit: Unit, task: Task, base: float) -> str | None:
        """The most specific candidate that removes (nearly) as much attack score as deleting
        the unit would; None if even deleting it does not help."""
        options = unit.ladder + [""]
        scores = [self._score_total(apply(text, [(unit.span, c)]), task) for c in options]
        best_gain = base - min(scores)
        if best_gain <= 1e-6:
            return None
        for cand, s in zip(options, scores):
            if base - s >= self.keep_ratio * best_gain:
                return cand
        return options[-1]

    def _privacy(self, text: str, task: Task) -> tuple[str, list[Edit]]:
        ctx = self._ctx(task)
        protected = self._protected(task)
        given = text
        start_rank, _ = fast_rank(self.evaluator, text, task)
        text, edits = self._mandatory(text, task, ctx)
        mandatory_edits = len(edits)
        p_max = task.p_max
        for _ in range(self.max_rounds):
            rank, weights = fast_rank(self.evaluator, text, task)
            if rank > p_max or not weights:
                break
            units = self._units(text, task, ctx, weights, protected)
            if not units:
                break
            base = self._score_total(text, task)
            chosen: list[tuple[Span, str]] = []
            taken: list[tuple[int, int]] = []
            for u in units[:8]:
                if any(u.span.start < e and b < u.span.end for b, e in taken):
                    continue
                c = self._choose(text, u, task, base)
                if c is None:
                    continue
                chosen.append((u.span, c))
                taken.append((u.span.start, u.span.end))
                op = "delete" if c == "" else "generalize"
                edits.append(Edit(before=u.span.text, after=c, operation=op,
                                  reason=f"helps the linking attack ({u.span.type.lower()}, weight {u.weight:.1f})"))
            if not chosen:
                break
            text = tidy(apply(text, chosen))
        # last resort: delete the sentence that helps the attacker most
        for _ in range(self.max_sentence_deletions):
            rank, weights = fast_rank(self.evaluator, text, task)
            sents = sentences(text)
            if rank > p_max or len(sents) <= 1 or not weights:
                break
            scored = [(sum(weights.get(t, 0.0) for t in set(tokenize(s))), i) for i, s in enumerate(sents)]
            w, i = max(scored)
            if w <= 0:
                break
            edits.append(Edit(before=sents[i], after="", operation="delete", reason="no truthful generalization defeats the attack"))
            text = " ".join(s for j, s in enumerate(sents) if j != i)
        end_rank, _ = fast_rank(self.evaluator, text, task)
        if not mandatory_edits and end_rank <= start_rank:
            return given, []  # nothing left that helps: say so, the graph stops on no change
        return text, edits

    # -- utility ---------------------------------------------------------------------------
    def _utility(self, text: str, task: Task) -> tuple[str, list[Edit]]:
        original = task.original
        never = {s.text for s in find_spans(original) if s.type in ALWAYS} | set(self.world.deny)
        name_toks = set(tokenize(task.name or ""))
        a, b = re.findall(r"\S+|\s+", original), re.findall(r"\S+|\s+", text)
        hunks = [op for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op[0] != "equal"]
        # biggest restorations first
        hunks.sort(key=lambda h: -(h[2] - h[1]))
        current = list(b)
        offset_map = list(range(len(b) + 1))  # b index -> current index (monotone, updated on revert)
        edits: list[Edit] = []
        for tag, i1, i2, j1, j2 in hunks:
            before = "".join(a[i1:i2])
            if any(n and n in before for n in never) or (name_toks & set(tokenize(before))):
                continue
            s, e = offset_map[j1], offset_map[j2]
            trial = current[:s] + a[i1:i2] + current[e:]
            rank, _ = fast_rank(self.evaluator, "".join(trial), task)
            if rank <= task.p_max:
                continue
            edits.append(Edit(before="".join(current[s:e]), after=before, operation="restore",
                              reason="not needed for the privacy target"))
            delta = (i2 - i1) - (e - s)
            current = trial
            offset_map = [x if x <= s else x + delta for x in offset_map]
        return tidy("".join(current)), edits

    async def optimize(self, text: str, task: Task, mode: Mode, privacy: PrivacyResult, utility: UtilityResult,
                       memory: list[MemoryEntry]) -> OptimizerResult:
        if mode == "privacy":
            new, edits = self._privacy(text, task)
        else:
            new, edits = self._utility(text, task)
        return OptimizerResult(text=new, edits=edits, rationale=f"{len(edits)} edits in {mode} mode")


def _role(task: Task) -> str | None:
    return task.label.lower() if task.label else None


def _name_mentions(text: str, name: str | None, spans: list[Span]) -> list[Span]:
    """Mentions of the ground-truth name's parts the span finder missed ("Kurt", "Fishback")."""
    if not name:
        return []
    out = []
    parts = [p for p in re.findall(r"[A-Z][\w'-]+", name) if len(p) > 2]
    for p in parts:
        for m in re.finditer(rf"(?<!\w){re.escape(p)}(?:'s)?(?!\w)", text):
            if not any(m.start() < s.end and s.start < m.end() for s in spans):
                out.append(Span(m.start(), m.end(), m.group(0), "PERSON", 0.9, "ground-truth name", {}))
    return out
