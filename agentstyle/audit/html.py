"""The audit as one self-contained HTML page.

What needs attention, inline SVG charts, every report's table, and the charts' data as JSON.

Nothing on the page points outside it (no scripts, fonts, stylesheets or images to fetch), so
it opens the same from a laptop, an attachment or an air-gapped share. The page uses the whole
window width; tables wrap their long text columns rather than scroll sideways.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable
from typing import Any

from agentstyle.audit.cells import scalar_text

MAX_RULE_BARS = 40
HITS_COLOUR = "#3b6fb6"
ASKS_COLOUR = "#d08a00"
BLOCKS_COLOUR = "#c0392b"
VOLUME_COLOUR = "#d5dbe3"
HIST_COLOUR = "#5b8c5a"
MARK_COLOUR = "#333"
# Columns whose text is long and may wrap inside the table (everything else stays on one line),
# and identifiers that break only when the page would otherwise scroll sideways.
WRAPPING = frozenset({"cause", "reason", "command", "native_events"})
BREAKABLE = frozenset({"rule", "top_blocking_rule", "session", "subject"})

_STYLE = """
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       margin: 0; padding: 20px 28px 40px; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.range { font-size: 15px; margin: 0 0 2px; }
.meta { color: #666; margin: 0 0 8px; }
nav a { margin-right: 14px; color: #3b6fb6; text-decoration: none; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 8px 32px; }
.charts .wide { grid-column: 1 / -1; }
figure { margin: 8px 0 16px; min-width: 0; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg { display: block; width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
svg text.axis { font-weight: 600; fill: #555; }
.empty { color: #888; font-style: italic; }
ol.attention { margin: 0; padding-left: 22px; }
ol.attention li { margin: 0 0 8px; }
.kind { display: inline-block; font-size: 12px; font-weight: 600; padding: 0 6px;
        border-radius: 3px; background: #fff3d6; color: #7a4b00; }
.kind.bad { background: #fde2e2; color: #9b1c1c; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
       background: #f4f4f4; padding: 1px 5px; border-radius: 3px; overflow-wrap: anywhere; }
li code { display: inline-block; margin-top: 2px; }
.note { color: #666; margin: 6px 0 0; }
table { border-collapse: collapse; font-size: 13px; width: 100%; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; }
th { background: #f6f6f6; vertical-align: bottom; font-weight: 600; }
td { white-space: nowrap; }
td.wrap { white-space: normal; overflow-wrap: anywhere; min-width: 16em; }
td.id { white-space: normal; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th.num { text-align: right; }
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
    if isinstance(value, bool | float):
        return scalar_text(column, value)
    if isinstance(value, str):
        m = _ISO.match(value)
        if m:
            clock = m.group(2)
            return m.group(1) if clock in ("00:00", "00:00:00") else f"{m.group(1)} {clock}"
        return value
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _ordered(columns: list[str]) -> list[str]:
    """The flag beside what it flags: a wide table must not hide it at its far end."""
    if "flag" not in columns or len(columns) < 3:
        return columns
    rest = [c for c in columns if c != "flag"]
    return [rest[0], "flag", *rest[1:]]


def table_html(name: str, columns: list[str], rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="empty">no rows in this window</p>'
    columns = _ordered(columns)
    numeric = {
        c
        for c in columns
        if any(isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)
    }
    head = "".join(
        ('<th class="num">' if c in numeric else "<th>") + f"{esc(c.replace('_', ' '))}</th>"
        for c in columns
    )
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c)
            classes = []
            if c in numeric:
                classes.append("num")
            if c in WRAPPING:
                classes.append("wrap")
            elif c in BREAKABLE:
                classes.append("id")
            if c == "flag" and value:
                classes.append("flag")
                if "erroring" in str(value):
                    classes.append("erroring")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            cells.append(f"<td{attr}>{esc(cell_text(c, value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table id="table-{esc(name)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


# -- axes ------------------------------------------------------------------------------------------


def nice_ticks(top: float, most: int = 6) -> list[float]:
    """Evenly spaced round ticks from 0 to at least `top`: steps of 1, 2, 2.5 or 5 × 10^k, at
    most `most` intervals (0, 5, 10, 15, 20, 25 — never 0, 12, 25)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / most
    exp = math.floor(math.log10(raw))
    step = 10.0 ** (exp + 1)
    for lead in (1.0, 2.0, 2.5, 5.0, 10.0):
        if lead * 10.0**exp >= raw - 1e-12:
            step = lead * 10.0**exp
            break
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


def integer_ticks(top: float, most: int = 5) -> list[float]:
    """Ticks for a count: whole numbers only."""
    ticks = nice_ticks(max(top, 1.0), most)
    if ticks[1] < 1:
        return [float(i) for i in range(math.ceil(max(top, 1.0)) + 1)]
    if any(t != int(t) for t in ticks):  # a 2.5 step: take 5 instead
        return nice_ticks(max(top, 1.0), max(1, most // 2))
    return ticks


def _decimals(step: float) -> int:
    return max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0


def percent_label(value: float, step: float) -> str:
    return f"{value * 100:.{_decimals(step * 100)}f}%"


def count_label(value: float) -> str:
    return f"{value:,.0f}"


def duration_label(us: float) -> str:
    if us < 1000:
        return f"{us:g} µs"
    if us < 1_000_000:
        return f"{us / 1000:g} ms"
    return f"{us / 1_000_000:g} s"


def _svg(width: float, height: float, inner: str, label: str, chart_id: str) -> str:
    w, h = math.ceil(width), math.ceil(height)
    return (
        f'<svg id="{esc(chart_id)}" viewBox="0 0 {w} {h}" preserveAspectRatio="xMinYMin meet" '
        f'role="img" aria-label="{esc(label)}">{inner}</svg>'
    )


def _legend(x: float, y: float, entries: list[tuple[str, str]]) -> str:
    parts = []
    for label, colour in entries:
        parts.append(
            f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14:.1f}" y="{y:.1f}">{esc(label)}</text>'
        )
        x += 26 + 6.5 * len(label)
    return "".join(parts)


def _y_axis(
    ticks: list[float],
    y_of: Callable[[float], float],
    x0: float,
    x1: float,
    label: Callable[[float], str],
    *,
    right: bool = False,
    grid: bool = True,
) -> str:
    parts = []
    for t in ticks:
        y = y_of(t)
        if grid:
            parts.append(
                f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>'
            )
        tx, anchor = (x1 + 6, "start") if right else (x0 - 6, "end")
        parts.append(
            f'<text x="{tx:.1f}" y="{y + 4:.1f}" text-anchor="{anchor}">{esc(label(t))}</text>'
        )
    return "".join(parts)


def _axis_title(x: float, y: float, text: str, *, vertical: bool = False) -> str:
    rotate = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if vertical else ""
    return (
        f'<text class="axis" x="{x:.1f}" y="{y:.1f}" text-anchor="middle"{rotate}>'
        f"{esc(text)}</text>"
    )


# -- charts ----------------------------------------------------------------------------------------


def rule_bars(points: list[dict[str, Any]]) -> str:
    """Hits, asks and blocks per rule: three horizontal bars a row, on one count axis."""
    if not points:
        return '<p class="empty">no rule fired in this window</p>'
    shown = points
    if len(points) > MAX_RULE_BARS:  # the busiest rules, still in policy order
        busiest = sorted(points, key=lambda p: (-int(p["hits"] or 0), -int(p["blocks"] or 0)))
        keep = {id(p) for p in busiest[:MAX_RULE_BARS]}
        shown = [p for p in points if id(p) in keep]
    width = 1300.0
    series = (
        ("hits", "hits", HITS_COLOUR),
        ("asks", "asks", ASKS_COLOUR),
        ("blocks", "blocks", BLOCKS_COLOUR),
    )
    label_w = min(360.0, 16 + 6.6 * max(len(str(p["rule"])) for p in shown))
    left, right, top, row_h = label_w, 50.0, 34.0, 40.0
    span = width - left - right
    most = max(max(int(p.get(key) or 0) for key, _l, _c in series) for p in shown)
    ticks = integer_ticks(float(most), 8)
    x_top = ticks[-1]
    bottom_y = top + len(shown) * row_h
    parts = [_legend(left, 14, [(label, colour) for _k, label, colour in series])]
    for t in ticks:
        x = left + span * t / x_top
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{bottom_y:.1f}" '
            f'stroke="#e4e4e4"/><text x="{x:.1f}" y="{bottom_y + 14:.1f}" '
            f'text-anchor="middle">{esc(count_label(t))}</text>'
        )
    for i, p in enumerate(shown):
        y = top + i * row_h
        rule = str(p["rule"])
        parts.append(
            f'<text x="{left - 8:.1f}" y="{y + 21:.1f}" text-anchor="end">'
            f"{esc(_clip(rule, 56))}<title>{esc(rule)}</title></text>"
        )
        for j, (key, label, colour) in enumerate(series):
            value = int(p.get(key) or 0)
            w = span * value / x_top
            by = y + 3 + j * 11
            parts.append(
                f'<rect x="{left:.1f}" y="{by:.1f}" width="{w:.1f}" height="9" fill="{colour}">'
                f"<title>{esc(rule)}: {value} {label}</title></rect>"
            )
            if value:
                parts.append(
                    f'<text x="{left + w + 4:.1f}" y="{by + 8.5:.1f}" font-size="10">{value}</text>'
                )
    height = bottom_y + 40
    parts.append(_axis_title(left + span / 2, height - 8, "events"))
    if len(points) > len(shown):
        parts.append(
            f'<text x="{left:.1f}" y="{height + 8:.1f}">… {len(points) - len(shown)} more rules '
            f"in the rules table</text>"
        )
        height += 16
    return _svg(width, height, "".join(parts), "hits, asks and blocks per rule", "chart-rules")


def _bucket_label(value: Any, bucket: str) -> str:
    text = cell_text("bucket", value)
    if bucket == "hour" and " " in text:
        day, clock = text.split(" ", 1)
        return f"{day[5:]} {clock[:5]}"
    return text[5:] if len(text) == 10 else text


def rate_chart(points: list[dict[str, Any]], bucket: str) -> str:
    """Block and ask rate per day (or hour) as lines over the bucket's event volume as bars;
    a bucket without events breaks the lines."""
    if not any(p["events"] for p in points):
        return '<p class="empty">no events in this window</p>'
    width, height = 640.0, 330.0
    left, right, top, bottom = 64.0, 62.0, 30.0, 62.0
    plot_w, plot_h = width - left - right, height - top - bottom
    rates = [
        float(p[k]) for p in points for k in ("block_rate", "ask_rate") if p.get(k) is not None
    ]
    rate_ticks = nice_ticks(max([*rates, 0.0]) or 0.01, 5)
    rate_top = rate_ticks[-1]
    volume_ticks = integer_ticks(float(max(int(p["events"]) for p in points)), 5)
    volume_top = volume_ticks[-1]
    n = len(points)
    slot = plot_w / n

    def x_of(i: int) -> float:
        return left + slot * (i + 0.5)

    def y_rate(r: float) -> float:
        return top + plot_h * (1 - r / rate_top)

    def y_volume(v: float) -> float:
        return top + plot_h * (1 - v / volume_top)

    step = rate_ticks[1] - rate_ticks[0]
    parts = [
        _legend(
            left,
            14,
            [("events", VOLUME_COLOUR), ("block rate", BLOCKS_COLOUR), ("ask rate", ASKS_COLOUR)],
        ),
        _y_axis(rate_ticks, y_rate, left, left + plot_w, lambda t: percent_label(t, step)),
        _y_axis(volume_ticks, y_volume, left, left + plot_w, count_label, right=True, grid=False),
    ]
    for i, p in enumerate(points):
        events = int(p["events"])
        if events:
            y = y_volume(events)
            parts.append(
                f'<rect x="{x_of(i) - slot * 0.35:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" '
                f'height="{top + plot_h - y:.1f}" fill="{VOLUME_COLOUR}">'
                f"<title>{esc(cell_text('bucket', p['bucket']))}: {events} events</title></rect>"
            )
    for key, colour, label in (
        ("block_rate", BLOCKS_COLOUR, "blocked"),
        ("ask_rate", ASKS_COLOUR, "asked"),
    ):
        runs: list[list[str]] = [[]]
        for i, p in enumerate(points):
            if p.get(key) is None:
                runs.append([])
                continue
            x, y = x_of(i), y_rate(float(p[key]))
            runs[-1].append(f"{x:.1f},{y:.1f}")
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}">'
                f"<title>{esc(cell_text('bucket', p['bucket']))}: {float(p[key]) * 100:.1f}% "
                f"of {p['events']} events {label}</title></circle>"
            )
        for run in runs:
            if len(run) > 1:
                parts.append(
                    f'<polyline points="{" ".join(run)}" fill="none" stroke="{colour}" '
                    f'stroke-width="2"/>'
                )
    every = max(1, math.ceil(n / 8))  # at most about eight labels under the axis
    for i in range(0, n, every):
        parts.append(
            f'<text x="{x_of(i):.1f}" y="{top + plot_h + 16:.1f}" text-anchor="middle">'
            f"{esc(_bucket_label(points[i]['bucket'], bucket))}</text>"
        )
    parts.append(_axis_title(left + plot_w / 2, height - 12, f"{bucket} (UTC)"))
    parts.append(_axis_title(16, top + plot_h / 2, "share of events", vertical=True))
    parts.append(_axis_title(width - 12, top + plot_h / 2, f"events per {bucket}", vertical=True))
    return _svg(width, height, "".join(parts), f"block and ask rate per {bucket}", "chart-rate")


def _fill(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The 1-2-5 buckets from the lowest to the highest, empty ones included."""
    counts = {int(p["low_us"]): int(p["events"]) for p in points}
    low, high = min(counts), max(counts)
    out = []
    while low <= high:
        upper = low * 5 // 2 if str(low)[0] == "2" else low * 2  # 1 → 2 → 5 → 10
        out.append({"low_us": low, "high_us": upper, "events": counts.get(low, 0)})
        low = upper
    return out


def _mark_x(us: float, buckets: list[dict[str, Any]], left: float, slot: float) -> float:
    """Where a latency falls on the bucket axis: its bucket, then log-scaled inside it."""
    for i, b in enumerate(buckets):
        low, high = float(b["low_us"]), float(b["high_us"])
        if us < high or i == len(buckets) - 1:
            inside = math.log(max(us, low) / low) / math.log(high / low)
            return left + slot * (i + min(1.0, max(0.0, inside)))
    return left


def latency_histogram(
    points: list[dict[str, Any]], p50_us: float | None = None, p95_us: float | None = None
) -> str:
    """Hook latency: events per 1-2-5 bucket as bars, edges labelled, p50 and p95 marked."""
    if not points:
        return '<p class="empty">no answered events in this window</p>'
    buckets = _fill(points)
    width, height = 640.0, 330.0
    left, right, top, bottom = 64.0, 24.0, 30.0, 62.0
    plot_w, plot_h = width - left - right, height - top - bottom
    ticks = integer_ticks(float(max(int(b["events"]) for b in buckets)), 5)
    y_top = ticks[-1]
    slot = plot_w / max(len(buckets), 6)

    def y_of(v: float) -> float:
        return top + plot_h * (1 - v / y_top)

    parts = [_y_axis(ticks, y_of, left, left + plot_w, count_label)]
    for i, b in enumerate(buckets):
        count = int(b["events"])
        y = y_of(count)
        x = left + i * slot
        label = f"{duration_label(b['low_us'])} – {duration_label(b['high_us'])}"
        parts.append(
            f'<rect x="{x + slot * 0.08:.1f}" y="{y:.1f}" width="{slot * 0.84:.1f}" '
            f'height="{top + plot_h - y:.1f}" fill="{HIST_COLOUR}">'
            f"<title>{esc(label)}: {count} events</title></rect>"
        )
    edges = [int(b["low_us"]) for b in buckets] + [int(buckets[-1]["high_us"])]
    every = max(1, math.ceil(len(edges) / 9))
    for i in range(0, len(edges), every):
        parts.append(
            f'<text x="{left + i * slot:.1f}" y="{top + plot_h + 16:.1f}" text-anchor="middle">'
            f"{esc(duration_label(edges[i]))}</text>"
        )
    for name, value, dash, anchor in (("p50", p50_us, "4 3", "end"), ("p95", p95_us, "", "start")):
        if value is None:
            continue
        x = _mark_x(float(value), buckets, left, slot)
        text = f"{name} {duration_label(float(f'{value:.3g}'))}"
        shift = -5 if anchor == "end" else 5  # p50 to the left of its line, p95 to the right
        parts.append(
            f'<line class="mark" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" '
            f'y2="{top + plot_h:.1f}" stroke="{MARK_COLOUR}" stroke-width="1.5"'
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + f"><title>{esc(text)}</title></line>"
            f'<text x="{x + shift:.1f}" y="{top + 6:.1f}" text-anchor="{anchor}">'
            f"{esc(text)}</text>"
        )
    parts.append(_axis_title(left + plot_w / 2, height - 12, "hook latency (bucket edges)"))
    parts.append(_axis_title(16, top + plot_h / 2, "events", vertical=True))
    return _svg(width, height, "".join(parts), "hook latency distribution", "chart-latency")


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# -- the page --------------------------------------------------------------------------------------


def attention_html(section: dict[str, Any]) -> str:
    found = section["items"]
    note = esc(section["note"])
    if not found:
        return f'<p>Nothing needs attention.</p><p class="note">{note}</p>'
    shown = found[: int(section["shown"])]
    items = []
    for item in shown:
        bad = " bad" if str(item["kind"]).startswith(("erroring", "fail-open")) else ""
        # a rule's line names it; a failure's reason already ends with its cause
        subject = "" if item["kind"] == "fail-open" else f" <b>{esc(item['subject'])}</b>"
        items.append(
            f'<li><span class="kind{bad}">{esc(item["kind"])}</span>{subject}: '
            f"{esc(item['reason'])}<br><code>{esc(item['command'])}</code></li>"
        )
    more = ""
    if len(found) > len(shown):
        more = (
            f'<p class="note">… and {len(found) - len(shown)} more: '
            "<code>style audit attention</code></p>"
        )
    return f'<ol class="attention">{"".join(items)}</ol>{more}<p class="note">{note}</p>'


def coverage_html(section: dict[str, Any]) -> str:
    """The sessions whose tool calls STYLE never saw (`style audit coverage`), worst first."""
    totals = section["totals"]
    rows = [r for r in section["rows"] if r["unseen"] or r["wholly_unseen"]]
    if not rows:
        said = (
            "Every tool call the transcripts show reached STYLE."
            if totals["tool_calls"]
            else "No transcript with a tool call found for this project."
        )
        return f'<section id="coverage"><h2>Coverage</h2><p>{esc(said)}</p></section>'
    lines = []
    for r in rows:
        causes: dict[str, int] = {}
        for u in r["unseen"]:
            causes[u["cause"]] = causes.get(u["cause"], 0) + 1
        lines.append(
            {
                "session": r["session"],
                "harness": r["harness"],
                "tool_calls": r["tool_calls"],
                "seen": r["seen"],
                "unguarded": r["unguarded"],
                "unseen": len(r["unseen"]),
                "wholly_unseen": "yes" if r["wholly_unseen"] else "",
                "causes": ", ".join(f"{c} ×{n}" for c, n in causes.items()),
            }
        )
    head = (
        f"{totals['sessions_with_unseen']} session(s) with {totals['unseen_calls']} tool call(s) "
        "STYLE never saw"
    )
    return (
        f'<section id="coverage"><h2>Coverage</h2><p class="bad">{esc(head)}</p>'
        f"{table_html('coverage', list(lines[0]), lines)}"
        '<p class="note"><code>style audit coverage</code> lists each call and its cause</p>'
        "</section>"
    )


def _range(window: dict[str, Any]) -> str:
    events = int(window.get("events") or 0)
    if not events:
        return "no events in this window"
    first, last = cell_text("ts", window["first"]), cell_text("ts", window["last"])
    noun = "event" if events == 1 else "events"
    return f"{events:,} {noun} from {first} to {last} UTC"


def render(doc: dict[str, Any]) -> str:
    """The page for a dashboard document (audit.report.dashboard)."""
    charts = doc["charts"]
    filters = {k: v for k, v in doc["filters"].items() if v is not None and k != "bucket"}
    filters.pop("min_events", None)
    meta = [f"generated {doc['generated']}", f"source: {doc['source']}"]
    if filters:
        meta.append("filters: " + ", ".join(f"{k} {cell_text(k, v)}" for k, v in filters.items()))
    names = [t["name"] for t in doc["tables"]]
    nav = "".join(
        f'<a href="#{esc(target)}">{esc(label)}</a>'
        for target, label in [("attention", "needs attention"), ("charts", "charts")]
        + ([("coverage", "coverage")] if "coverage" in doc else [])
        + [(f"report-{n}", n) for n in names]
    )
    bucket = esc(charts["bucket"])
    sections = [
        f'<section id="attention"><h2>Needs attention</h2>{attention_html(doc["attention"])}'
        "</section>",
        '<section id="charts"><h2>Charts</h2><div class="charts">',
        '<figure class="wide"><figcaption>Hits, asks and blocks per rule</figcaption>',
        rule_bars(charts["rules"]),
        "</figure>",
        f"<figure><figcaption>Block and ask rate per {bucket}, with the events of each "
        f"{bucket}</figcaption>",
        rate_chart(charts["block_rate"], charts["bucket"]),
        "</figure>",
        "<figure><figcaption>Hook latency, p50 and p95 marked</figcaption>",
        latency_histogram(
            charts["latency"], charts.get("latency_p50_us"), charts.get("latency_p95_us")
        ),
        "</figure></div></section>",
    ]
    if "coverage" in doc:
        sections.append(coverage_html(doc["coverage"]))
    for table in doc["tables"]:
        name = table["name"]
        sections.append(
            f'<section id="report-{esc(name)}"><h2>{esc(name)}</h2>'
            f"{table_html(name, table['columns'], table['rows'])}</section>"
        )
    data = {
        "report": doc["report"],
        "generated": doc["generated"],
        "source": doc["source"],
        "filters": doc["filters"],
        "window": doc["window"],
        "attention": doc["attention"],
        "charts": charts,
    }
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>STYLE {esc(doc['title'])}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<header><h1>STYLE audit: {esc(doc['report'])}</h1>"
        f'<p class="range">{esc(_range(doc["window"]))}</p>'
        f'<p class="meta">{esc(" · ".join(meta))}</p><nav>{nav}</nav></header>\n'
        + "\n".join(sections)
        + '\n<script type="application/json" id="style-audit-data">\n'
        + script_json(data)
        + "\n</script>\n</body>\n</html>\n"
    )
