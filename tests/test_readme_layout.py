"""The README's Layout names every module of the package, so a maintainer finds each one there
(and a new module that is not added fails here). A harness's own modules are named by the
Layout's "one adapter per harness" and "one per harness" (their file names are the harnesses'),
and cli/'s per-command modules by "one module per command"."""

from __future__ import annotations

import re

from support.environment import REPO

from agentstyle.harnesses import HARNESSES

PACKAGE = REPO / "agentstyle"


def layout_words() -> set[str]:
    text = (REPO / "README.md").read_text("utf-8")
    section = text[text.index("## Layout") :]
    block = section.split("```")[1]
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))


def test_every_module_is_in_the_layout() -> None:
    words = layout_words()
    per_harness = {facts.module for facts in HARNESSES.values()}
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "library" or path.stem == "__init__":
            continue
        if rel.parts[0] == "harnesses" and path.stem in per_harness:
            continue  # "one adapter per harness", facts/ and transcripts/ "one per harness"
        if rel.parts[0] == "cli" and len(rel.parts) == 2:
            continue  # "one module per command"
        if path.stem not in words:
            missing.append(str(rel))
    assert missing == [], "modules the README's Layout does not name"
