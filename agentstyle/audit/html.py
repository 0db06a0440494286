"""The audit as one self-contained HTML page: tables, inline SVG charts, the charts' data as JSON.

Nothing on the page points outside it (no scripts, fonts, stylesheets or images to fetch), so
it opens the same from a laptop, an attachment or an air-gapped share.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any

WIDTH = 760
MAX_RULE_BARS = 40
HITS_COLOUR = "#3b6fb6"
BLOCKS_COLOUR = "#c0392b"
LINE_COLOUR = "#c0392b"
HIST_COLOUR = "#5b8c5a"

_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.meta { color: #666; margin: 0 0 16px; }
figure { margin: 16px 0 24px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.empty { color: #888; font-style: italic; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; white-space: nowrap; }
th { text-align: left; background: #f6f6f6; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.flag { color: #a05a00; font-weight: 600; }
td.flag.erroring { color: #b00020; }
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no `</script>` or comment opener can appear."""
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# -- cells -----------------------------------------------------------------------------------------

_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)(\.\d+)?$")


def cell_text(column: str, value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if column.endswith("_rate"):
            return f"{value * 100:.1f}%"
        if column.endswith("_ms"):
            return f"{value:.2f}"
        return f"{value:.3f}".rstrip("0").rstrip(".")
    if isinstance(value, str):
        m = _ISO.match(value)
        if m:
            clock = m.group(2)
            return m.group(1) if clock in ("00:00", "00:00:00") else f"{m.group(1)} {clock}"
        return value
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def table_html(name: str, columns: list[str], rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="empty">no rows in this window</p>'
    numeric = {
        c
        for c in columns
        if any(isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)
    }
    head = "".join(f"<th>{esc(c.replace('_', ' '))}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c)
            classes = []
            if c in numeric:
                classes.append("num")
            if c == "flag" and value:
                classes.append("flag")
                if "erroring" in str(value):
                    classes.append("erroring")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            cells.append(f"<td{attr}>{esc(cell_text(c, value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table id="table-{esc(name)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


# -- charts ----------------------------------------------------------------------------------------


def _svg(height: float, inner: str, label: str) -> str:
    h = math.ceil(height)
    return (
        f'<svg viewBox="0 0 {WIDTH} {h}" width="{WIDTH}" height="{h}" role="img" '
        f'aria-label="{esc(label)}">{inner}</svg>'
    )


def _nice_max(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above `value` (axis top)."""
    if value <= 0:
        return 1.0
    exp = math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        top = step * 10.0**exp
        if top >= value - 1e-12:
            return top
    return 10.0 ** (exp + 1)


def rule_bars(points: list[dict[str, Any]]) -> str:
    """Hits and blocks per rule: two horizontal bars a row."""
    if not points:
        return '<p class="empty">no rule fired in this window</p>'
    shown = points
    if len(points) > MAX_RULE_BARS:  # the busiest rules, still in policy order
        busiest = sorted(points, key=lambda p: (-int(p["hits"] or 0), -int(p["blocks"] or 0)))
        keep = {id(p) for p in busiest[:MAX_RULE_BARS]}
        shown = [p for p in points if id(p) in keep]
    label_w = min(280, 12 + 6.6 * max(len(str(p["rule"])) for p in shown))
    left, right, row_h, top = label_w, 60, 26, 26
    span = WIDTH - left - right
    top_value = max(max(int(p["hits"] or 0), int(p["blocks"] or 0)) for p in shown) or 1
    parts = [
        f'<rect x="{left}" y="6" width="10" height="10" fill="{HITS_COLOUR}"/>'
        f'<text x="{left + 14}" y="15">hits</text>'
        f'<rect x="{left + 60}" y="6" width="10" height="10" fill="{BLOCKS_COLOUR}"/>'
        f'<text x="{left + 74}" y="15">blocks</text>'
    ]
    for i, p in enumerate(shown):
        y = top + i * row_h
        rule = str(p["rule"])
        parts.append(
            f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{esc(_clip(rule, 44))}</text>'
        )
        for j, (key, colour) in enumerate((("hits", HITS_COLOUR), ("blocks", BLOCKS_COLOUR))):
            value = int(p[key] or 0)
            w = span * value / top_value
            by = y + 3 + j * 10
            parts.append(
                f'<rect x="{left}" y="{by}" width="{w:.1f}" height="9" fill="{colour}">'
                f"<title>{esc(rule)}: {value} {key}</title></rect>"
                f'<text x="{left + w + 4:.1f}" y="{by + 8}">{value}</text>'
            )
    height = top + len(shown) * row_h + 6
    if len(points) > len(shown):
        parts.append(
            f'<text x="{left}" y="{height + 8}">… {len(points) - len(shown)} more rules '
            f"in the table below</text>"
        )
        height += 16
    return _svg(height, "".join(parts), "hits and blocks per rule")


def rate_line(points: list[dict[str, Any]], bucket: str) -> str:
    """Block rate over time: a line over the buckets; a bucket without events breaks it."""
    known = [p for p in points if p["block_rate"] is not None]
    if not known:
        return '<p class="empty">no events in this window</p>'
    left, right, top, bottom, height = 52, 20, 14, 40, 240
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    y_top = _nice_max(max(float(p["block_rate"]) for p in known))
    n = len(points)

    def x_of(i: int) -> float:
        return left + (plot_w / 2 if n == 1 else plot_w * i / (n - 1))

    def y_of(rate: float) -> float:
        return top + plot_h * (1 - rate / y_top)

    parts = []
    for frac in (0.0, 0.5, 1.0):
        y = y_of(y_top * frac)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - right}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{y_top * frac * 100:.0f}%</text>"
        )
    runs: list[list[str]] = [[]]
    for i, p in enumerate(points):
        if p["block_rate"] is None:
            runs.append([])
            continue
        x, y = x_of(i), y_of(float(p["block_rate"]))
        runs[-1].append(f"{x:.1f},{y:.1f}")
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{LINE_COLOUR}">'
            f"<title>{esc(cell_text('bucket', p['bucket']))}: "
            f"{float(p['block_rate']) * 100:.1f}% of {p['events']} events</title></circle>"
        )
    for run in runs:
        if len(run) > 1:
            parts.append(
                f'<polyline points="{" ".join(run)}" fill="none" stroke="{LINE_COLOUR}" '
                f'stroke-width="2"/>'
            )
    marks = sorted({0, n // 2, n - 1})
    for i in marks:
        anchor = "start" if i == 0 and n > 1 else "end" if i == n - 1 and n > 1 else "middle"
        parts.append(
            f'<text x="{x_of(i):.1f}" y="{height - bottom + 18}" text-anchor="{anchor}">'
            f"{esc(cell_text('bucket', points[i]['bucket']))}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        f"per {esc(bucket)}</text>"
    )
    return _svg(height, "".join(parts), "block rate over time")


def duration_label(us: int) -> str:
    if us < 1000:
        return f"{us} µs"
    if us < 1_000_000:
        return f"{us / 1000:.3g} ms"
    return f"{us / 1_000_000:.3g} s"


def latency_histogram(points: list[dict[str, Any]]) -> str:
    """Hook latency: events per power-of-two bucket, as vertical bars (empty buckets kept)."""
    if not points:
        return '<p class="empty">no answered events in this window</p>'
    counts = {int(p["low_us"]): int(p["events"]) for p in points}
    low, high = min(counts), max(counts)
    points = []
    while low <= high:
        points.append({"low_us": low, "high_us": low * 2, "events": counts.get(low, 0)})
        low *= 2
    left, right, top, bottom, height = 52, 20, 14, 44, 240
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    y_top = _nice_max(max(int(p["events"]) for p in points))
    slot = plot_w / max(len(points), 8)
    parts = []
    for frac in (0.0, 0.5, 1.0):
        y = top + plot_h * (1 - frac)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - right}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{y_top * frac:g}</text>'
        )
    for i, p in enumerate(points):
        count = int(p["events"])
        h = plot_h * count / y_top
        x = left + i * slot + slot * 0.1
        label = f"{duration_label(int(p['low_us']))}–{duration_label(int(p['high_us']))}"
        parts.append(
            f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{slot * 0.8:.1f}" '
            f'height="{h:.1f}" fill="{HIST_COLOUR}"><title>{esc(label)}: {count} events</title>'
            f"</rect>"
            f'<text x="{x + slot * 0.4:.1f}" y="{height - bottom + 16}" text-anchor="middle">'
            f"{esc(duration_label(int(p['low_us'])))}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        f"latency (bucket lower bound)</text>"
    )
    return _svg(height, "".join(parts), "hook latency distribution")


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# -- the page --------------------------------------------------------------------------------------


def render(doc: dict[str, Any]) -> str:
    """The page for a dashboard document (engine.report.dashboard)."""
    charts = doc["charts"]
    filters = {k: v for k, v in doc["filters"].items() if v is not None and k != "bucket"}
    meta = [f"generated {doc['generated']}", f"source: {doc['source']}"]
    if filters:
        meta.append(", ".join(f"{k} {cell_text(k, v)}" for k, v in filters.items()))
    sections = [
        '<section id="charts"><h2>Charts</h2>',
        "<figure><figcaption>Hits and blocks per rule</figcaption>",
        rule_bars(charts["rules"]),
        "</figure>",
        f"<figure><figcaption>Block rate per {esc(charts['bucket'])}</figcaption>",
        rate_line(charts["block_rate"], charts["bucket"]),
        "</figure>",
        "<figure><figcaption>Hook latency</figcaption>",
        latency_histogram(charts["latency"]),
        "</figure></section>",
    ]
    for table in doc["tables"]:
        name = table["name"]
        sections.append(
            f'<section id="report-{esc(name)}"><h2>{esc(name)}</h2>'
            f"{table_html(name, table['columns'], table['rows'])}</section>"
        )
    data = {
        "generated": doc["generated"],
        "source": doc["source"],
        "filters": doc["filters"],
        "charts": charts,
    }
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>STYLE {esc(doc['title'])}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<header><h1>STYLE {esc(doc['title'])}</h1>"
        f'<p class="meta">{esc(" · ".join(meta))}</p></header>\n'
        + "\n".join(sections)
        + '\n<script type="application/json" id="style-audit-data">\n'
        + script_json(data)
        + "\n</script>\n</body>\n</html>\n"
    )
