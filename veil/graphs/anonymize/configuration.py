"""Per-call configuration of the anonymize graph (read from the runtime context by nodes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from veil.documents import Profile

if TYPE_CHECKING:
    from veil.agents import Engine
    from veil.agents.batch import Batch
    from veil.memory.store import MemoryStore

DEFAULT_K = {"identity": 10, "attributes": 3, "generic": 3}


class RunOptions(BaseModel):
    """Every option of an anonymization run, declared once with its default and its doc: the
    CLI's flags are generated from these fields (:func:`veil.cli.common.add_run_options`), the
    server's ``veil`` / ``options`` object extends this model, and :meth:`config` is the one
    place that turns them into the graph's :class:`AnonymizeConfig` (applying the profile rule).
    ``None`` means "the default that depends on the profile"."""

    model_config = ConfigDict(extra="forbid")

    profile: Profile | None = Field(default=None, description="what to protect: identity (a name), attributes "
                                    "(a profile's values) or generic; default: identity when a name is given, "
                                    "attributes when attributes are, else generic")
    k: int | None = Field(default=None, ge=1, le=100,
                          description="attacker's top-K (default 10 for identity, 3 otherwise)")
    p_max: int | None = Field(default=None, ge=1, le=101,
                              description="privacy target: the rank the truth must reach (default K)")
    u_target: float = Field(default=0.9, ge=0.0, le=1.0, description="utility target in [0, 1]")
    max_iterations: int = Field(default=5, ge=0, le=50, description="optimizer edits at most")
    memory_window: int = Field(default=3, ge=0, le=50, description="earlier iterations the optimizer sees")
    time_budget: float | None = Field(default=None, gt=0, le=86400,
                                      description="seconds one document may take (wall clock, from its start); "
                                      "once spent, its loop stops after the iteration in flight and keeps its best "
                                      "version (stop: time_budget); default: no limit")

    def config(self, *, has_name: bool = False, has_attributes: bool = False) -> "AnonymizeConfig":
        """The graph's configuration. The profile rule lives here and nowhere else."""
        profile = self.profile or ("identity" if has_name else "attributes" if has_attributes else "generic")
        return AnonymizeConfig(**{**self.model_dump(include=set(RunOptions.model_fields)), "profile": profile})


class AnonymizeConfig(RunOptions):
    """The resolved options one graph run reads from its runtime context (profile, K and p_max
    filled in). Built by :meth:`RunOptions.config`; the defaults are RunOptions'."""

    profile: Profile = "identity"

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
