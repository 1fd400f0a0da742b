"""Prompt templates are data: ``veil/prompts/<set>/<agent>.system.md`` and
``<agent>.user.md`` (f-string placeholders ``{text}``). Sets: ``identity``, ``attributes``,
``generic`` (task profiles of the anonymize graph) and ``audit``. A set may omit a file; the
``generic`` set is the fallback. Rendered with langchain-core's ChatPromptTemplate and handed to
the OpenAI client as plain role/content dicts."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from langchain_core.prompts import ChatPromptTemplate

FALLBACK = "generic"


def _read(prompt_set: str, name: str) -> str | None:
    f = resources.files("veil.prompts").joinpath(prompt_set, name)
    return f.read_text(encoding="utf-8") if f.is_file() else None


@lru_cache(maxsize=None)
def template(prompt_set: str, agent: str) -> ChatPromptTemplate:
    parts = []
    for role in ("system", "user"):
        body = _read(prompt_set, f"{agent}.{role}.md")
        if body is None and prompt_set != FALLBACK:
            body = _read(FALLBACK, f"{agent}.{role}.md")
        if body is not None:
            parts.append((role if role == "system" else "human", body))
    if not parts:
        raise FileNotFoundError(f"no prompt template for agent {agent!r} in set {prompt_set!r}")
    return ChatPromptTemplate.from_messages(parts)


def render(prompt_set: str, agent: str, **variables: object) -> list[dict[str, str]]:
    """Messages ready for ``chat.completions.create``."""
    msgs = template(prompt_set, agent).format_messages(**variables)
    role = {"system": "system", "human": "user", "ai": "assistant"}
    return [{"role": role[m.type], "content": str(m.content)} for m in msgs]
