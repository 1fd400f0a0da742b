"""Per-call configuration of the anonymize graph (read from the runtime context by nodes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, model_validator

from veil.documents import Profile

if TYPE_CHECKING:
    from veil.agents import Engine
    from veil.agents.batch import Batch
    from veil.memory.store import MemoryStore

DEFAULT_K = {"identity": 10, "attributes": 3, "generic": 3}


class AnonymizeConfig(BaseModel):
    """What a caller may set per call (CLI flags, the API's ``veil`` object)."""

    profile: Profile = "identity"
    k: int | None = Field(default=None, ge=1, le=100, description="attacker's top-K; default 10 identity, 3 attributes")
    p_max: int | None = Field(default=None, ge=1, le=101, description="privacy target (rank); default K")
    u_target: float = Field(default=0.9, ge=0.0, le=1.0, description="utility target in [0,1]")
    max_iterations: int = Field(default=5, ge=0, le=50, description="optimizer edits at most")
    memory_window: int = Field(default=3, ge=0, le=50, description="earlier iterations the optimizer sees")

    @model_validator(mode="after")
    def _defaults(self) -> "AnonymizeConfig":
        if self.k is None:
            self.k = DEFAULT_K[self.profile]
        if self.p_max is None:
            self.p_max = self.k
        # p_max = K + 1 would demand "never guessed at all"; more than that is unreachable
        self.p_max = min(self.p_max, self.k + 1)
        return self


@dataclass
class AnonymizeContext:
    """Runtime context of one graph invocation: the agents, the batch they were prepared with
    (every agent call gets it: the agents keep no per-batch state), the memory and the settings."""

    engine: "Engine"
    memory: "MemoryStore"
    batch: "Batch"
    config: AnonymizeConfig = field(default_factory=AnonymizeConfig)
