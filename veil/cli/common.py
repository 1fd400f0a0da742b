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
    g.add_argument("--llm-timeout", type=float, help="seconds per LLM request, counted from its send (default 60)")
    g.add_argument("--structured-output",
                   choices=["auto", "json_schema", "json_object", "structured_outputs", "guided_json", "prompt"],
                   help="how the JSON schema is sent: json_schema (OpenAI, vLLM), json_object (llama-cpp-python), "
                        "structured_outputs (vLLM extra_body), guided_json (vLLM before 0.12 only: later versions "
                        "ignore it), prompt (schema in the prompt); default auto: probed once "
                        "per endpoint ($VEIL_LLM_STRUCTURED_OUTPUT)")
    g.add_argument("--llm-concurrency", type=int,
                   help="LLM requests in flight at once (default: 1 for a llama.cpp server, else unlimited; "
                        "$VEIL_LLM_CONCURRENCY)")


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
    g.add_argument("--policy", type=Path, help="generalization policy JSON of the local engine (default: "
                   "veil/agents/local/data/policy.json; copy it and change an operator or a level)")


def add_db_arg(p: argparse.ArgumentParser) -> None:
    from veil.memory.store import db_arg

    p.add_argument("--db", type=db_arg, metavar="PATH|postgresql://…",
                   help="memory and checkpoint database: a SQLite file (default: $VEIL_DB, else $VEIL_HOME/veil.db, "
                        "VEIL_HOME=~/.veil) or a PostgreSQL URL for many workers (the postgres extra)")


def add_store_text_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store-text", choices=["none", "hash", "full"],
                   help="what veil.db keeps of a finished run's texts (iterations, diffs, clues, edits, the protected "
                        "name): none (default; $VEIL_STORE_TEXT), hash (sha256 of each text) or full (what "
                        "`veil trace show` needs to show the edits)")


def llm_settings(args: argparse.Namespace) -> LLMSettings:
    concurrency = getattr(args, "llm_concurrency", None)
    if concurrency is not None and concurrency < 1:
        raise UserInputError("--llm-concurrency must be at least 1")
    try:
        return LLMSettings.from_env(
            base_url=getattr(args, "base_url", None),
            model=getattr(args, "model", None),
            api_key=getattr(args, "api_key", None),
            timeout_s=getattr(args, "llm_timeout", None),
            structured_output=getattr(args, "structured_output", None),
            concurrency=concurrency,
        )
    except ValueError as e:  # a bad environment value
        raise UserInputError(f"invalid LLM setting: {e}") from e


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    for f in (args.population, args.train, getattr(args, "policy", None)):
        if f is not None and not f.is_file():
            raise UserInputError(f"{f}: no such file")
    return {
        "population_path": args.population,
        "population_name_field": args.population_name_field,
        "population_text_field": args.population_text_field,
        "train_path": args.train,
        "policy_path": getattr(args, "policy", None),
        "allow": list(args.allow),
        "deny": list(args.deny),
    }


# the flags of RunOptions' fields: "--" + the field's name, except where a short form exists
_RUN_OPTION_FLAGS = {"k": ("-k", "--top-k")}


def add_run_option_args(p: argparse.ArgumentParser) -> None:
    """One flag per :class:`veil.graphs.anonymize.RunOptions` field, with its default and doc:
    the CLI never restates an option (tests/test_options.py checks it)."""
    from typing import get_args

    from veil.graphs.anonymize import RunOptions

    for name, f in RunOptions.model_fields.items():
        flags = _RUN_OPTION_FLAGS.get(name, ("--" + name.replace("_", "-"),))
        kinds = set(get_args(f.annotation)) or {f.annotation}
        kw: dict[str, Any] = {"dest": name, "default": f.default}
        if name == "profile":
            kw["choices"] = [a for k in kinds if k is not type(None) for a in get_args(k)]
        else:
            kw["type"] = float if float in kinds else int
        kw["help"] = (f.description or "") + (f" (default {f.default})" if f.default is not None else "")
        p.add_argument(*flags, **kw)


def run_options_of(args: argparse.Namespace):
    """The RunOptions the flags give (a bad value is a one-line user error naming the flag)."""
    from pydantic import ValidationError

    from veil.graphs.anonymize import RunOptions

    try:
        return RunOptions(**{name: getattr(args, name) for name in RunOptions.model_fields})
    except ValidationError as e:
        err = e.errors()[0]
        name = str(err["loc"][0]) if err.get("loc") else ""
        flag = _RUN_OPTION_FLAGS.get(name, ("--" + name.replace("_", "-"),))[-1]
        raise UserInputError(f"invalid option {flag}: {err['msg']}") from e


def add_restart_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--restart", action="store_true",
                   help="discard the journal of an interrupted run (OUT.partial, OUTDIR/.veil-journal.jsonl) and "
                        "start over; without it a rerun resumes, and refuses when the input or options changed")


def run_options(args: argparse.Namespace, config: Any) -> dict[str, Any]:
    """The options a resumed run must share with the run it resumes, by flag name: what
    changes a document's result (engine, model, fields, task, population...), not how fast it
    runs (concurrency, timeouts, progress). Files are named by their content hash."""
    from veil.io import file_sha256

    def content(path: Path | None) -> str | None:
        return file_sha256(path) if path is not None and path.is_file() else None

    opts: dict[str, Any] = {
        "--engine": args.engine,
        "--model": (llm_settings(args).model if args.engine == "llm" else None),
        "--text-field": args.text_field, "--id-field": args.id_field, "--label-field": args.label_field,
        "--name-field": args.name_field, "--attributes-field": args.attributes_field,
        "--population": content(args.population), "--train": content(args.train),
        "--policy": content(getattr(args, "policy", None)),
        "--allow": sorted(args.allow), "--deny": sorted(args.deny),
    }
    for key, value in config.model_dump().items():
        opts["--top-k" if key == "k" else "--" + key.replace("_", "-")] = value
    return opts
