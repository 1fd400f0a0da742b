"""The tolerant matcher used to decide whether an attacker's guess hits the ground truth."""

from __future__ import annotations

import pytest

from veil.matching import first_match_rank, fold, matches, ngram_similarity, tokens


@pytest.mark.parametrize(
    ("guess", "truth"),
    [
        ("Kurt Fishback", "Kurt Edward Fishback"),  # a middle name left out
        ("Kurt Edward Fishback", "Kurt Fishback"),  # a middle name added
        ("Edward Fishback", "Kurt Edward Fishback"),
        ("kurt fishback", "Kurt Edward Fishback"),  # case
        ("KURT FISHBACK.", "Kurt Fishback"),  # case + punctuation
        ("Zoë Saldaña", "Zoe Saldana"),  # diacritics
        ("Mårten Lindqvist", "Marten Lindqvist"),
        ("Inês Duarte", "INES DUARTE"),
        ("Jean-Paul Sartre", "Jean Paul Sartre"),  # punctuation folds to a space
        ("Dr. Adaeze Okafor", "Adaeze Okafor"),  # titles are stop words
        ("Paris", "Paris"),
        ("Paris, France", "Paris"),  # single-token truth fully present in a short guess
        ("Univ. of California Davis", "University of California, Davis"),  # n-gram overlap
        ("Massachusetts Inst. of Technology", "Massachusetts Institute of Technology"),
    ],
)
def test_matches(guess, truth):
    assert matches(guess, truth)


@pytest.mark.parametrize(
    ("guess", "truth"),
    [
        ("Kurt Cobain", "Kurt Edward Fishback"),  # a different person sharing the first name
        ("Kurt", "Kurt Edward Fishback"),  # a first name alone is not the person
        ("Kurt Edward Smith", "Kurt Edward Fishback"),  # two shared tokens, but the wrong surname
        ("Mary Ann Smith", "Mary Ann Jones"),
        ("Adaeze Nwosu", "Adaeze Okafor"),
        ("San Diego", "San Francisco"),
        ("Lyon, France", "Paris, France"),  # same country, different city
        ("University of California Los Angeles", "University of California Davis"),
        ("", "Kurt Fishback"),
        ("Kurt Fishback", ""),
        ("...", "Kurt Fishback"),
    ],
)
def test_does_not_match(guess, truth):
    assert not matches(guess, truth)


def test_fold_and_tokens():
    assert fold("  Zoë   SALDAÑA, Jr. ") == "zoe saldana jr"
    assert fold("O'Brien-Smith") == "o brien smith"
    assert tokens("The University of Porto") == ["university", "porto"]


def test_ngram_similarity():
    assert ngram_similarity("abc def", "ABC, def!") == 1.0
    assert ngram_similarity("", "x") == 0.0
    assert 0.0 < ngram_similarity("University of California Davis", "Univ. of California Davis") < 1.0
    assert ngram_similarity("San Diego", "Stockholm") < 0.2


def test_first_match_rank():
    guesses = ["Kurt Cobain", "Kurt Vonnegut", "Kurt Fishback", "Kurt Edward Fishback"]
    assert first_match_rank(guesses, "Kurt Edward Fishback") == 3
    assert first_match_rank(guesses, "Somebody Else") is None
    assert first_match_rank([], "Kurt Fishback") is None
    assert first_match_rank(["Lyon, France", "Leeds"], ["Leeds, UK", "Leeds"]) == 2  # any of several truths
    assert first_match_rank(["paris", "Paris"], "Paris") == 1
