"""RUPTA's evaluation metrics over an LLM attacker (``veil eval --attacker llm``), beside the
LLM-free link@rand3:

* **SR** (success rate): the attacker reads the sanitized text and chooses the person from the
  record's list of 10 candidate names (DB-bio's ``candidate_list``, the truth among 9 similar
  people); SR = share of records where it chooses the truth. Records whose list does not hold
  the truth are not scored (counted in ``skipped``).
* **CS** (confidence score): the attacker says, 0-100, how confident it is that the sanitized
  text is about the true person (by name); CS = the mean.
* **LLM link**: the attacker knows 4 facts about each of 10 candidates with the record's label
  (the record itself and 9 others, drawn per record with a seed) and chooses the candidate the
  text is about. The facts are chosen as link@rand3 chooses its auxiliary claims
  (:func:`veil.evals.linking.select_aux`, the name claim excluded, ``n=4``); with fewer than
  10 records of the label the list is filled with records of other labels
  (``same_label_candidates`` reports how many were of the label).

All three are lower-is-better. Every call goes through :class:`veil.llm.LLMClient` (structured
output in the endpoint's mode, bounded retries, per-endpoint concurrency); the answers are
bounded (a candidate number with ``maximum``, an integer 0-100). A record whose call still fails
after the retries is left out of that metric and counted in ``failed`` (its error code in
``errors``); when every call failed the first error is raised. Prompts:
``veil/prompts/eval/{success_rate,confidence,linking}``.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from typing import Any, Sequence

from pydantic import BaseModel, Field

from veil.errors import LLMError
from veil.evals.linking import select_aux
from veil.llm import LLMClient, Usage
from veil.matching import fold
from veil.prompts import render

N_CANDIDATES = 10
N_FACTS = 4
METRICS = ("success_rate", "confidence_score", "llm_link")


class CandidateChoice(BaseModel):
    candidate: int = Field(ge=1, description="the number of the chosen candidate")


class LinkConfidence(BaseModel):
    confidence: int = Field(ge=0, le=100)


_SUFFIX = re.compile(r"^(?:jr|sr|ii|iii|iv|v|phd|md)\.?$", re.IGNORECASE)


def candidate_names(value: Any) -> list[str]:
    """A candidate list as DB-bio writes it ("A, B, C", where a name may carry ", Jr."), or
    already a JSON list."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    out: list[str] = []
    for part in str(value or "").split(","):
        part = part.strip()
        if not part:
            continue
        if out and _SUFFIX.match(part):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def link_candidates(
    index: int,
    labels: Sequence[str],
    *,
    seed: int = 0,
    n: int = N_CANDIDATES,
) -> tuple[list[int], int]:
    """The records among which record ``index`` is looked for: itself and up to ``n - 1``
    others with its label, filled with records of other labels when the label has fewer; in a
    seeded random order (one draw per seed and record). Returns (records, how many share the
    label, the record itself included)."""
    rng = random.Random(f"veil-llm-link:{seed}:{index}")
    same = [j for j, lab in enumerate(labels) if lab == labels[index] and j != index]
    others = [j for j, lab in enumerate(labels) if lab != labels[index]]
    chosen = rng.sample(same, min(n - 1, len(same)))
    n_same = len(chosen) + 1
    chosen += rng.sample(others, min(n - 1 - len(chosen), len(others)))
    chosen.append(index)
    rng.shuffle(chosen)
    return chosen, n_same


def link_facts(claims: Sequence[str], record_index: int, *, seed: int = 0, exclude: str | None = "name is") -> list[str]:
    """What the attacker knows of one candidate: 4 claims chosen like link@rand3's auxiliary ones."""
    return [claims[i] for i in select_aux(claims, "random3", seed=seed, record_index=record_index,
                                          exclude=exclude, n=N_FACTS)]


def _choice_check(n: int):
    def check(answer: CandidateChoice) -> str | None:
        return None if 1 <= answer.candidate <= n else f"candidate {answer.candidate} is not one of 1-{n}"

    return check


class LLMAttacker:
    """The three metrics' calls over one client (see the module docstring)."""

    def __init__(self, client: LLMClient, *, concurrency: int = 32):
        self.client = client
        self._sem = asyncio.Semaphore(concurrency)

    async def choose(self, agent: str, messages: list[dict[str, str]], n: int) -> tuple[int, Usage]:
        """The 1-based candidate the attacker chose among ``n``."""
        async with self._sem:
            answer, usage = await self.client.structured(
                messages, CandidateChoice, agent=agent, caps={"candidate": {"maximum": n}},
                check=_choice_check(n), max_tokens=16,
            )
        return answer.candidate, usage

    async def success(self, text: str, candidates: list[str]) -> tuple[int, Usage]:
        messages = render("eval", "success_rate", text=text, candidates=_numbered(candidates))
        return await self.choose("eval_success_rate", messages, len(candidates))

    async def confidence(self, text: str, name: str) -> tuple[int, Usage]:
        messages = render("eval", "confidence", text=text, name=name)
        async with self._sem:
            answer, usage = await self.client.structured(messages, LinkConfidence, agent="eval_confidence",
                                                         max_tokens=16)
        return answer.confidence, usage

    async def link(self, text: str, facts: list[list[str]]) -> tuple[int, Usage]:
        listing = "\n".join(f"{i}. " + "; ".join(f) for i, f in enumerate(facts, 1))
        messages = render("eval", "linking", text=text, candidates=listing)
        return await self.choose("eval_linking", messages, len(facts))


async def llm_attack_metrics(
    client: LLMClient,
    sanitized: list[str],
    *,
    names: list[str] | None = None,
    candidate_lists: list[Any] | None = None,
    claims: list[list[str]] | None = None,
    labels: list[str] | None = None,
    records: Sequence[int] | None = None,
    seed: int = 0,
    exclude: str | None = "name is",
    concurrency: int = 32,
) -> dict[str, Any]:
    """SR, CS and the LLM link rate of ``sanitized`` (record i sanitizes original i). SR needs
    ``names`` and ``candidate_lists``, CS ``names``, the link ``claims`` and ``labels`` (each
    metric is None without its inputs). ``records``: the records attacked (default all; the
    link's candidates always come from every record)."""
    attacker = LLMAttacker(client, concurrency=concurrency)
    todo = list(range(len(sanitized))) if records is None else list(records)
    usage = Usage()
    outcome: dict[str, list[float]] = {m: [] for m in METRICS}
    failed: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    first_error: list[LLMError] = []
    same_label: list[int] = []

    async def run(metric: str, call, score) -> None:
        try:
            value, spent = await call
        except LLMError as e:
            failed[metric] += 1
            errors[e.code] += 1
            spent = getattr(e, "usage", None) or Usage()
            if not first_error:
                first_error.append(e)
        else:
            outcome[metric].append(score(value))
        usage.add(spent)

    jobs = []
    for i in todo:
        text = sanitized[i]
        if names is not None and candidate_lists is not None:
            cands = candidate_names(candidate_lists[i])
            truth = [k for k, c in enumerate(cands, 1) if fold(c) == fold(names[i])]
            if truth:
                jobs.append(run("success_rate", attacker.success(text, cands), lambda v, t=truth[0]: float(v == t)))
            else:
                skipped["success_rate"] += 1
        if names is not None:
            jobs.append(run("confidence_score", attacker.confidence(text, names[i]), float))
        if claims is not None and labels is not None:
            cands_idx, n_same = link_candidates(i, labels, seed=seed)
            same_label.append(n_same)
            facts = [link_facts(claims[j], j, seed=seed, exclude=exclude) for j in cands_idx]
            truth_pos = cands_idx.index(i) + 1
            jobs.append(run("llm_link", attacker.link(text, facts), lambda v, t=truth_pos: float(v == t)))
    await asyncio.gather(*jobs)
    if jobs and sum(failed.values()) == len(jobs):
        raise first_error[0]

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    return {
        "success_rate": mean(outcome["success_rate"]) if candidate_lists is not None and names is not None else None,
        "confidence_score": mean(outcome["confidence_score"]) if names is not None else None,
        "llm_link": mean(outcome["llm_link"]) if claims is not None and labels is not None else None,
        "records": len(todo),
        "answered": {m: len(outcome[m]) for m in METRICS},
        "failed": {m: failed[m] for m in METRICS},
        "skipped": {m: skipped[m] for m in METRICS},
        "errors": dict(errors),
        "same_label_candidates": (sum(same_label) / len(same_label)) if same_label else None,
        "seed": seed,
        "model": client.settings.model,
        "usage": usage.as_dict(),
    }
