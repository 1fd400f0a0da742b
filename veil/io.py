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
from pathlib import Path
from typing import Any, Iterable

from veil.documents import Document
from veil.errors import UserInputError


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


def read_text_file(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UserInputError(f"{path}: cannot read ({e.strerror})") from e
    if b"\x00" in raw[:8192]:
        raise UserInputError(f"{path}: looks like a binary file, not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UserInputError(f"{path}: not valid UTF-8 (byte {e.start})") from e
    if not text.strip():
        raise UserInputError(f"{path}: the file is empty")
    return text


def _field(record: dict[str, Any], name: str | None, where: str, required: bool) -> Any:
    if not name:
        return None
    if name not in record:
        if required:
            raise UserInputError(f"{where}: no field {name!r} (fields: {', '.join(sorted(record)) or 'none'})")
        return None
    return record[name]


def records_to_documents(
    records: Iterable[tuple[str, dict[str, Any]]],
    *,
    text_field: str = "text",
    id_field: str | None = None,
    label_field: str | None = None,
    name_field: str | None = None,
    attributes_field: str | None = None,
) -> list[Document]:
    docs: list[Document] = []
    seen: set[str] = set()
    for where, rec in records:
        if not isinstance(rec, dict):
            raise UserInputError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        text = _field(rec, text_field, where, required=True)
        if not isinstance(text, str):
            raise UserInputError(f"{where}: field {text_field!r} is not a string")
        doc_id = str(_field(rec, id_field, where, required=True)) if id_field else str(len(docs))
        if doc_id in seen:
            raise UserInputError(f"{where}: duplicate id {doc_id!r} in field {id_field!r}")
        seen.add(doc_id)
        label = _field(rec, label_field, where, required=True)
        name = _field(rec, name_field, where, required=True)
        attrs = _field(rec, attributes_field, where, required=True) or {}
        if not isinstance(attrs, dict):
            raise UserInputError(f"{where}: field {attributes_field!r} must be an object of attribute -> value")
        docs.append(
            Document(
                id=doc_id,
                text=text,
                label=None if label is None else str(label),
                name=None if name is None else str(name),
                attributes={str(k): str(v) for k, v in attrs.items() if v not in (None, "")},
                record=rec,
            )
        )
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
    return parse_jsonl(read_text_file(path).splitlines(), str(path))


def read_stdin() -> tuple[str, list[tuple[str, dict[str, Any]]] | None]:
    """Returns (raw text, parsed JSONL records or None when stdin is plain text)."""
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UserInputError(f"stdin: not valid UTF-8 (byte {e.start})") from e
    if not text.strip():
        raise UserInputError("stdin: no input")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    try:
        parsed = [json.loads(ln) for ln in lines]
    except json.JSONDecodeError:
        return text, None
    if all(isinstance(p, dict) for p in parsed):
        return text, [(f"stdin:{i}", p) for i, p in enumerate(parsed, start=1)]
    return text, None


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
        self._f = open(path, "a", encoding="utf-8")
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
        self._f = open(self.path, "w", encoding="utf-8")
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
    if finished or header:
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
