"""Reading documents (txt, JSONL, stdin) and writing results without losing data: outputs
are written to a temporary file and renamed into place (atomic), and finished documents of a
batch are journalled as they complete so that an interrupted run resumes where it stopped."""

from __future__ import annotations

import json
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

    def close(self) -> None:
        self._f.close()

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
