"""`veil audit` cannot audit the wrong thing (issue 11): the sanitized field is never guessed into
the originals, a dataset that is mostly unchanged is flagged, degenerate input is a one-line
error in the CLI and a 400 from the server."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.conftest_server import KEY_A, responder, running_server
from tests.test_audit import CLAIMS, ORIGINALS, SANITIZED
from veil.cli import main
from veil.testing.scripted_llm import ScriptedLLM


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _audit(tmp_path: Path, *args: str) -> int:
    claims = _write(tmp_path / "claims.jsonl", CLAIMS)  # type: ignore[arg-type]
    return main(["audit", *args, "--claims", str(claims), "--judge", "none", "-o", str(tmp_path / "r.json"),
                 "--db", str(tmp_path / "veil.db"), "--no-progress"])


def test_two_files_sharing_the_text_field_need_the_sanitized_field(tmp_path, capsys):
    """Issue 11: `veil audit --original X --sanitized Y` audited Y's `text` column, which held the
    originals (linkage 0.996), without a word."""
    orig = _write(tmp_path / "o.jsonl", [{"text": o} for o in ORIGINALS])
    san = _write(tmp_path / "s.jsonl", [{"text": o, "clean": s} for o, s in zip(ORIGINALS, SANITIZED)])
    assert _audit(tmp_path, "--original", str(orig), "--sanitized", str(san)) == 2
    err = capsys.readouterr().err
    assert "both files have a field 'text': give --sanitized-field" in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()
    assert _audit(tmp_path, "--original", str(orig), "--sanitized", str(san), "--sanitized-field", "clean") == 0
    assert "identical" not in capsys.readouterr().err


def test_anonymized_text_is_the_default_when_present(tmp_path, capsys):
    orig = _write(tmp_path / "o.jsonl", [{"text": o} for o in ORIGINALS])
    # what `veil anonymize` writes: the input's fields, the original `text` among them, and anonymized_text
    san = _write(tmp_path / "s.jsonl", [{"text": o, "anonymized_text": s} for o, s in zip(ORIGINALS, SANITIZED)])
    assert _audit(tmp_path, "--original", str(orig), "--sanitized", str(san)) == 0
    err = capsys.readouterr().err
    assert "auditing the field 'anonymized_text'" in err and "identical" not in err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["lexical_privacy"] > 0.3  # the sanitized texts were audited (the originals give 0.0)
    # one file: the sanitized field must not be the original's
    both = _write(tmp_path / "b.jsonl", [{"text": o, "anonymized_text": s} for o, s in zip(ORIGINALS, SANITIZED)])
    assert _audit(tmp_path, "--original", str(both), "--sanitized-field", "text") == 2
    assert "audit the originals against themselves" in capsys.readouterr().err


def test_mostly_unchanged_sanitized_texts_are_flagged(tmp_path, capsys):
    orig = _write(tmp_path / "o.jsonl", [{"text": o} for o in ORIGINALS])
    san = _write(tmp_path / "s.jsonl", [{"anonymized_text": o} for o in ORIGINALS[:3]] + [{"anonymized_text": SANITIZED[3]}])
    assert _audit(tmp_path, "--original", str(orig), "--sanitized", str(san)) == 0
    err = capsys.readouterr().err
    assert "warning: 3 of 4 sanitized texts ('anonymized_text') are identical to their originals" in err


def test_degenerate_input_is_a_one_line_error(tmp_path, capsys):
    """Issue 11: "a b c" gave a bm25s traceback (ValueError: max() arg is an empty sequence)."""
    data = _write(tmp_path / "d.jsonl", [{"text": "a b c", "anonymized_text": "a b c"}])
    rc = main(["audit", "--original", str(data), "-o", str(tmp_path / "r.json"), "--db", str(tmp_path / "veil.db"),
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and "ValueError" not in err
    errors = [line for line in err.splitlines() if line.startswith("veil: error:")]
    assert errors == ["veil: error: the sanitized texts have no word to link on (only stopwords, one-letter words "
                      "or punctuation): nothing to audit"]


def test_degenerate_input_is_a_400_from_the_server(tmp_path):
    with ScriptedLLM(responder) as llm, running_server(llm, tmp_path / "veil.db") as base:
        r = httpx.post(base + "/v1/audits", headers={"Authorization": f"Bearer {KEY_A}"},
                       json={"originals": ["a b c"], "sanitized": ["a b c"], "wait": True}, timeout=60)
    assert r.status_code == 400, r.text
    assert "no word to link on" in r.json()["error"]["message"]
