"""``veil anonymize INPUT [-o OUT]`` — INPUT is a .txt file, a JSONL file or ``-`` (stdin)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

from veil.anonymizer import UNVERIFIED_HINT, AnonymizeResult, Anonymizer, new_run_id
from veil.batch import run_concurrently
from veil.cli.folder import batch_run_id, safe_anonymize, worker_options
from veil.cli.common import (add_db_arg, add_engine_args, add_restart_arg, add_run_option_args, add_store_text_arg,
                             engine_options, llm_settings, run_options, run_options_of)
from veil.documents import Document
from veil.errors import UserInputError, VeilError
from veil.graphs.anonymize import AnonymizeConfig
from veil.io import (BATCH_KEY, BadRecord, Journal, bad_record_output, check_output_file, check_resume, check_usable,
                     choose_output_field,
                     file_sha256, output_record, parse_records, read_stdin, read_text_file, records_to_items,
                     sha256_bytes, write_output)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("anonymize", help="anonymize a text file, a JSONL file, stdin or a folder")
    p.add_argument("input", help="a .txt file, a .jsonl file, a folder, or - for stdin")
    p.add_argument("-o", "--output", help="output file (JSONL for JSONL input) or folder; default stdout")
    p.add_argument("--text-field", default="text")
    p.add_argument("--output-field", help="field (CSV: column) of the anonymized text (default anonymized_text; an "
                   "input field is never overwritten: name another one when the input has it)")
    p.add_argument("--id-field", help="record id (default: line number)")
    p.add_argument("--label-field", help="downstream label the text must keep supporting (e.g. occupation)")
    p.add_argument("--name-field", help="ground-truth identity to protect (profile identity)")
    p.add_argument("--attributes-field", help="object of ground-truth attributes to protect (profile attributes)")
    add_run_option_args(p)  # --profile, -k/--top-k, --p-max, --u-target, --max-iterations, --memory-window
    p.add_argument("--concurrency", type=int, default=16, help="documents in flight at once, per process (default 16)")
    p.add_argument("--workers", type=int, help="worker processes for a batch on the local engine (default: one per "
                   "core this process may use, at most 8; 1 with a PostgreSQL --db; the local engine's work holds Python's GIL, so one process uses about "
                   "one core). A batch of fewer than 4 documents per worker runs in fewer")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_restart_arg(p)
    add_engine_args(p)
    add_db_arg(p)
    add_store_text_arg(p)
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> AnonymizeConfig:
    return run_options_of(args).config(has_name=bool(args.name_field), has_attributes=bool(args.attributes_field))


def _load(args: argparse.Namespace) -> tuple[str, list[Document | BadRecord], str]:
    """Returns (kind, items, sha256 of the input) where kind is 'jsonl' or 'text'; an item is a
    document or a record that cannot be used (a per-record error, in its place)."""
    fields = dict(
        text_field=args.text_field, id_field=args.id_field, label_field=args.label_field,
        name_field=args.name_field, attributes_field=args.attributes_field,
    )
    if args.input == "-":
        raw, records = read_stdin()
        sha = sha256_bytes(raw.encode("utf-8"))
        if records is not None:
            return "jsonl", records_to_items(records, **fields), sha
        return "text", [Document(id="stdin", text=raw)], sha
    path = Path(args.input)
    if not path.exists():
        raise UserInputError(f"{path}: no such file or folder")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        # .json: sniffed (one object, an array of objects, or JSONL)
        records = parse_records(read_text_file(path), str(path), sniff=suffix == ".json")
        return "jsonl", records_to_items(records, **fields), file_sha256(path)
    return "text", [Document(id=path.stem, text=read_text_file(path))], file_sha256(path)


def run(args: argparse.Namespace) -> int:
    config = _config(args)
    if args.concurrency < 1:
        raise UserInputError("--concurrency must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UserInputError("--workers must be at least 1")
    if args.workers is not None and args.workers > 1 and args.engine != "local":
        raise UserInputError("--workers is for the local engine; an LLM engine's documents wait on the endpoint: "
                             "raise --concurrency instead")
    if args.input != "-" and Path(args.input).is_dir():
        from veil.cli.folder import run_folder  # folder mode: its own module

        return run_folder(args, Path(args.input), config)
    if args.output:
        check_output_file(Path(args.output))  # before any work, not after it
    if args.input.lower().endswith((".csv", ".tsv")):
        from veil.cli.folder import run_csv  # CSV: the batch module too

        return run_csv(args, Path(args.input), config)
    kind, items, input_sha256 = _load(args)
    check_usable(items, args.input)
    output_field = choose_output_field(args.output_field, {k for i in items if i.record for k in i.record}, args.input)
    return asyncio.run(_run(args, config, kind, items, input_sha256, output_field))


async def _run(args: argparse.Namespace, config: AnonymizeConfig, kind: str, items: list[Document | BadRecord],
               input_sha256: str, output_field: str) -> int:
    docs = [i for i in items if isinstance(i, Document)]
    bad = [i for i in items if isinstance(i, BadRecord)]
    for b in bad:
        print(f"veil: {b.message}", file=sys.stderr)
    out = Path(args.output) if args.output else None
    journal = Journal(out.with_name(out.name + ".partial")) if (out and kind == "jsonl") else None
    batch_id = (check_resume(journal, input_sha256=input_sha256, options=run_options(args, config),
                             restart=args.restart) if journal else None)
    # reuse what the interrupted run finished; a document that failed there is tried again
    results: dict[str, dict[str, Any]] = {k: v for k, v in journal.done.items() if k != BATCH_KEY} if journal else {}
    finished = {key for key, r in results.items() if (r or {}).get("status") == "done"}
    todo = [d for d in docs if d.id not in finished]
    if journal and len(todo) < len(docs):
        print(f"veil: resuming: {len(docs) - len(todo)} of {len(docs)} documents already done", file=sys.stderr)
    t0 = time.perf_counter()
    if todo:
        async with Anonymizer(
            args.engine, config=config, llm=llm_settings(args), db_path=args.db, engine_options=engine_options(args)
        ) as anon:
            if args.store_text:
                anon.memory.store_text = args.store_text
            await anon.prepare(docs)

            def done(doc: Document, r: AnonymizeResult) -> None:
                results[doc.id] = r.model_dump()
                if journal:
                    journal.add(doc.id, r.model_dump())

            # a stable run id within a journalled batch: an interrupted document resumes from its
            # checkpoint; chosen here, before any worker forks, so that the run of a document whose
            # worker died is the one marked failed
            run_ids = {d.id: batch_run_id(batch_id, d.id) if batch_id else new_run_id() for d in todo}

            async def work(doc: Document) -> AnonymizeResult:
                return await safe_anonymize(anon, doc, run_ids[doc.id])

            await run_concurrently(
                todo, work, concurrency=args.concurrency, on_done=done,
                is_failure=lambda r: r.status != "done",
                show_progress=False if args.no_progress else None,
                **worker_options(args, anon, lambda d: (d.id, run_ids[d.id])),
            )
    seconds = time.perf_counter() - t0
    ordered = [AnonymizeResult.model_validate(results[d.id]) for d in docs]
    if kind == "jsonl":
        by_id = {d.id: r for d, r in zip(docs, ordered)}
        rows = [output_record(i.record, by_id[i.id].output_fields(), output_field) if isinstance(i, Document)
                else bad_record_output(i, output_field) for i in items]
        payload = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    else:
        r = ordered[0]
        if r.status != "done":
            raise VeilError(f"anonymization failed: {r.error}")
        payload = r.anonymized_text or ""
        if r.privacy_status == "re-identified":
            found = f"re-identified (rank {r.privacy_score})"
        elif r.privacy_status == "protected":
            found = f"protected (not re-identified in the top {r.k})"
        else:
            found = f"unverified: {r.privacy_note}"
        rejected = (f"; {len(r.rejections)} optimizer answer(s) rejected, last: {r.rejections[-1]['reason']}"
                    if r.rejections else "")
        print(f"veil: run {r.run_id}: {found}; utility {r.utility_score:.2f}{rejected}; "
              f"see `veil trace show {r.run_id}`", file=sys.stderr)
    if out:
        write_output(out, payload, journal)
    else:
        sys.stdout.write(payload if payload.endswith("\n") else payload + "\n")
    failed = [r for r in ordered if r.status != "done"]
    ok = [r for r in ordered if r.status == "done"]
    n_failed = len(failed) + len(bad)
    if len(items) > 1 or n_failed:
        counts = {s: sum(r.privacy_status == s for r in ok) for s in ("protected", "unverified", "re-identified")}
        print(
            f"veil: {len(ok)}/{len(items)} anonymized in {seconds:.1f}s; "
            + ", ".join(f"{n} {s}" for s, n in counts.items()) + "; "
            f"mean utility {mean([r.utility_score or 0 for r in ok]) if ok else 0:.2f}"
            + (f"; {n_failed} failed (see their 'error' field)" if n_failed else ""),
            file=sys.stderr,
        )
        if counts["unverified"]:
            print(f"veil: {counts['unverified']} unverified (see their 'privacy_note' field): an unverified text is "
                  f"not certified; {UNVERIFIED_HINT}", file=sys.stderr)
        rejected = sum(bool(r.rejections) for r in ok)
        if rejected:
            print(f"veil: {rejected} kept their best version after a rejected optimizer answer "
                  f"(see `veil trace show RUN_ID`)", file=sys.stderr)
    return 1 if n_failed else 0
