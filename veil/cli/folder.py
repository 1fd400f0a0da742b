"""Batch modes of ``veil anonymize``: a folder of text files, and a CSV file.

``veil anonymize DIR -o OUTDIR`` anonymizes every ``*.txt`` and ``*.md`` under DIR (recursively;
hidden files and folders, and OUTDIR itself when it is inside DIR, are skipped), ``--concurrency``
documents at a time, and mirrors the folder structure in OUTDIR:

* each output is written atomically (temporary file + rename), so a file in OUTDIR is always
  whole;
* ``OUTDIR/manifest.jsonl`` has one line per input file (sorted by path): ``path``, ``status``
  (``done`` | ``failed``), ``run_id`` (open it with ``veil trace show``), ``privacy_score``,
  ``utility_score``, ``error``, plus ``output``, ``sha256`` of the input text, ``iterations``,
  ``seconds``. It is rewritten atomically at the end; during the run, finished documents are
  appended to a journal (``OUTDIR/.veil-journal.jsonl``, fsynced per line);
* files that cannot be used (binary, not UTF-8, empty, unreadable) are ``failed`` in the
  manifest with the reason and listed on stderr; the others go on;
* after a crash or ``kill -9``, the same command resumes: documents in the journal (or, after a
  finished run, in the manifest) whose input is unchanged (sha256) and whose output exists are
  not redone; a document that was in flight resumes from its last LangGraph checkpoint (its run
  id is stable within a batch) and failed ones are retried. A rerun with other options (engine,
  model, fields, task; kept in the journal and ``OUTDIR/.veil-options.json``) refuses, naming
  them; ``--restart`` redoes every document;
* the exit code is 1 when any document failed, else 0.

``veil anonymize FILE.csv --text-field COL [-o OUT.csv]`` anonymizes one column of a CSV (parsed
strictly: a malformed row is a per-row error naming its lines) and writes the CSV back with
the columns of :func:`veil.io.added_fields` (``anonymized_text`` or ``--output-field``,
``privacy_score``, ``utility_score``, ``privacy_status``, ``privacy_note``, ``run_id``, ``error``)
added, never over an input column (journalled, fingerprinted and resumable like JSONL input).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import hashlib
import io
import json
import re
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

from veil.anonymizer import AnonymizeResult, Anonymizer, new_run_id
from veil.batch import default_workers, run_concurrently
from veil.cli.common import engine_options, llm_settings, run_options
from veil.documents import Document
from veil.errors import UserInputError, VeilError
from veil.graphs.anonymize import AnonymizeConfig
from veil.io import (BATCH_KEY, BadRecord, Journal, added_fields, atomic_write_text, bad_record_output,
                     check_output_folder, check_resume, check_usable, choose_output_field, file_sha256, invalid,
                     option_differences, output_record, read_text_file, records_to_items, write_output)
from veil.logging import get_logger

TEXT_SUFFIXES = (".txt", ".md")
MANIFEST = "manifest.jsonl"
JOURNAL = ".veil-journal.jsonl"
OPTIONS = ".veil-options.json"  # the options of the run that wrote OUTDIR (a finished run has no journal)
log = get_logger(__name__)


# -- shared ------------------------------------------------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def batch_run_id(batch_id: str, key: str) -> str:
    """Stable within a batch, so an interrupted document resumes from its checkpoint."""
    return "run-" + hashlib.sha256(f"{batch_id}\0{key}".encode()).hexdigest()[:20]


def _anonymizer(args: argparse.Namespace, config: AnonymizeConfig) -> Anonymizer:
    anon = Anonymizer(args.engine, config=config, llm=llm_settings(args), db_path=args.db,
                      engine_options=engine_options(args))
    if getattr(args, "store_text", None):
        anon.memory.store_text = args.store_text
    return anon


async def safe_anonymize(anon: Anonymizer, doc: Document, run_id: str | None = None) -> AnonymizeResult:
    """One document; any exception fails this document only (its ``error``), never the batch."""
    t0 = time.perf_counter()
    run_id = run_id or new_run_id()
    try:
        return await anon.anonymize(doc, run_id=run_id)
    except Exception as e:  # VeilError is already a failed result; this is a bug or an OS error
        error = str(e) if isinstance(e, VeilError) else f"internal error ({type(e).__name__}: {e})"
        try:
            anon.memory.finish_run(run_id, error=error)
        except Exception:
            pass
        return AnonymizeResult(run_id=run_id, doc_id=doc.id, status="failed", error=error,
                               seconds=time.perf_counter() - t0)


def worker_options(args: argparse.Namespace, anon: Anonymizer, ids: Callable[[Any], tuple[str, str]]) -> dict[str, Any]:
    """``--workers`` for :func:`veil.batch.run_concurrently`: forked worker processes for the
    embedded engine (default: :func:`veil.batch.default_workers`, one with a PostgreSQL store); ``ids(item)`` is the item's
    (document id, run id) for the failed result of an item whose worker died."""
    workers = getattr(args, "workers", None)
    if workers is None:
        # (a PostgreSQL store: each worker opens its own connection pools; many workers by
        # default would reach the server's connection limit, so there they are asked for)
        workers = 1 if anon.memory.backend == "postgres" else default_workers()

    def lost(item: Any, why: str) -> AnonymizeResult:
        doc_id, run_id = ids(item)
        try:  # the run the dead worker had started says so too (`veil trace`, the API's runs)
            anon.memory.finish_run(run_id, error=why)
        except Exception as e:  # the store's failure must not lose the batch's other results
            log.warning("lost_run_not_marked", run_id=run_id, error=type(e).__name__)
        return AnonymizeResult(run_id=run_id, doc_id=doc_id, status="failed", error=why)

    return {"workers": workers if anon.forkable else 1, "in_worker": anon.in_worker, "lost": lost}


# -- folders -----------------------------------------------------------------------------------


def discover(root: Path, out: Path | None = None) -> list[Path]:
    out_r = out.resolve() if out else None
    files = []
    for p in sorted(root.rglob("*")):
        if p.suffix.lower() not in TEXT_SUFFIXES or not p.is_file():
            continue
        rel = p.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if out_r is not None and p.resolve().is_relative_to(out_r):
            continue
        files.append(p)
    return files


def _short_error(e: Exception, path: Path) -> str:
    msg = str(e)
    prefix = f"{path}: "
    return msg[len(prefix):] if msg.startswith(prefix) else msg


def _read_manifest(path: Path) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return entries
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            e = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(e, dict) and "path" in e:
            entries[e["path"]] = e
    return entries


def _read_options(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _entry(rel: str, *, status: str, sha: str | None, r: AnonymizeResult | None = None,
           error: str | None = None) -> dict[str, Any]:
    return {
        "path": rel,
        "status": status,
        "run_id": r.run_id if r else None,
        "privacy_score": r.privacy_score if r else None,
        "utility_score": None if r is None or r.utility_score is None else round(r.utility_score, 4),
        "error": error if error is not None else (r.error if r else None),
        "output": rel if status == "done" else None,
        "sha256": sha,
        "iterations": r.iterations if r else 0,
        "seconds": round(r.seconds, 3) if r else 0.0,
    }


def run_folder(args: argparse.Namespace, path: Path, config: AnonymizeConfig) -> int:
    if not args.output:
        raise UserInputError(f"{path} is a folder: give an output folder with -o OUTDIR")
    out = Path(args.output)
    if out.resolve() == path.resolve():
        raise UserInputError("the output folder must not be the input folder")
    check_output_folder(out)  # before any work, not after it
    files = discover(path, out)
    if not files:
        raise UserInputError(f"{path}: no {' or '.join('*' + s for s in TEXT_SUFFIXES)} files")
    return asyncio.run(_run_folder(args, path, out, files, config))


def remove_stale_temp_files(out: Path) -> int:
    """Delete the temp files of :func:`veil.io.atomic_write_text` (".NAME.XXXX.tmp") that a
    killed run left in the output folder; returns how many."""
    n = 0
    for p in out.rglob(".*.tmp"):
        if p.is_file() and re.fullmatch(r"\..+\.[a-z0-9_]{8}\.tmp", p.name):  # mkstemp's 8 random characters
            p.unlink(missing_ok=True)
            n += 1
    return n


async def _run_folder(args: argparse.Namespace, root: Path, out: Path, files: list[Path], config: AnonymizeConfig) -> int:
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    journal = Journal(out / JOURNAL)
    options = run_options(args, config)
    before = _read_options(out / OPTIONS)
    if before is not None and not args.restart and (out / MANIFEST).exists():
        changed = option_differences(before, options)
        if changed:
            raise UserInputError(
                f"{out} holds the outputs of a run with different options: {', '.join(changed)}: rerun with the "
                "same options to resume, or add --restart to redo every document")
    # the input is fingerprinted per file (sha256 in the journal and the manifest): a changed file is redone
    batch_id = check_resume(journal, input_sha256=None, options=options, restart=args.restart)
    atomic_write_text(out / OPTIONS, json.dumps(options, ensure_ascii=False, sort_keys=True) + "\n")
    finished = {} if args.restart else {
        **_read_manifest(out / MANIFEST), **{k: v for k, v in journal.done.items() if k != BATCH_KEY}}
    remove_stale_temp_files(out)  # a kill -9 during an atomic write leaves its temp file behind
    entries: dict[str, dict[str, Any]] = {}
    docs: list[Document] = []  # every readable document (the batch the engine prepares on)
    todo: list[tuple[Document, str]] = []
    for p in files:
        rel = p.relative_to(root).as_posix()
        try:
            text = read_text_file(p)
        except UserInputError as e:
            entries[rel] = _entry(rel, status="failed", sha=None, error=_short_error(e, p))
            continue
        sha = _sha256(text)
        doc = Document(id=rel, text=text)
        docs.append(doc)
        prev = finished.get(rel)
        if prev and prev.get("status") == "done" and prev.get("sha256") == sha and (out / rel).is_file():
            entries[rel] = prev
            continue
        todo.append((doc, sha))
    n_skipped = len(docs) - len(todo)
    if n_skipped:
        print(f"veil: resuming: {n_skipped} of {len(files)} documents already done", file=sys.stderr)

    if todo:
        async with _anonymizer(args, config) as anon:
            await anon.prepare(docs)

            async def work(item: tuple[Document, str]) -> AnonymizeResult:
                doc, _ = item
                return await safe_anonymize(anon, doc, batch_run_id(batch_id, doc.id))

            def done(item: tuple[Document, str], r: AnonymizeResult) -> None:
                doc, sha = item
                target = out / doc.id
                if r.status == "done":
                    try:
                        atomic_write_text(target, r.anonymized_text or "")
                        entry = _entry(doc.id, status="done", sha=sha, r=r)
                    except OSError as e:
                        entry = _entry(doc.id, status="failed", sha=sha, r=r, error=f"cannot write output ({e})")
                else:
                    target.unlink(missing_ok=True)  # never leave an output of older input beside a failure
                    entry = _entry(doc.id, status="failed", sha=sha, r=r)
                journal.add(doc.id, entry)  # after the output: journalled => output on disk
                entries[doc.id] = entry

            await run_concurrently(
                todo, work, concurrency=args.concurrency, on_done=done, is_failure=lambda r: r.status != "done",
                show_progress=False if args.no_progress else None,
                **worker_options(args, anon, lambda item: (item[0].id, batch_run_id(batch_id, item[0].id))),
            )

    ordered = [entries[p.relative_to(root).as_posix()] for p in files]
    atomic_write_text(out / MANIFEST, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in ordered))
    journal.remove()
    failed = [e for e in ordered if e["status"] != "done"]
    for e in failed:
        print(f"veil: {e['path']}: {e['error']}", file=sys.stderr)
    seconds = time.perf_counter() - t0
    rate = len(todo) / seconds if seconds > 0 else 0.0
    print(
        f"veil: {len(ordered) - len(failed)}/{len(ordered)} documents anonymized into {out} "
        f"({len(todo)} processed in {seconds:.1f}s, {rate:.1f} docs/s)"
        + (f"; {len(failed)} failed, see {out / MANIFEST}" if failed else ""),
        file=sys.stderr,
    )
    return 1 if failed else 0


# -- CSV ---------------------------------------------------------------------------------------


def _csv_records(path: Path, args: argparse.Namespace) -> tuple[list[str], list[tuple[str, Any]]]:
    """Strict CSV: a malformed row (a stray or unterminated quote, more or fewer cells than the
    header) is a per-row error naming its lines, never merged into its neighbour in silence."""
    text = read_text_file(path)
    dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect=dialect, strict=True)
    try:
        header = next(reader, [])
    except csv.Error as e:
        raise UserInputError(f"{path}:1: the header row is not valid CSV ({e})") from e
    if not any(h.strip() for h in header):
        raise UserInputError(f"{path}: no header row")
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise UserInputError(f"{path}:1: duplicate header column(s) {', '.join(map(repr, dupes))}")
    records: list[tuple[str, Any]] = []
    af = args.attributes_field
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            end = reader.line_num
            lines = f"lines {start}-{end}" if end > start else f"line {start}"
            records.append((f"{path}:{start}", invalid(f"malformed CSV row ({e}; {lines})")))
            continue
        if not row:
            continue  # a blank line
        where = f"{path}:{start}"
        rec: dict[str, Any] = dict(zip(header, row))
        if len(row) != len(header):
            records.append((where, invalid(f"malformed CSV row: {len(row)} cells for {len(header)} header columns "
                                           "(an unescaped delimiter or quote?)", record=rec)))
            continue
        if af and isinstance(rec.get(af), str):
            cell = rec[af].strip()
            try:
                rec[af] = json.loads(cell) if cell else {}
            except json.JSONDecodeError:
                records.append((where, invalid(f"column {af!r} must be a JSON object", record=rec)))
                continue
        records.append((where, rec))
    return header, records


def run_csv(args: argparse.Namespace, path: Path, config: AnonymizeConfig) -> int:
    if not path.is_file():
        raise UserInputError(f"{path}: no such file")
    fields, records = _csv_records(path, args)
    if not records:
        raise UserInputError(f"{path}: no rows")
    items = records_to_items(
        records, text_field=args.text_field, id_field=args.id_field, label_field=args.label_field,
        name_field=args.name_field, attributes_field=args.attributes_field,
    )
    check_usable(items, str(path))
    output_field = choose_output_field(args.output_field, set(fields), str(path))
    return asyncio.run(_run_csv(args, fields, items, config, file_sha256(path), output_field))


async def _run_csv(args: argparse.Namespace, fields: list[str], items: list[Document | BadRecord],
                   config: AnonymizeConfig, input_sha256: str, output_field: str) -> int:
    docs = [i for i in items if isinstance(i, Document)]
    bad = [i for i in items if isinstance(i, BadRecord)]
    for b in bad:
        print(f"veil: {b.message}", file=sys.stderr)
    t0 = time.perf_counter()
    out = Path(args.output) if args.output else None
    journal = Journal(out.with_name(out.name + ".partial")) if out else None
    batch_id = (check_resume(journal, input_sha256=input_sha256, options=run_options(args, config),
                             restart=args.restart, unit="rows") if journal else uuid.uuid4().hex)
    results: dict[str, dict[str, Any]] = {k: v for k, v in (journal.done if journal else {}).items() if k != BATCH_KEY}
    todo = [d for d in docs if d.id not in results or results[d.id].get("status") != "done"]
    if journal and len(todo) < len(docs):
        print(f"veil: resuming: {len(docs) - len(todo)} of {len(docs)} rows already done", file=sys.stderr)
    if todo:
        async with _anonymizer(args, config) as anon:
            await anon.prepare(docs)

            async def work(doc: Document) -> AnonymizeResult:
                run_id = batch_run_id(batch_id, doc.id)
                if not doc.text.strip():
                    return AnonymizeResult(run_id=run_id, doc_id=doc.id, status="failed", error="empty text")
                return await safe_anonymize(anon, doc, run_id)

            def done(doc: Document, r: AnonymizeResult) -> None:
                results[doc.id] = r.model_dump()
                if journal:
                    journal.add(doc.id, r.model_dump())

            await run_concurrently(
                todo, work, concurrency=args.concurrency, on_done=done, is_failure=lambda r: r.status != "done",
                show_progress=False if args.no_progress else None,
                **worker_options(args, anon, lambda d: (d.id, batch_run_id(batch_id, d.id))),
            )
    by_id = {d.id: AnonymizeResult.model_validate(results[d.id]) for d in docs}
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=fields + added_fields(output_field), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for item in items:
        if isinstance(item, Document):
            row = output_record(item.record, by_id[item.id].output_fields(), output_field)
        else:
            row = bad_record_output(item, output_field)
        if args.attributes_field and isinstance(row.get(args.attributes_field), dict):
            row[args.attributes_field] = json.dumps(row[args.attributes_field], ensure_ascii=False)
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    if out:
        write_output(out, buf.getvalue(), journal)
    else:
        sys.stdout.write(buf.getvalue())
    failed = [(d, by_id[d.id]) for d in docs if by_id[d.id].status != "done"]
    for d, r in failed[:20]:
        print(f"veil: row {d.id}: {r.error}", file=sys.stderr)
    n_failed = len(failed) + len(bad)
    print(
        f"veil: {len(items) - n_failed}/{len(items)} rows anonymized in {time.perf_counter() - t0:.1f}s"
        + (f"; {n_failed} failed (see the 'error' column)" if n_failed else ""),
        file=sys.stderr,
    )
    return 1 if n_failed else 0
