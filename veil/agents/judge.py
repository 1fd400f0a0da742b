"""LLM claim judge (the paper's mu_semantic): rates each claim against the linked record on
the 3-point scale, ``k_votes`` independent queries per record (temperature > 0), majority vote
per claim.

One query rates all claims of a record at once (as the paper's prompt does), so a record costs
``k_votes`` calls and every claim gets ``k_votes`` votes. A claim missing from an answer, or
rated out of range, simply has one vote fewer.

Vote aggregation (:func:`majority`): the most frequent rating; when there is no unique one
(1/2/3, or 1/3 with a vote missing) the LOWER median, i.e. the more conservative reading for
an auditor (more leakage). A claim with no valid vote at all is rated 3 and flagged
``"no_votes": True`` (the judge could not say; counted as not leaked, reported).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from veil.llm import LLMClient, LLMSettings
from veil.prompts import render


class ClaimRating(BaseModel):
    claim_index: int
    evidence: str = Field(description="short quote of the passage, empty if unsupported")
    rating: int = Field(description="1 same information, 2 different but similar, 3 unsupported")


class ClaimRatings(BaseModel):
    ratings: list[ClaimRating]


def majority(votes: list[int]) -> int:
    """Mode of the votes; ties -> lower median (more conservative: more leakage); none -> 3."""
    votes = [v for v in votes if v in (1, 2, 3)]
    if not votes:
        return 3
    counts = Counter(votes).most_common()
    if len(counts) == 1 or counts[0][1] > counts[1][1]:
        return counts[0][0]
    s = sorted(votes)
    return s[(len(s) - 1) // 2]


def rating_to_privacy(rating: int) -> float:
    """The paper's normalisation: 1 (same) -> 0.0, 2 (similar) -> 0.5, 3 (unsupported) -> 1.0."""
    if rating not in (1, 2, 3):
        raise ValueError(f"rating must be 1, 2 or 3, not {rating!r}")
    return (rating - 1) / 2


class LLMJudge:
    name = "llm"

    def __init__(
        self,
        client: LLMClient | LLMSettings | None = None,
        *,
        k_votes: int = 3,
        temperature: float = 0.7,
        concurrency: int = 8,
    ):
        self.client = client if isinstance(client, LLMClient) else LLMClient(client)
        self.votes = k_votes
        self.temperature = temperature
        self._sem = asyncio.Semaphore(concurrency)
        self._corpus: list[str] = []

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name, "votes": self.votes, "temperature": self.temperature,
            "model": self.client.settings.model, "tie_rule": "lower median (more conservative)",
        }

    def prepare(self, sanitized: list[str]) -> None:
        self._corpus = list(sanitized)

    async def _vote(self, claims: list[str], passage: str) -> dict[int, tuple[int, str]]:
        listing = "\n".join(f"{i}. {c}" for i, c in enumerate(claims))
        async with self._sem:
            answer, _ = await self.client.structured(
                render("audit", "judge", passage=passage, claims=listing),
                ClaimRatings,
                agent="judge",
                temperature=self.temperature,
            )
        out: dict[int, tuple[int, str]] = {}
        for r in answer.ratings:
            if 0 <= r.claim_index < len(claims) and r.rating in (1, 2, 3) and r.claim_index not in out:
                out[r.claim_index] = (r.rating, r.evidence)
        return out

    async def judge_record(self, claims: list[str], record: int) -> list[dict[str, Any]]:
        if not claims:
            return []
        passage = self._corpus[record]
        ballots = await asyncio.gather(*(self._vote(claims, passage) for _ in range(self.votes)))
        verdicts = []
        for i in range(len(claims)):
            votes = [b[i][0] for b in ballots if i in b]
            rating = majority(votes)
            evidence = next((b[i][1] for b in ballots if i in b and b[i][0] == rating), "")
            v: dict[str, Any] = {"rating": rating, "votes": votes, "evidence": evidence}
            if not votes:
                v["no_votes"] = True
            verdicts.append(v)
        return verdicts

    async def judge(self, jobs: list[tuple[list[str], int]]) -> list[list[dict[str, Any]]]:
        return list(await asyncio.gather(*(self.judge_record(c, r) for c, r in jobs)))

    async def aclose(self) -> None:
        await self.client.aclose()
