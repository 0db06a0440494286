"""`style init`: the files of a new package that validates clean and has a passing test."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from agentstyle.diagnostics import StyleError

# The bundled library's force-push rule (guard-destructive/force-push-protected): its `when`
# is copied from the library's STYLE.yaml, so the scaffold teaches the rule the library
# enforces, never a copy that drifts (`^git push .*(--force|-f)` blocked `my-feature-fix`).
LIBRARY_RULES = Path(__file__).resolve().parent.parent / "library" / "guard-destructive"
FORCE_PUSH_RULE = "  - id: force-push-protected"

STYLE_YAML = """\
spec: style/v0.3
name: {name}
version: 0.1.0
description: {name} rules for coding agents
settings:
  - name: protected_branches
    type: list
    default: [main, master, 'release/\\S*']
    description: Branches nobody force-pushes to, each a regex (--set protected_branches=a,b).
rules:
  # A force push (-f, --force, --force-with-lease, a +refspec, --mirror) to main, master or
  # release/*, in any form (git -C dir, git -c k=v, abbreviations such as --forc, HEAD), or
  # naming no branch at all. Your own branch by name passes: git push -f origin my-feature.
  - id: no-force-push
    target: tool
    tool: shell
    action: block
{when}
    text: No force push to {{{{settings.protected_branches}}}}; force-push your own branch by name.
  - from: rules/*.md
"""


def force_push_when() -> str:
    """The `when:` lines of the library's force-push rule, as they stand in its STYLE.yaml."""
    lines = (LIBRARY_RULES / "STYLE.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index(FORCE_PUSH_RULE)
    first = next(i for i in range(start, len(lines)) if lines[i] == "    when:")
    end = next(i for i in range(first + 1, len(lines)) if not lines[i].startswith("      "))
    # the library marks its generated patterns for its own check; a new package has no use
    return "\n".join(re.sub(r"\s+# gen: \S+$", "", line) for line in lines[first:end])


EXAMPLE_RULE = """\
---
target: system
---
Run the project's tests before saying a change is done.
"""

EXAMPLE_TEST = """\
# Cases run in order against one fresh database, like one session.
cases:
  - note: a force push is refused
    event: PreToolUse
    payload:
      tool_name: Bash
      tool_input: {command: "git push --force origin main"}
    expect:
      verdict: block
      fires: [no-force-push]
  - note: an ordinary push passes
    event: PreToolUse
    payload:
      tool_name: Bash
      tool_input: {command: "git push origin main"}
    expect:
      verdict: none
      silent: [no-force-push]
  - note: git -C DIR push -f is refused too
    event: PreToolUse
    payload:
      tool_name: Bash
      tool_input: {command: "git -C ../repo push -f origin main"}
    expect:
      verdict: block
      fires: [no-force-push]
  - note: a branch name ending in -fix is not a force flag
    event: PreToolUse
    payload:
      tool_name: Bash
      tool_input: {command: "git push origin my-feature-fix"}
    expect:
      verdict: none
      silent: [no-force-push]
  - note: --force-with-lease to your own branch passes
    event: PreToolUse
    payload:
      tool_name: Bash
      tool_input: {command: "git push --force-with-lease origin my-feature"}
    expect:
      verdict: none
      silent: [no-force-push]
  - note: the example rule reaches the model at session start
    event: SessionStart
    payload: {source: startup}
    expect:
      fires: [example]
      output_contains: "Run the project's tests"
"""

SINGLE_FILE = """\
---
spec: style/v0.3
name: {name}
version: 0.1.0
description: {name} single-file package
target: system
---
Run the project's tests before saying a change is done.
"""

SINGLE_FILE_TEST = """\
# Cases run in order against one fresh database, like one session.
cases:
  - note: the rule reaches the model at session start
    event: SessionStart
    payload: {{source: startup}}
    expect:
      fires: [{name}]
      output_contains: "Run the project's tests"
  - note: once per session
    event: SessionStart
    payload: {{source: resume}}
    expect:
      silent: [{name}]
"""


def package_name(folder: Path) -> str:
    name = re.sub(r"[^a-z0-9-]+", "-", folder.resolve().name.lower()).strip("-")
    return name[:64].strip("-") or "my-rules"


def scaffold(folder: Path, *, single_file: bool = False) -> list[Path]:
    """Write the scaffold; refuses to overwrite any existing file."""
    name = package_name(folder)
    files: dict[Path, str]
    if single_file:
        files = {
            folder / f"{name}.md": SINGLE_FILE.format(name=name),
            folder / "tests" / f"{name}.yaml": SINGLE_FILE_TEST.format(name=name),
        }
    else:
        files = {
            folder / "STYLE.yaml": STYLE_YAML.format(name=name, when=force_push_when()),
            folder / "rules" / "example.md": EXAMPLE_RULE,
            folder / "tests" / "example.yaml": EXAMPLE_TEST,
        }
    existing = [p for p in files if p.exists()]
    if existing:
        raise StyleError(f"{existing[0]} already exists; init writes only new files")
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError:
        for path in files:  # none existed before: all or nothing, no half a package left
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        raise
    return list(files)
