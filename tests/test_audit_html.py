"""The HTML report as a lead opens it: Debian's Chromium, headless, 1400 px wide.

`style audit rules --format html` over the known history of tests/test_audit.py is loaded
from a file (no network: the page needs none). A copy with one measuring script appended is
printed with `--dump-dom`; the script writes what the layout came to into the page (page and
viewport width, every chart's box, every table's right edge, where the flag column sits). Then
a screenshot of the whole page is taken at that width. The browser must be installed
(`make test` installs it: scripts/ensure-chromium): the test fails, never skips, without it.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.support.history import audited_project

CHROMIUM = "/usr/bin/chromium"
WIDTH = 1400
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
# Appended to a copy of the page: the layout as numbers, left in the DOM for --dump-dom.
MEASURE = """<script>
(function () {
  var d = document.documentElement;
  function box(e) { var r = e.getBoundingClientRect();
    return {id: e.id, left: r.left, right: r.right, width: r.width, height: r.height}; }
  var flag = null;
  document.querySelectorAll('#table-rules th').forEach(function (th) {
    if (th.textContent === 'flag') { flag = box(th); } });
  var out = {inner: window.innerWidth, client: d.clientWidth, scroll: d.scrollWidth,
    height: d.scrollHeight, flag: flag,
    charts: Array.prototype.map.call(document.querySelectorAll('svg'), box),
    tables: Array.prototype.map.call(document.querySelectorAll('table'), box),
    marks: document.querySelectorAll('#chart-latency line.mark').length,
    bars: document.querySelectorAll('#chart-rules rect').length};
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def chromium(tmp_path: Path, *args: str, height: int = 1000) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    argv = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},{height}"]
    proc = subprocess.run(
        [*argv, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def png_colours(path: Path) -> int:
    """How many distinct byte values the picture's pixel data holds (a blank page: one or two)."""
    data = path.read_bytes()
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            chunks.append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
    return len(set(zlib.decompress(b"".join(chunks))[:2_000_000]))


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("audit-html")
    project = audited_project(base)
    out = base / "audit.html"
    done = project.cli("audit", "rules", "--format", "html", "--out", str(out), "--min-events", "4")
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_chromium_is_installed() -> None:
    assert Path(CHROMIUM).exists(), (
        f"{CHROMIUM} is missing: `apt-get install -y chromium` (`make test` installs it)"
    )


def measure(text: str, tmp_path: Path) -> dict[str, Any]:
    """The layout of a page in Chromium at WIDTH, as the measuring script reports it."""
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `apt-get install -y chromium`"
    measured_page = tmp_path / "measured.html"
    measured_page.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = chromium(tmp_path, "--dump-dom", measured_page.as_uri())
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    m: dict[str, Any] = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert m["inner"] == WIDTH  # the page was laid out at the width asked for
    return m


def test_the_page_fits_1400_px_with_every_chart(page: Path, tmp_path: Path) -> None:
    m = measure(page.read_text("utf-8"), tmp_path)
    assert m["scroll"] <= m["client"] <= WIDTH, m  # no horizontal scroll
    # every chart is there, drawn, and inside the page
    assert [c["id"] for c in m["charts"]] == ["chart-rules", "chart-rate", "chart-latency"]
    for chart in m["charts"]:
        assert chart["width"] > 400 and chart["height"] > 150, chart
        assert chart["right"] <= m["client"], chart
    assert m["bars"] == 3 * 6 + 3  # hits, asks, blocks for each of the 6 rules that fired; legend
    assert m["marks"] == 2  # p50 and p95
    # every table ends inside the page, and the flag column is in view
    assert len(m["tables"]) == 7  # every report but attention (a list of its own)
    for table in m["tables"]:
        assert table["right"] <= m["client"], table
    assert m["flag"] is not None and m["flag"]["right"] <= m["client"]
    assert m["flag"]["left"] < 400  # beside the rule, not past fourteen columns

    # and the picture of the whole page
    shot = tmp_path / "audit.png"
    chromium(
        tmp_path, f"--screenshot={shot}", page.as_uri(), height=min(int(m["height"]) + 40, 8000)
    )
    assert png_size(shot)[0] == WIDTH
    assert png_colours(shot) > 16  # text and charts, not a blank page


def test_long_rule_ids_do_not_push_the_page_sideways(page: Path, tmp_path: Path) -> None:
    """A large policy's ids (64 characters, the most a package name allows, plus a path):
    the table breaks them rather than scroll."""
    from agentstyle.audit import html as html_report

    text = page.read_text("utf-8")
    doc = json.loads(re.search(r'id="style-audit-data">(.*?)</script>', text, re.S).group(1))
    long = "a-very-long-package-name-that-a-large-team-might-well-choose-for/"
    rules = [
        {"rule": f"{long}rule-number-{i}-with-a-long-descriptive-id", "action": "warn",
         "candidates": 1000 + i, "fired": 900, "emitted": 800, "blocked": 0, "asked": 0,
         "dedup_suppressed": 100, "budget_cuts": 0, "errors": 0, "hit_rate": 0.9,
         "block_rate": 0.0, "tokens_emitted": 123456, "last_fired": "2024-05-03T09:00:03",
         "flag": "noisy,broad"}
        for i in range(30)
    ]  # fmt: skip
    doc.update(title="audit rules", tables=[{"name": "rules", "columns": list(rules[0]),
                                            "rows": rules}])  # fmt: skip
    doc["charts"]["rules"] = [
        {"rule": r["rule"], "hits": r["fired"], "asks": 0, "blocks": 0} for r in rules
    ]
    m = measure(html_report.render(doc), tmp_path)
    assert m["scroll"] <= m["client"] <= WIDTH, m
    assert all(t["right"] <= m["client"] for t in m["tables"]), m["tables"]
    assert m["flag"] is not None and m["flag"]["right"] <= m["client"]
