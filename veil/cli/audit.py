"""``veil audit --original O.jsonl [--sanitized S.jsonl] -o report.json`` — what does a sanitized
dataset still leak? Links each original record to a sanitized one from 3 of its claims, then
judges the rest of its claims against the linked record ("A False Sense of Privacy")."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from veil.cli.common import add_db_arg, add_llm_args, llm_settings
from veil.errors import UserInputError
from veil.io import DEFAULT_OUTPUT_FIELD, decode_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit a sanitized dataset: linkage and semantic leakage")
    p.add_argument("--original", required=True, type=Path, help="JSONL of the original records")
    p.add_argument("--sanitized", type=Path, help="JSONL of the sanitized records (default: --original, field --sanitized-field)")
    p.add_argument("--text-field", default="text", help="field of the original text (default: text)")
    p.add_argument("--sanitized-field", help="field of the sanitized text (default: anonymized_text when the sanitized "
                   "records have it; required when both files have --text-field)")
    p.add_argument("--id-field", help="record id field (default: line number)")
    p.add_argument("--claims", type=Path, help="JSONL, one JSON list of claims per line, aligned with --original")
    p.add_argument("--atomizer", choices=["llm", "local"], default="local", help="atomizer when --claims is not given")
    p.add_argument("--aux", choices=["random3", "first3", "last3"], default="random3", help="auxiliary knowledge (default random3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", help="comma-separated seeds: run each and report the mean (e.g. 0,1,2)")
    p.add_argument("--exclude-claims", help='regex: claims never used as auxiliary knowledge (e.g. "name is")')
    p.add_argument("--linker", choices=["bm25", "dense", "lexical"], default="bm25")
    p.add_argument("--judge", choices=["llm", "local", "none"], default="local")
    p.add_argument("--k-votes", type=int, default=3, help="LLM judge: votes per claim (default 3)")
    p.add_argument("--chunk-size", type=int, default=32, help="records judged per checkpoint (default 32)")
    p.add_argument("--no-mapping", action="store_true", help="record i is NOT known to be sanitized into record i: linkage is not reported")
    p.add_argument("-o", "--output", required=True, type=Path, help="report JSON (report.html is written next to it)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_llm_args(p)
    add_db_arg(p)
    p.set_defaults(func=run)


def _read_jsonl(path: Path, what: str) -> list[Any]:
    if not path.is_file():
        raise UserInputError(f"{path}: no such file ({what})")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UserInputError(f"{path}: cannot read ({e.strerror})") from e
    lines = decode_text(raw, str(path)).split("\n")
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise UserInputError(f"{path}:{n}: not valid JSON ({e.msg})") from e
    if not out:
        raise UserInputError(f"{path}: no records ({what})")
    return out


def _field(records: list[Any], path: Path, field: str) -> list[str]:
    out = []
    for n, r in enumerate(records, start=1):
        if not isinstance(r, dict):
            raise UserInputError(f"{path}: record {n} is not a JSON object")
        if field not in r:
            raise UserInputError(f"{path}: record {n} has no field {field!r} (fields: {', '.join(sorted(r)) or 'none'})")
        v = r[field]
        if not isinstance(v, str):
            raise UserInputError(f"{path}: record {n}: field {field!r} is not a string")
        out.append(v)
    return out


DEFAULT_SANITIZED_FIELD = DEFAULT_OUTPUT_FIELD  # what `veil anonymize` writes


def _has(records: list[Any], field: str) -> bool:
    return all(isinstance(r, dict) and field in r for r in records)


def sanitized_field_for(args: argparse.Namespace, originals_raw: list[Any], sanitized_raw: list[Any],
                        sanitized_path: Path, same_file: bool) -> str:
    """The field holding the sanitized text. Never guessed into auditing the originals: the
    flag, else ``anonymized_text`` when the sanitized records have it, else an error."""
    field = args.sanitized_field
    if field is None:
        if _has(sanitized_raw, DEFAULT_SANITIZED_FIELD):
            field = DEFAULT_SANITIZED_FIELD
            print(f"veil: auditing the field {field!r} of {sanitized_path} (--sanitized-field to choose another)",
                  file=sys.stderr)
        elif same_file:
            raise UserInputError(f"{sanitized_path}: no field {DEFAULT_SANITIZED_FIELD!r}: give --sanitized-field "
                                 "(the field holding the sanitized text)")
        elif _has(sanitized_raw, args.text_field) and _has(originals_raw, args.text_field):
            raise UserInputError(f"both files have a field {args.text_field!r}: give --sanitized-field (the field of "
                                 f"{sanitized_path} that holds the sanitized text), so that the audit cannot audit "
                                 "the originals by mistake")
        else:
            raise UserInputError(f"{sanitized_path}: no field {DEFAULT_SANITIZED_FIELD!r}: give --sanitized-field")
    if same_file and field == args.text_field:
        raise UserInputError(f"--sanitized-field {field!r} is the original text's field: the audit would audit the "
                             "originals against themselves")
    return field


def warn_if_unchanged(originals: list[str], sanitized: list[str], field: str) -> int:
    """Warn when most sanitized texts are their originals (a wrong field, an anonymizer that did
    nothing): the audit would measure the originals. Returns how many are identical."""
    if len(originals) == len(sanitized):
        same = sum(o.strip() == s.strip() for o, s in zip(originals, sanitized))
    else:
        pool = {o.strip() for o in originals}
        same = sum(s.strip() in pool for s in sanitized)
    if same * 2 > len(sanitized):
        print(f"veil: warning: {same} of {len(sanitized)} sanitized texts ({field!r}) are identical to their "
              "originals: is --sanitized-field right? The audit measures them as they are", file=sys.stderr)
    return same


def load_inputs(args: argparse.Namespace) -> dict[str, Any]:
    originals_raw = _read_jsonl(args.original, "--original")
    same_file = args.sanitized is None or args.sanitized.resolve() == args.original.resolve()
    sanitized_path = args.original if args.sanitized is None else args.sanitized
    sanitized_raw = originals_raw if same_file else _read_jsonl(sanitized_path, "--sanitized")
    sanitized_field = sanitized_field_for(args, originals_raw, sanitized_raw, sanitized_path, same_file)
    inputs: dict[str, Any] = {
        "originals": _field(originals_raw, args.original, args.text_field),
        "sanitized": _field(sanitized_raw, sanitized_path, sanitized_field),
    }
    warn_if_unchanged(inputs["originals"], inputs["sanitized"], sanitized_field)
    if args.id_field:
        inputs["ids"] = [str(x) for x in _field_any(originals_raw, args.original, args.id_field)]
        if not same_file:
            try:
                inputs["sanitized_ids"] = [str(x) for x in _field_any(sanitized_raw, sanitized_path, args.id_field)]
            except UserInputError:
                pass  # sanitized records without ids: their line numbers
    if args.claims is not None:
        claims = _read_jsonl(args.claims, "--claims")
        for n, c in enumerate(claims, start=1):
            if not (isinstance(c, list) and all(isinstance(x, str) for x in c)):
                raise UserInputError(f"{args.claims}:{n}: expected a JSON list of claim strings")
        if len(claims) != len(inputs["originals"]):
            raise UserInputError(
                f"{args.claims}: {len(claims)} claim lists for {len(inputs['originals'])} original records (must be aligned line by line)"
            )
        inputs["claims"] = claims
    return inputs


def _field_any(records: list[Any], path: Path, field: str) -> list[Any]:
    out = []
    for n, r in enumerate(records, start=1):
        if not isinstance(r, dict) or field not in r:
            raise UserInputError(f"{path}: record {n} has no field {field!r}")
        out.append(r[field])
    return out


def _seeds(args: argparse.Namespace) -> list[int]:
    if not args.seeds:
        return [args.seed]
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError as e:
        raise UserInputError(f"--seeds: expected comma-separated integers, got {args.seeds!r}") from e
    if not seeds:
        raise UserInputError("--seeds: no seed given")
    return seeds


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from veil.evals.audit_report import combine_runs, markdown_summary, write_report
    from veil.graphs.audit import AuditConfig, check_inputs, make_atomizer, make_judge, run_audit

    seeds = _seeds(args)
    inputs = load_inputs(args)
    try:
        configs = [
            AuditConfig(
                aux=args.aux, seed=s, exclude_claims=args.exclude_claims, linker=args.linker, judge=args.judge,
                atomizer=args.atomizer, k_votes=args.k_votes, chunk_size=args.chunk_size, mapping=not args.no_mapping,
            )
            for s in seeds
        ]
    except ValidationError as e:
        err = e.errors()[0]
        raise UserInputError(f"invalid option {'.'.join(map(str, err['loc']))}: {err['msg']}") from e
    check_inputs(inputs["originals"], inputs["sanitized"], configs[0], claims=inputs.get("claims"),
                 ids=inputs.get("ids"), sanitized_ids=inputs.get("sanitized_ids"))  # before any model loads
    llm = llm_settings(args) if "llm" in (args.judge, args.atomizer) else None

    async def main(progress) -> list[dict[str, Any]]:
        # one judge / atomizer for all seeds: their caches (embeddings) are shared
        judge = make_judge(configs[0], llm)
        atomizer = make_atomizer(configs[0], llm) if "claims" not in inputs else None
        try:
            reports = []
            for cfg in configs:
                reports.append(
                    await run_audit(
                        inputs["originals"], inputs["sanitized"], cfg, claims=inputs.get("claims"), ids=inputs.get("ids"),
                        sanitized_ids=inputs.get("sanitized_ids"), llm=llm, db_path=args.db, progress=progress,
                        judge=judge, atomizer=atomizer,
                    )
                )
            return reports
        finally:
            for a in (judge, atomizer):
                if a is not None:
                    await a.aclose()

    if args.no_progress or not sys.stderr.isatty():
        reports = asyncio.run(main(None))
    else:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      transient=True) as bar:
            tasks: dict[str, Any] = {}

            def progress(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = bar.add_task(stage, total=total)
                bar.update(tasks[stage], completed=done, total=total)

            reports = asyncio.run(main(progress))
    report = combine_runs(reports, seeds)
    json_path, html_path = write_report(report, args.output)
    print(markdown_summary(report))
    print(f"\nreport: {json_path}  html: {html_path}")
    return 0
