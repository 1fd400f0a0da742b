"""LLM atomizer: one record -> a list of atomic claims (prompt ``veil/prompts/audit/atomizer``)."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from veil.llm import LLMClient, LLMSettings
from veil.prompts import render


class AtomicClaims(BaseModel):
    claims: list[str] = Field(description="atomic claims about the person, in the order of the text")


class LLMAtomizer:
    name = "llm"

    def __init__(self, client: LLMClient | LLMSettings | None = None, *, concurrency: int = 8):
        self.client = client if isinstance(client, LLMClient) else LLMClient(client)
        self._sem = asyncio.Semaphore(concurrency)

    async def atomize_one(self, text: str) -> list[str]:
        async with self._sem:
            answer, _ = await self.client.structured(
                render("audit", "atomizer", text=text), AtomicClaims, agent="atomizer"
            )
        seen: set[str] = set()
        out = []
        for c in answer.claims:
            c = " ".join(c.split())
            if c and c.lower() not in seen:
                seen.add(c.lower())
                out.append(c)
        return out

    async def atomize(self, texts: list[str]) -> list[list[str]]:
        return list(await asyncio.gather(*(self.atomize_one(t) for t in texts)))

    async def aclose(self) -> None:
        await self.client.aclose()
