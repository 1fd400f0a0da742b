"""``veil eval``: link@rand3, label accuracy and mean cosine of sanitized texts, in-process
through :func:`veil.cli.main` on a small hand-written batch (MiniLM only, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veil.cli import main
from tests.test_local_engine import BATCH

# distinctive, aligned claims: exactly three usable ones per record (+ the excluded name claim)
CLAIMS: dict[str, list[str]] = {
    "b1": ["born in Hamburg", "opened the restaurant Blaue Gans", "earned two Michelin stars"],
    "b2": ["born in Krakow", "studied at the Jagiellonian University", "bistro Szafran won the Golden Ladle"],
    "b3": ["runs a noodle kitchen in Kyoto", "wrote three cookbooks on broth", "Kansai Cook of the Year"],
    "b4": ["born in Seville", "junior title at Roland Garros", "career-high ranking of 14"],
    "b5": ["born in Gothenburg", "played college tennis at Stanford", "doubles title at the Stockholm Open"],
    "b6": ["from Kumasi", "played the Davis Cup", "coaches juniors in Accra"],
    "b7": ["born in Turin", "studied at the Politecnico di Milano", "designed the Vetra library"],
    "b8": ["born in Aarhus", "taught at the Royal Danish Academy", "harbour baths in Copenhagen"],
    "b9": ["from Recife", "timber school in Manaus", "shortlisted for the Pritzker Prize"],
    "b10": ["born in Novosibirsk", "fish restaurant in Vladivostok", "television show about dumplings"],
    "b11": ["born in Lagos", "bronze medal at the African Games", "hard courts in Abuja"],
    "b12": ["born in Ghent", "restored the old cloth hall in Bruges", "book about brick vaults"],
}
UNRELATED = [
    "The river was calm this morning and the ferry left on time.",
    "A recipe for lemon cake needs flour, sugar, eggs and butter.",
    "The committee postponed the vote on the new parking rules.",
    "Clouds gathered over the hills before the evening storm.",
    "The museum shop sells postcards, mugs and small notebooks.",
    "Traffic on the ring road was slow because of roadworks.",
    "The library extended its opening hours during exam season.",
    "A new bus line connects the airport with the old harbour.",
    "The orchestra rehearsed the symphony twice before the concert.",
    "Farmers expect a good harvest of apples and pears this year.",
    "The software update fixes a bug in the printing dialog.",
    "Volunteers cleaned the beach and collected plastic bottles.",
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data.jsonl"
    claims = tmp_path / "claims.jsonl"
    rows = [dict(id=d["id"], text=d["text"], label=d["label"], unrelated=u, anonymized_text=d["text"].replace(d["name"], "the person"))
            for d, u in zip(BATCH, UNRELATED)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    claims.write_text("".join(json.dumps([f"name is {d['name']}", *CLAIMS[d["id"]]]) + "\n" for d in BATCH),
                      encoding="utf-8")
    return data, claims


@pytest.mark.slow
def test_eval_originals_link_perfectly_and_unrelated_texts_do_not(files, tmp_path: Path, capsys) -> None:
    data, claims = files
    out = tmp_path / "metrics.json"
    rc = main(["eval", str(data), "--sanitized-field", "text", "--sanitized-field", "unrelated", "--label-field",
               "label", "--claims", str(claims), "--seeds", "0,1,2", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    assert "link@rand3" in capsys.readouterr().out
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["records"] == len(BATCH)
    assert report["seeds"] == [0, 1, 2]
    orig, unrel = report["metrics"]["text"], report["metrics"]["unrelated"]
    assert orig["link@rand3"] == pytest.approx(1.0)
    assert orig["mean_cosine"] == pytest.approx(1.0, abs=1e-4)
    assert orig["label_accuracy"] >= 0.75
    assert unrel["link@rand3"] <= 0.25
    assert unrel["mean_cosine"] < 0.3
    assert unrel["label_accuracy"] < orig["label_accuracy"]


@pytest.mark.slow
def test_eval_default_field_and_original_file(files, tmp_path: Path) -> None:
    data, claims = files
    orig = tmp_path / "orig.jsonl"
    orig.write_text(data.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "m.json"
    # default sanitized field anonymized_text (names taken out, facts kept: still linkable)
    assert main(["eval", str(data), "--original", str(orig), "--claims", str(claims), "-o", str(out)]) == 0
    m = json.loads(out.read_text(encoding="utf-8"))["metrics"]
    assert list(m) == ["anonymized_text"]
    assert m["anonymized_text"]["label_accuracy"] is None
    assert m["anonymized_text"]["link@rand3"] >= 0.9
    assert 0.6 < m["anonymized_text"]["mean_cosine"] < 1.0


def test_eval_misaligned_claims_is_a_user_error(files, tmp_path: Path, capsys) -> None:
    data, claims = files
    short = tmp_path / "short.jsonl"
    short.write_text("".join(claims.read_text(encoding="utf-8").splitlines(keepends=True)[:-2]), encoding="utf-8")
    out = tmp_path / "never.json"
    rc = main(["eval", str(data), "--sanitized-field", "text", "--claims", str(short), "-o", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "aligned" in err and str(len(BATCH) - 2) in err
    assert not out.exists()


def test_eval_user_errors(files, tmp_path: Path, capsys) -> None:
    data, claims = files
    assert main(["eval", str(data), "--sanitized-field", "nope", "--claims", str(claims)]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["eval", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["eval", str(data), "--sanitized-field", "text", "--seeds", "a,b"]) == 2
    assert "--seeds" in capsys.readouterr().err
