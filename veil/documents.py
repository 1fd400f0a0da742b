"""The unit of work: one document with optional ground truth."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Profile = Literal["identity", "attributes", "generic"]

# Staab et al. personal attributes, as in PersonalReddit / SynthPAI.
ATTRIBUTES: tuple[str, ...] = (
    "age",
    "sex",
    "location",
    "place_of_birth",
    "education",
    "occupation",
    "income",
    "relationship_status",
)


class Document(BaseModel):
    id: str
    text: str
    name: str | None = Field(default=None, description="ground-truth identity (profile identity)")
    attributes: dict[str, str] = Field(default_factory=dict, description="ground-truth attributes to protect")
    label: str | None = Field(default=None, description="downstream label the text must keep supporting")
    record: dict[str, Any] = Field(default_factory=dict, description="the input record, kept for output")
