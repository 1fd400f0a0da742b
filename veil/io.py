"""Reading documents (txt, JSONL, stdin) and writing results without losing data: outputs
are written to a temporary file and renamed into place (atomic), and finished documents of a
batch are journalled as they complete so that an interrupted run resumes where it stopped.

A journal starts with a fingerprint of its run (:func:`check_resume`): the input's content
hash and the run's options. A rerun resumes only when both are the same; otherwise it refuses,
naming the difference, and ``--restart`` discards the journal."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from veil.documents import Document
from veil.errors import UserInputError, VeilError


def atomic_write_text(path: str | Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def _bomless_utf16(raw: bytes) -> str | None:
    """``utf-16-le``/``-be`` when the bytes look like UTF-16 text without a byte-order mark
    (most of the NULs on one parity: the high bytes of Latin characters), else None."""
    head = raw[:8192]
    if len(head) < 4 or len(head) % 2:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    half = len(head) // 2
    if odd >= 0.3 * half and even <= 0.02 * half:
        return "utf-16-le"
    if even >= 0.3 * half and odd <= 0.02 * half:
        return "utf-16-be"
    return None


def decode_text(raw: bytes, where: str) -> str:
    """Bytes to text: UTF-8 (with or without a BOM), UTF-16 and UTF-32 with a BOM, UTF-16
    without one; anything else with NUL bytes is binary. Errors name ``where``."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(codec)
            except UnicodeDecodeError as e:
                raise UserInputError(f"{where}: not valid {codec.upper()} (byte {e.start})") from e
    codec = _bomless_utf16(raw) if b"\x00" in raw[:8192] else None
    if codec:
        try:
            return raw.decode(codec)
        except UnicodeDecodeError:
            pass
    if b"\x00" in raw[:8192]:
        raise UserInputError(f"{where}: looks like a binary file, not text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserInputError(f"{where}: not valid UTF-8 (byte {e.start}; UTF-16 and UTF-32 need a byte-order "
                             "mark)") from e


def read_text_file(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UserInputError(f"{path}: cannot read ({e.strerror})") from e
    text = decode_text(raw, str(path))
    if not text.strip():
        raise UserInputError(f"{path}: the file is empty")
    return text


def check_output_file(path: Path) -> None:
    """Fail before any work when ``path`` cannot be written: its folder is created and a
    temporary file is written and removed there."""
    if path.is_dir():
        raise UserInputError(f"-o {path}: is a folder (give a file name)")
    _check_writable_folder(path.parent, f"-o {path}")


def check_output_folder(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise UserInputError(f"{path}: exists and is not a folder")
    _check_writable_folder(path, f"-o {path}")


def _check_writable_folder(folder: Path, what: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".veil-write-check.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise UserInputError(f"{what}: cannot write there ({e.strerror or e})") from e


@dataclass
class BadRecord:
    """An input record that cannot be anonymized (not JSON, not an object, a field missing...):
    reported, kept in the output with its ``error``, and the batch goes on."""

    where: str  # "in.jsonl:3"
    error: str
    record: dict[str, Any] | None = None  # the parsed record, when it parsed
    raw: str | None = None  # the line, when it did not

    @property
    def message(self) -> str:
        return f"{self.where}: {self.error}"


class _Invalid:
    """A record a parser could not read (a line that is not JSON, a malformed CSV row), handed
    on in its place to :func:`records_to_items`."""

    def __init__(self, error: str, raw: str | None = None, record: dict[str, Any] | None = None):
        self.error, self.raw, self.record = error, raw, record


def invalid(error: str, *, raw: str | None = None, record: dict[str, Any] | None = None) -> Any:
    return _Invalid(error, raw, record)


def _field(record: dict[str, Any], name: str | None, where: str, required: bool) -> Any:
    if not name:
        return None
    if name not in record:
        if required:
            raise UserInputError(f"{where}: no field {name!r} (fields: {', '.join(sorted(record)) or 'none'})")
        return None
    return record[name]


def records_to_items(
    records: Iterable[tuple[str, Any]],
    *,
    text_field: str = "text",
    id_field: str | None = None,
    label_field: str | None = None,
    name_field: str | None = None,
    attributes_field: str | None = None,
) -> list[Document | BadRecord]:
    """Records to documents, in input order; a record that cannot be used is a :class:`BadRecord`
    in its place. Without ``id_field`` a document's id is its position among the records."""
    items: list[Document | BadRecord] = []
    seen: set[str] = set()
    for position, (where, rec) in enumerate(records):
        if isinstance(rec, _Invalid):
            items.append(BadRecord(where=where, error=rec.error, raw=rec.raw, record=rec.record))
            continue
        try:
            items.append(_document(rec, where, position, seen, text_field=text_field, id_field=id_field,
                                   label_field=label_field, name_field=name_field, attributes_field=attributes_field))
        except UserInputError as e:
            msg = str(e)
            items.append(BadRecord(where=where, error=msg[len(where) + 2:] if msg.startswith(f"{where}: ") else msg,
                                   record=rec if isinstance(rec, dict) else None,
                                   raw=None if isinstance(rec, dict) else json.dumps(rec, ensure_ascii=False)))
    return items


def _document(rec: Any, where: str, position: int, seen: set[str], *, text_field: str, id_field: str | None,
              label_field: str | None, name_field: str | None, attributes_field: str | None) -> Document:
    if not isinstance(rec, dict):
        raise UserInputError(f"{where}: expected a JSON object, got {type(rec).__name__}")
    text = _field(rec, text_field, where, required=True)
    if not isinstance(text, str):
        raise UserInputError(f"{where}: field {text_field!r} is not a string")
    doc_id = str(_field(rec, id_field, where, required=True)) if id_field else str(position)
    if doc_id in seen:
        raise UserInputError(f"{where}: duplicate id {doc_id!r} in field {id_field!r}")
    seen.add(doc_id)
    label = _field(rec, label_field, where, required=True)
    name = _field(rec, name_field, where, required=True)
    attrs = _field(rec, attributes_field, where, required=True) or {}
    if not isinstance(attrs, dict):
        raise UserInputError(f"{where}: field {attributes_field!r} must be an object of attribute -> value")
    return Document(
        id=doc_id,
        text=text,
        label=None if label is None else str(label),
        name=None if name is None else str(name),
        attributes={str(k): str(v) for k, v in attrs.items() if v not in (None, "")},
        record=rec,
    )


def check_usable(items: list[Document | BadRecord], source: str) -> None:
    """A batch where no record can be used is the user's mistake (a wrong --text-field...), not
    a batch of failures."""
    if not items:
        raise UserInputError(f"{source}: no documents")
    if all(isinstance(i, BadRecord) for i in items):
        first = items[0]
        assert isinstance(first, BadRecord)
        more = f" (and all {len(items) - 1} other records)" if len(items) > 1 else ""
        raise UserInputError(f"{first.message}{more}")


def records_to_documents(records: Iterable[tuple[str, Any]], **fields: Any) -> list[Document]:
    """Like :func:`records_to_items`, but the first record that cannot be used is an error."""
    docs = []
    for item in records_to_items(records, **fields):
        if isinstance(item, BadRecord):
            raise UserInputError(item.message)
        docs.append(item)
    return docs


def parse_jsonl(lines: Iterable[str], source: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append((f"{source}:{i}", json.loads(line)))
        except json.JSONDecodeError as e:
            raise UserInputError(f"{source}:{i}: not valid JSON ({e.msg})") from e
    return out


def read_jsonl(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every record of a JSONL file; a bad line is an error (for inputs that must be whole:
    a population, claims). Batches to anonymize read with :func:`parse_records`."""
    return parse_jsonl(read_text_file(path).splitlines(), str(path))


def parse_records(text: str, source: str, *, sniff: bool = False) -> list[tuple[str, Any]]:
    """The records of a JSONL text, a line that is not JSON kept in its place (as an invalid
    record: see :func:`records_to_items`). ``sniff`` (a ``.json`` file): the whole text may
    also be one JSON object (one record) or an array of records."""
    if sniff:
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        else:
            if isinstance(whole, dict):
                return [(f"{source}", whole)]
            if isinstance(whole, list):
                return [(f"{source}[{i}]", rec) for i, rec in enumerate(whole)]
    out: list[tuple[str, Any]] = []
    for i, line in enumerate(text.split("\n"), start=1):  # not splitlines(): JSON strings may hold U+2028
        if not line.strip():
            continue
        try:
            out.append((f"{source}:{i}", json.loads(line)))
        except json.JSONDecodeError as e:
            out.append((f"{source}:{i}", _Invalid(f"not valid JSON ({e.msg})", line)))
    if sniff and out and all(isinstance(rec, _Invalid) for _, rec in out):
        raise UserInputError(f"{source}: not JSON, JSONL or a JSON array")
    return out


def read_stdin() -> tuple[str, list[tuple[str, Any]] | None]:
    """Returns (raw text, records or None when stdin is plain text). Stdin is JSONL when every
    line that parses is a JSON object and most lines parse."""
    text = decode_text(sys.stdin.buffer.read(), "stdin")
    if not text.strip():
        raise UserInputError("stdin: no input")
    records = parse_records(text, "stdin")
    good = [rec for _, rec in records if not isinstance(rec, _Invalid)]
    if good and all(isinstance(p, dict) for p in good) and len(good) * 2 > len(records):
        return text, records
    return text, None


DEFAULT_OUTPUT_FIELD = "anonymized_text"


def added_fields(output_field: str) -> list[str]:
    """The fields veil adds to an output record (see ``AnonymizeResult.output_fields``), the
    anonymized text under ``output_field``."""
    from veil.anonymizer import AnonymizeResult

    sample = AnonymizeResult(run_id="", doc_id="", privacy_note="-", error="-").output_fields()
    return [output_field if k == DEFAULT_OUTPUT_FIELD else k for k in sample]


def choose_output_field(requested: str | None, input_fields: set[str], source: str) -> str:
    """The field of the anonymized text; never one the input already has (nor may veil's other
    output fields be input fields): a clear error instead of an overwrite."""
    field = requested or DEFAULT_OUTPUT_FIELD
    if field in input_fields:
        hint = "name another one with --output-field NAME" if requested is None else "choose another --output-field"
        raise UserInputError(f"{source}: the input records already have a field {field!r}, which veil would "
                             f"overwrite with the anonymized text: {hint}")
    clash = [f for f in added_fields(field) if f != field and f in input_fields]
    if clash:
        raise UserInputError(f"{source}: the input records already have field(s) {', '.join(map(repr, clash))}, "
                             "which veil adds to each output record: rename them in the input")
    return field


def output_record(record: dict[str, Any], fields: dict[str, Any], output_field: str) -> dict[str, Any]:
    """An input record with veil's fields added (``fields``: ``AnonymizeResult.output_fields()``)."""
    added = {(output_field if k == DEFAULT_OUTPUT_FIELD else k): v for k, v in fields.items()}
    return {**record, **added}


def bad_record_output(bad: BadRecord, output_field: str) -> dict[str, Any]:
    """The output record of an input record that could not be used: the record as it was (or,
    for a line that is not JSON, the line under ``input_line``), no text, and the error."""
    base = dict(bad.record) if bad.record is not None else {"input_line": bad.raw} if bad.raw is not None else {}
    return {**base, output_field: None, "error": bad.message}


def write_output(out: Path, payload: str, journal: "Journal | None") -> None:
    """Write the batch's output; the journal goes only once the output is on disk (a failed
    write keeps every finished document for the rerun)."""
    try:
        atomic_write_text(out, payload)
    except OSError as e:
        kept = f"; the finished documents are kept in {journal.path}: rerun the same command" if journal else ""
        raise VeilError(f"cannot write {out} ({e.strerror or e}){kept}") from e
    if journal:
        journal.remove()


BATCH_KEY = "__batch__"  # the journal's first entry: batch id and the run's fingerprint


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Journal:
    """Append-only JSONL of finished documents (``{"key": ..., "output": ...}``), fsynced per
    line. A torn last line from a killed process is ignored on reload."""

    def __init__(self, path: Path):
        self.path = path
        self.done: dict[str, Any] = {}
        torn = False
        if path.exists():
            text = path.read_text(encoding="utf-8")
            torn = bool(text) and not text.endswith("\n")
            for line in text.splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # torn write of a killed run
                self.done[entry["key"]] = entry["output"]
        path.parent.mkdir(parents=True, exist_ok=True)
        # owner-only, like the databases: it holds finished results (and what they protected)
        self._f = open(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a", encoding="utf-8")
        if torn:  # end the torn line, or the next entry would be glued to it and lost
            self._f.write("\n")
            self._f.flush()

    def add(self, key: str, output: Any) -> None:
        self._f.write(json.dumps({"key": key, "output": output}, ensure_ascii=False) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())
        self.done[key] = output

    def reset(self) -> None:
        """Forget every entry (``--restart``)."""
        self._f.close()
        self._f = open(os.open(self.path, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o600), "w", encoding="utf-8")
        self.done = {}

    def close(self) -> None:
        self._f.close()

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def option_differences(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """``["--max-iterations 5 -> 3", ...]`` for every option whose value changed."""
    out = []
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            out.append(f"{key} {_show(before.get(key))} -> {_show(now.get(key))}")
    return out


def _show(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return f"sha256 {value[:12]}"  # a file's content hash
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def check_resume(journal: Journal, *, input_sha256: str | None, options: dict[str, Any], restart: bool,
                 unit: str = "documents") -> str:
    """Resume only the same run: the journal's fingerprint (input content hash, options) must
    match this run's, or this refuses naming the difference. ``restart`` discards the journal.
    Writes the fingerprint into a new journal; returns the batch id (stable across resumes)."""
    if restart:
        journal.reset()
    header = journal.done.get(BATCH_KEY)
    finished = sum(1 for k in journal.done if k != BATCH_KEY)
    if header and not finished and (header.get("input_sha256") != input_sha256 or header.get("options") != options):
        journal.reset()  # nothing was finished under the old fingerprint: nothing to lose
        header = None
    if finished:
        problems = []
        if not header or "options" not in header:
            problems.append("it has no fingerprint of its input and options (written by an older veil)")
        else:
            if input_sha256 is not None and header.get("input_sha256") != input_sha256:
                problems.append(f"the input is different (sha256 {str(header.get('input_sha256'))[:12]} then, "
                                f"{input_sha256[:12]} now)")
            changed = option_differences(header.get("options") or {}, options)
            if changed:
                problems.append("the options are different: " + ", ".join(changed))
        if problems:
            raise UserInputError(
                f"{journal.path} holds {finished} finished {unit} of an interrupted run, but "
                + "; ".join(problems)
                + ": rerun with the same input and options to resume, or add --restart to discard them and start over"
            )
    if header and header.get("batch_id"):
        return str(header["batch_id"])
    batch_id = uuid.uuid4().hex
    journal.add(BATCH_KEY, {"batch_id": batch_id, "started": time.time(), "input_sha256": input_sha256,
                            "options": options})
    return batch_id
