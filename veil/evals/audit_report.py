"""The audit report: a JSON-able dict (:func:`build_report`), the mean of several seeds
(:func:`combine_runs`), a self-contained HTML page (:func:`to_html`: no CDN, an inline SVG
histogram of per-record leakage and the 10 worst records) and a Markdown summary.

Metrics ("A False Sense of Privacy"):
* ``linkage_rate``: share of originals whose auxiliary claims link to their own sanitized
  record (null without a known mapping);
* ``semantic_privacy``: per judged claim (rating - 1) / 2, mean per record, mean over records
  that have judged claims; ``semantic_leakage`` = 1 - semantic_privacy;
* ``lexical_privacy``: mean over records of 1 - ROUGE-L F1(original, linked record).
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from statistics import mean
from typing import Any

from veil.agents.judge import rating_to_privacy

METRICS = ("linkage_rate", "semantic_privacy", "semantic_leakage", "lexical_privacy", "lexical_leakage")


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def build_report(
    *,
    audit_id: str,
    ids: list[str],
    sanitized_ids: list[str],
    claims: list[list[str]],
    claims_source: str,
    aux: list[list[int]],
    links: list[dict[str, Any]],
    judged: dict[str, list[dict[str, Any]]] | None,
    config: dict[str, Any],
    judge: dict[str, Any],
    timings: dict[str, float],
) -> dict[str, Any]:
    records = []
    for i, cl in enumerate(claims):
        ln = links[i]
        rec: dict[str, Any] = {
            "id": ids[i],
            "linked_id": sanitized_ids[ln["linked"]],
            "correct": ln["correct"],
            "link_score": ln["score"],
            "aux_claims": [cl[k] for k in aux[i]],
            "n_claims": len(cl),
            "lexical_privacy": ln["lexical_privacy"],
            "semantic_privacy": None,
            "semantic_leakage": None,
            "claims": [],
        }
        if judged is not None:
            verdicts = judged.get(str(i), [])
            rec["claims"] = [{"claim": cl[v["claim"]], **{k: x for k, x in v.items() if k != "claim"}} for v in verdicts]
            if verdicts:
                p = mean(rating_to_privacy(v["rating"]) for v in verdicts)
                rec["semantic_privacy"], rec["semantic_leakage"] = _r(p), _r(1 - p)
        records.append(rec)
    judged_recs = [r["semantic_privacy"] for r in records if r["semantic_privacy"] is not None]
    links_known = [r["correct"] for r in records if r["correct"] is not None]
    sem = mean(judged_recs) if judged_recs else None
    lex = mean(r["lexical_privacy"] for r in records) if records else None
    ratings = [c["rating"] for r in records for c in r["claims"]]
    return {
        "audit_id": audit_id,
        "linkage_rate": _r(mean(links_known)) if links_known else None,
        "semantic_privacy": _r(sem),
        "semantic_leakage": _r(None if sem is None else 1 - sem),
        "lexical_privacy": _r(lex),
        "lexical_leakage": _r(None if lex is None else 1 - lex),
        "n_records": len(records),
        "n_sanitized": len(sanitized_ids),
        "n_claims": sum(map(len, claims)),
        "n_claims_judged": len(ratings),
        "ratings": {str(k): ratings.count(k) for k in (1, 2, 3)},
        "claims_source": claims_source,
        "config": config,
        "judge": judge,
        "timings": {k: round(v, 3) for k, v in timings.items()},
        "records": records,
    }


def combine_runs(reports: list[dict[str, Any]], seeds: list[int]) -> dict[str, Any]:
    """Several seeds of the same audit: the metrics are the means over the seeds; the
    per-record results are the first seed's; every seed's metrics are kept in ``runs``."""
    if len(reports) == 1:
        return reports[0]
    first = dict(reports[0])
    for m in METRICS:
        vals = [r[m] for r in reports if r.get(m) is not None]
        first[m] = _r(mean(vals)) if vals else None
    first["seeds"] = list(seeds)
    first["runs"] = [
        {"seed": s, "audit_id": r["audit_id"], **{m: r.get(m) for m in METRICS}, "timings": r.get("timings")}
        for s, r in zip(seeds, reports)
    ]
    first["config"] = {**first["config"], "seed": list(seeds)}
    first["timings"] = {
        k: round(sum((r.get("timings") or {}).get(k, 0.0) for r in reports), 3)
        for k in sorted({k for r in reports for k in (r.get("timings") or {})})
    }
    return first


# -- rendering -----------------------------------------------------------------------------


def _fmt(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.3f}"
    return str(x)


def markdown_summary(report: dict[str, Any]) -> str:
    cfg = report.get("config", {})
    lines = [
        f"## veil audit `{report.get('audit_id', '')}`",
        "",
        f"{report['n_records']} records, {report['n_claims_judged']} claims judged by `{report.get('judge', {}).get('name')}`, "
        f"linker `{cfg.get('linker')}`, aux `{cfg.get('aux')}` (seed {cfg.get('seed')})",
        "",
        "| metric | value |",
        "|---|---|",
    ]
    for m in METRICS:
        lines.append(f"| {m} | {_fmt(report.get(m))} |")
    for run in report.get("runs", []):
        lines.append(f"| seed {run['seed']}: linkage / semantic leakage | {_fmt(run['linkage_rate'])} / {_fmt(run['semantic_leakage'])} |")
    return "\n".join(lines)


def histogram_svg(values: list[float], bins: int = 10, width: int = 520, height: int = 220) -> str:
    """Inline SVG bar chart of values in [0,1]."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins)))] += 1
    top = max(counts) or 1
    pad_l, pad_b, pad_t = 40, 30, 10
    bw = (width - pad_l - 10) / bins
    ph = height - pad_b - pad_t
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="histogram of per-record semantic leakage">',
        f'<line x1="{pad_l}" y1="{pad_t + ph}" x2="{width - 10}" y2="{pad_t + ph}" stroke="#333"/>',
    ]
    for i, c in enumerate(counts):
        h = ph * c / top
        x = pad_l + i * bw
        parts.append(
            f'<rect x="{x + 2:.1f}" y="{pad_t + ph - h:.1f}" width="{bw - 4:.1f}" height="{h:.1f}" fill="#c0392b">'
            f"<title>{i / bins:.1f}-{(i + 1) / bins:.1f}: {c} records</title></rect>"
        )
        if c:
            parts.append(f'<text x="{x + bw / 2:.1f}" y="{pad_t + ph - h - 2:.1f}" font-size="10" text-anchor="middle">{c}</text>')
    for i in range(0, bins + 1, 2):
        x = pad_l + i * bw
        parts.append(f'<text x="{x:.1f}" y="{height - 12}" font-size="10" text-anchor="middle">{i / bins:.1f}</text>')
    parts.append(f'<text x="{width / 2:.0f}" y="{height - 1}" font-size="10" text-anchor="middle">semantic leakage per record</text>')
    parts.append("</svg>")
    return "".join(parts)


def to_html(report: dict[str, Any]) -> str:
    e = html.escape
    recs = report.get("records", [])
    leak_vals = [r["semantic_leakage"] for r in recs if r.get("semantic_leakage") is not None]
    if not leak_vals:  # no judge: show the lexical leakage instead
        leak_vals = [1 - r["lexical_privacy"] for r in recs]
    worst = sorted(
        recs,
        key=lambda r: -(r["semantic_leakage"] if r.get("semantic_leakage") is not None else 1 - r["lexical_privacy"]),
    )[:10]
    metric_rows = "".join(f"<tr><th>{e(m)}</th><td>{e(_fmt(report.get(m)))}</td></tr>" for m in METRICS)
    run_rows = "".join(
        f"<tr><td>{e(str(r['seed']))}</td><td>{e(_fmt(r['linkage_rate']))}</td><td>{e(_fmt(r['semantic_leakage']))}</td>"
        f"<td>{e(_fmt(r['lexical_privacy']))}</td></tr>"
        for r in report.get("runs", [])
    )
    worst_rows = []
    for r in worst:
        leaked = [c for c in r.get("claims", []) if c.get("rating") == 1][:5]
        leaked_html = "".join(f"<li>{e(c['claim'])}</li>" for c in leaked)
        worst_rows.append(
            f"<tr><td>{e(str(r['id']))}</td><td>{e(str(r['linked_id']))}</td><td>{e(_fmt(r['correct']))}</td>"
            f"<td>{e(_fmt(r.get('semantic_leakage')))}</td><td>{e(_fmt(1 - r['lexical_privacy']))}</td>"
            f"<td><ul>{leaked_html}</ul></td></tr>"
        )
    cfg = json.dumps(report.get("config", {}), indent=2)
    judge = json.dumps(report.get("judge", {}), indent=2)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>veil audit {e(report.get('audit_id', ''))}</title>
<style>
body{{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;color:#222}}
table{{border-collapse:collapse;margin:1em 0}} td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}}
pre{{background:#f6f6f6;padding:8px;overflow:auto}} ul{{margin:0;padding-left:1.2em}}
</style></head><body>
<h1>veil audit</h1>
<p>{report['n_records']} original records against {report['n_sanitized']} sanitized records;
{report['n_claims_judged']} claims judged. Audit id <code>{e(report.get('audit_id', ''))}</code>.</p>
<h2>Summary</h2><table>{metric_rows}</table>
{'<h2>Seeds</h2><table><tr><th>seed</th><th>linkage</th><th>semantic leakage</th><th>lexical privacy</th></tr>' + run_rows + '</table>' if run_rows else ''}
<h2>Per-record leakage</h2>
{histogram_svg(leak_vals)}
<h2>10 most leaking records</h2>
<table><tr><th>id</th><th>linked to</th><th>correct link</th><th>semantic leakage</th><th>lexical leakage</th><th>claims still stated (up to 5)</th></tr>
{''.join(worst_rows)}</table>
<h2>Configuration</h2><pre>{e(cfg)}</pre>
<h2>Judge</h2><pre>{e(judge)}</pre>
</body></html>
"""


def write_report(report: dict[str, Any], path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write the JSON report and ``report.html`` next to it (atomically). Returns both paths."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    html_path = p.parent / "report.html"
    for target, body in ((p, json.dumps(report, ensure_ascii=False, indent=1)), (html_path, to_html(report))):
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(body, encoding="utf-8")
        os.replace(tmp, target)
    return p, html_path
