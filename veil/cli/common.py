"""Flags shared by several sub-commands (engine, LLM endpoint, database)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from veil.errors import UserInputError
from veil.llm import LLMSettings


def add_llm_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("LLM endpoint (OpenAI-compatible, e.g. `vllm serve MODEL`)")
    g.add_argument("--base-url", help="default: $VEIL_LLM_BASE_URL or http://127.0.0.1:8000/v1")
    g.add_argument("--model", help="model name served by the endpoint (default: $VEIL_LLM_MODEL)")
    g.add_argument("--api-key", help="default: $VEIL_LLM_API_KEY or $OPENAI_API_KEY")
    g.add_argument("--llm-timeout", type=float, help="seconds per LLM call (default 60)")


def add_engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--engine",
        choices=["local", "llm"],
        default=os.environ.get("VEIL_ENGINE", "local"),
        help="local: embedded LLM-free engine (default); llm: agents on an OpenAI-compatible endpoint",
    )
    add_llm_args(p)
    g = p.add_argument_group("embedded engine")
    g.add_argument("--population", type=Path, help="JSONL knowledge base of candidates (name + public text) for the attack")
    g.add_argument("--population-name-field", default="name")
    g.add_argument("--population-text-field", default="text")
    g.add_argument("--train", type=Path, help="JSONL of labelled texts for the utility classifier")
    g.add_argument("--allow", action="append", default=[], help="term never to change (repeatable)")
    g.add_argument("--deny", action="append", default=[], help="term always to remove (repeatable)")


def add_db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, help="memory database (default: $VEIL_HOME/veil.db, VEIL_HOME=~/.veil)")


def llm_settings(args: argparse.Namespace) -> LLMSettings:
    return LLMSettings.from_env(
        base_url=getattr(args, "base_url", None),
        model=getattr(args, "model", None),
        api_key=getattr(args, "api_key", None),
        timeout_s=getattr(args, "llm_timeout", None),
    )


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    for f in (args.population, args.train):
        if f is not None and not f.is_file():
            raise UserInputError(f"{f}: no such file")
    return {
        "population_path": args.population,
        "population_name_field": args.population_name_field,
        "population_text_field": args.population_text_field,
        "train_path": args.train,
        "allow": list(args.allow),
        "deny": list(args.deny),
    }
