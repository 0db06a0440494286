"""`style init`: the files of a new package that validates clean and has a passing test."""

from __future__ import annotations

import re
from pathlib import Path

from agentstyle.diagnostics import StyleError

# The bundled library's force-push rule (guard-destructive/force-push-protected): the same
# patterns, kept equal by tests/test_library_patterns.py. The protected branches are spelled
# out (main, master, release/*) until settings reach conditions.
STYLE_YAML = r"""spec: style/v0.3
name: {name}
version: 0.1.0
description: {name} rules for coding agents
rules:
  # A force push (-f, --force, --force-with-lease, a +refspec, --mirror) to main, master or
  # release/*, in any form (git -C dir, git -c k=v, abbreviations such as --forc, HEAD), or
  # naming no branch at all. Your own branch by name passes: git push -f origin my-feature.
  - id: no-force-push
    target: tool
    tool: shell
    action: block
    when:
      any:
        - field: tool.input.command
          op: shell_regex
          pattern: '^[Gg][Ii][Tt]( -[Cc] \S+| --(git-dir|work-tree|namespace|exec-path|super-prefix|config-env|attr-source|list-cmds) \S+| --?[a-zA-Z][-a-zA-Z]*(=\S+)?)* push (.* )?(((-[a-zA-Z0-9]*f[a-zA-Z0-9]*|--f(o(r(c(e(-(w(i(t(h(-(l(e(a(s(e)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=\S*)?)|(-[a-zA-Z0-9]*d[a-zA-Z0-9]*|--de(l(e(t(e)?)?)?)?)) (.* )?\+?(\S*:)?(refs/heads/)?(main|master|release/\S*)|\+?(\S*:)?(refs/heads/)?(main|master|release/\S*) (.* )?((-[a-zA-Z0-9]*f[a-zA-Z0-9]*|--f(o(r(c(e(-(w(i(t(h(-(l(e(a(s(e)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=\S*)?)|(-[a-zA-Z0-9]*d[a-zA-Z0-9]*|--de(l(e(t(e)?)?)?)?))|[+:](\S*:)?(refs/heads/)?(main|master|release/\S*))( |$)'  # gen: force-push-protected
        - field: tool.input.command
          op: shell_regex
          pattern: '^[Gg][Ii][Tt]( -[Cc] \S+| --(git-dir|work-tree|namespace|exec-path|super-prefix|config-env|attr-source|list-cmds) \S+| --?[a-zA-Z][-a-zA-Z]*(=\S+)?)* push (.* )?((-[a-zA-Z0-9]*f[a-zA-Z0-9]*|--f(o(r(c(e(-(w(i(t(h(-(l(e(a(s(e)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=\S*)?) (.* )?(\S*:)?(HEAD|@)|(\S*:)?(HEAD|@) (.* )?(-[a-zA-Z0-9]*f[a-zA-Z0-9]*|--f(o(r(c(e(-(w(i(t(h(-(l(e(a(s(e)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=\S*)?)|\+(\S*:)?(HEAD|@))( |$)'  # gen: force-push-current
        - field: tool.input.command
          op: shell_regex
          pattern: '^[Gg][Ii][Tt]( -[Cc] \S+| --(git-dir|work-tree|namespace|exec-path|super-prefix|config-env|attr-source|list-cmds) \S+| --?[a-zA-Z][-a-zA-Z]*(=\S+)?)* push(( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+))* (-[a-zA-Z0-9]*f[a-zA-Z0-9]*|--f(o(r(c(e(-(w(i(t(h(-(l(e(a(s(e)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=\S*)?)(( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+))*( [^-\s]\S*)?(( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+))*$'  # gen: force-push-unnamed
        - field: tool.input.command
          op: shell_regex
          pattern: '^[Gg][Ii][Tt]( -[Cc] \S+| --(git-dir|work-tree|namespace|exec-path|super-prefix|config-env|attr-source|list-cmds) \S+| --?[a-zA-Z][-a-zA-Z]*(=\S+)?)* push(( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+))* [^-\s]\S*(( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+))* (-[a-zA-Z0-9]*f[a-zA-Z0-9]*|--f(o(r(c(e(-(w(i(t(h(-(l(e(a(s(e)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=\S*)?)(( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+))*$'  # gen: force-push-unnamed-after-remote
        - field: tool.input.command
          op: shell_regex
          pattern: '^[Gg][Ii][Tt]( -[Cc] \S+| --(git-dir|work-tree|namespace|exec-path|super-prefix|config-env|attr-source|list-cmds) \S+| --?[a-zA-Z][-a-zA-Z]*(=\S+)?)* push (.* )?--m(i(r(r(o(r)?)?)?)?)?( |$)'  # gen: push-mirror
    text: No force push to main, master or release/*; push a new commit, or force-push your own branch by name.
  - from: rules/*.md
"""

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
            folder / "STYLE.yaml": STYLE_YAML.format(name=name),
            folder / "rules" / "example.md": EXAMPLE_RULE,
            folder / "tests" / "example.yaml": EXAMPLE_TEST,
        }
    existing = [p for p in files if p.exists()]
    if existing:
        raise StyleError(f"{existing[0]} already exists; init writes only new files")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
