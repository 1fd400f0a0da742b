"""The trace viewer: one self-contained HTML page per run, rendered on the server.

Per iteration: the mode, the privacy rank and utility, the clues the attacker used, the edits,
and an inline word diff against the previous version (``<del>`` / ``<ins>``); above them an SVG
chart of the privacy rank and the utility over the iterations. No script, no external asset
(the page works offline and its Content-Security-Policy forbids scripts); every piece of text is
HTML-escaped.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from html import escape
from importlib import resources
from typing import Any

_TOKENS = re.compile(r"\s+|[^\s]+")

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def _css() -> str:
    return resources.files("veil.server").joinpath("static/trace.css").read_text(encoding="utf-8")


def diff_html(before: str, after: str) -> str:
    """Word diff of two versions, whitespace kept, every token escaped. Changes separated only
    by whitespace are shown as one change (``<del>Alice Smith</del><ins>A person</ins>``)."""
    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    segs: list[list[Any]] = []  # [changed, old text, new text]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        segs.append([op != "equal", "".join(a[i1:i2]), "".join(b[j1:j2])])
    for i in range(1, len(segs) - 1):  # whitespace between two changes joins them
        if not segs[i][0] and not segs[i][1].strip() and segs[i - 1][0] and segs[i + 1][0]:
            segs[i][0] = True
    merged: list[list[Any]] = []
    for seg in segs:
        if merged and seg[0] and merged[-1][0]:
            merged[-1][1] += seg[1]
            merged[-1][2] += seg[2]
        else:
            merged.append(list(seg))
    out: list[str] = []
    for changed, old, new in merged:
        if not changed:
            out.append(escape(old))
            continue
        if old:
            out.append(f"<del>{escape(old)}</del>")
        if new:
            out.append(f"<ins>{escape(new)}</ins>")
    return "".join(out)


def chart_svg(iterations: list[dict[str, Any]], k: int | None, width: int = 880, height: int = 260) -> str:
    """Privacy rank (left axis, 1..K+1, higher = safer) and utility (right axis, 0..1) per
    iteration, as two polylines with a point per iteration."""
    n = len(iterations)
    if n == 0:
        return ""
    ranks = [it["privacy_score"] for it in iterations if it["privacy_score"] is not None]
    top = max([(k or 1) + 1, *ranks])
    left, right, tp, bottom = 48, 48, 16, 36
    w, h = width - left - right, height - tp - bottom

    def x(i: int) -> float:
        return left + (w * i / (n - 1) if n > 1 else w / 2)

    def y_rank(r: float) -> float:
        return tp + h - h * (r - 1) / max(1, top - 1)

    def y_util(u: float) -> float:
        return tp + h - h * u

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="privacy rank and utility per iteration">',
        f'<rect x="{left}" y="{tp}" width="{w}" height="{h}" class="plot"/>',
    ]
    # grid + axes labels
    for r in sorted({1, top, *(range(1, top + 1, max(1, top // 5)))}):
        yy = y_rank(r)
        parts.append(f'<line x1="{left}" x2="{left + w}" y1="{yy:.1f}" y2="{yy:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" class="axis privacy" text-anchor="end">{r}</text>')
    for u in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{left + w + 6}" y="{y_util(u) + 4:.1f}" class="axis utility">{u:.1f}</text>')
    if k is not None and k + 1 <= top:
        yk = y_rank(k + 1)
        parts.append(f'<line x1="{left}" x2="{left + w}" y1="{yk:.1f}" y2="{yk:.1f}" class="target"/>')
    for i, it in enumerate(iterations):
        parts.append(f'<text x="{x(i):.1f}" y="{tp + h + 16}" class="axis" text-anchor="middle">{it["iteration"]}</text>')
    parts.append(f'<text x="{left + w / 2}" y="{height - 4}" class="axis" text-anchor="middle">iteration</text>')
    for cls, key, fy in (("privacy", "privacy_score", y_rank), ("utility", "utility_score", y_util)):
        pts = [(x(i), fy(it[key]), it) for i, it in enumerate(iterations) if it[key] is not None]
        if not pts:
            continue
        coords = " ".join(f"{px:.1f},{py:.1f}" for px, py, _ in pts)
        parts.append(f'<polyline class="line {cls}" data-series="{cls}" points="{coords}"/>')
        for px, py, it in pts:
            value = it[key] if key == "privacy_score" else f"{it[key]:.2f}"
            parts.append(
                f'<circle class="pt {cls}" cx="{px:.1f}" cy="{py:.1f}" r="4"><title>iteration {it["iteration"]}: '
                f'{"privacy rank" if cls == "privacy" else "utility"} {escape(str(value))}</title></circle>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _rank(p: int | None, k: int | None) -> str:
    if p is None:
        return "–"
    return f"{p} (not in top {k})" if k is not None and p > k else str(p)


def _time(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else "–"


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{escape(title)}</title><style>{_css()}</style></head><body>{body}</body></html>"
    )


def render_trace(run: dict[str, Any], iterations: list[dict[str, Any]]) -> str:
    cfg = run.get("config") or {}
    result = run.get("result") or {}
    k = cfg.get("k") or (iterations[0]["k"] if iterations else None)
    best = result.get("best_iteration")
    h: list[str] = []
    h.append(f'<header><h1>Trace <code>{escape(run["run_id"])}</code></h1>')
    h.append('<dl class="meta">')
    for label, value in (
        ("status", run.get("status")),
        ("document", run.get("doc_id")),
        ("profile", cfg.get("profile")),
        ("K / p_max / u_target", f'{cfg.get("k")} / {cfg.get("p_max")} / {cfg.get("u_target")}'),
        ("iterations", len(iterations)),
        ("best iteration", best),
        ("stop", result.get("stop_reason")),
        ("privacy target met", result.get("privacy_target_met")),
        ("privacy status", result.get("privacy_status")),
        ("started", _time(run.get("created_at"))),
        ("updated", _time(run.get("updated_at"))),
    ):
        h.append(f"<dt>{escape(label)}</dt><dd>{escape('–' if value is None else str(value))}</dd>")
    h.append("</dl></header>")
    if run.get("error"):
        h.append(f'<p class="error">error: {escape(str(run["error"]))}</p>')
    if result.get("privacy_note"):
        h.append(f'<p class="note privacy-note">{escape(str(result.get("privacy_status")))}: '
                 f'{escape(str(result["privacy_note"]))}</p>')
    if result.get("rejections"):
        h.append('<div class="rejections"><h3>Rejected optimizer answers</h3><ul>')
        h.extend(f'<li>iteration {escape(str(r.get("iteration")))} ({escape(str(r.get("mode")))}): '
                 f'{escape(str(r.get("reason")))}</li>' for r in result["rejections"])
        h.append("</ul><p>The best version so far was kept.</p></div>")
    if iterations:
        h.append('<section class="chart-box"><h2>Privacy rank and utility</h2>')
        h.append('<p class="legend"><span class="key privacy"></span> privacy rank (left axis; above the dashed line '
                 'the attacker no longer finds the truth in its top K) <span class="key utility"></span> utility '
                 '(right axis)</p>')
        h.append(chart_svg(iterations, k))
        h.append("</section>")
    else:
        h.append('<p class="empty">No iteration recorded yet.</p>')
    stored = run.get("text_stored") or "full"
    if stored != "full":
        h.append(f'<p class="note text-not-stored">The texts, clues and edits of this run were not stored (store-text '
                 f'{escape(stored)}{"; each iteration keeps a sha256 of its text" if stored == "hash" else ""}): '
                 'anonymize with <code>--store-text full</code> to see them here.</p>')
    prev: str | None = None
    for it in iterations:
        classes = "iteration" + (" best" if it["iteration"] == best else "")
        h.append(f'<section class="{classes}" id="iteration-{it["iteration"]}">')
        mode = it["mode"] or "original"
        util = "–" if it["utility_score"] is None else f'{it["utility_score"]:.2f}'
        h.append(
            f'<h2>Iteration {it["iteration"]} <span class="mode {escape(mode)}">{escape(mode)}</span>'
            + (' <span class="badge">best</span>' if it["iteration"] == best else "")
            + "</h2>"
        )
        h.append(
            '<p class="scores">'
            f'privacy rank <b class="privacy-score">{escape(_rank(it["privacy_score"], it["k"]))}</b> · '
            f'utility <b class="utility-score">{escape(util)}</b> · '
            f'tokens {int(it.get("prompt_tokens") or 0)}/{int(it.get("completion_tokens") or 0)} · '
            f'{float(it.get("latency_ms") or 0):.0f} ms</p>'
        )
        if it["clues"]:
            h.append('<div class="clues"><h3>Clues</h3><ul>')
            h.extend(f"<li>{escape(str(c))}</li>" for c in it["clues"])
            h.append("</ul></div>")
        if it.get("edits"):
            h.append('<div class="edits"><h3>Edits</h3><ul>')
            for e in it["edits"]:
                h.append(
                    f'<li><span class="op">{escape(str(e.get("operation", "")))}</span> '
                    f'<del>{escape(str(e.get("before", "")))}</del> → <ins>{escape(str(e.get("after", "")))}</ins>'
                    + (f' <span class="reason">{escape(str(e["reason"]))}</span>' if e.get("reason") else "")
                    + "</li>"
                )
            h.append("</ul></div>")
        if stored == "hash":
            h.append(f'<p class="text-hash"><code>{escape(it["text"])}</code></p>')
        elif stored == "full":
            text_html = escape(it["text"]) if prev is None else diff_html(prev, it["text"])
            h.append(f'<div class="text{" diff" if prev is not None else ""}">{text_html}</div>')
        h.append("</section>")
        prev = it["text"]
    return _page(f"veil trace {run['run_id']}", "".join(h))


def render_list(runs: list[dict[str, Any]], key_param: str = "") -> str:
    rows = "".join(
        f'<tr><td><a href="/traces/{escape(r["run_id"], quote=True)}{key_param}">{escape(r["run_id"])}</a></td>'
        f'<td>{escape(str(r.get("doc_id") or ""))}</td><td>{escape(r["kind"])}</td><td>{escape(r["status"])}</td>'
        f'<td>{_time(r.get("created_at"))}</td></tr>'
        for r in runs
    )
    body = (
        "<header><h1>Recent runs</h1></header><table class=\"runs\"><thead><tr><th>run</th><th>document</th>"
        f"<th>kind</th><th>status</th><th>started</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return _page("veil runs", body)
