"""The text of a STYLE package for a test that writes its own (`package_text`), and the rules
many tests share, so the header and the common rules are written once.

A rule is YAML text starting `- id:`, at any indentation (it is dedented and put under
`rules:`). Packages kept as folders live under tests/data/.
"""

from __future__ import annotations

import json
import textwrap

SPEC = "style/v0.3"

# Recursive deletes refused: the rule most hook tests answer to.
NO_RM_RF = """
- id: no-rm
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command shell_regex "^rm .*-rf"'
  text: No recursive deletes.
"""


def shell_rule(rule_id: str, pattern: str, text: str, *, action: str = "block", **keys: str) -> str:
    """A rule on shell calls whose command matches `pattern` (shell_regex): `action`, then any
    other `keys` (`mode="replace"`), saying `text`."""
    lines = [f"- id: {rule_id}", "  target: tool", "  tool: shell", f"  action: {action}"]
    lines += [f"  {key}: {value}" for key, value in keys.items()]
    lines.append(f"  when: 'tool.input.command shell_regex {json.dumps(pattern)}'")
    lines.append(f"  text: {json.dumps(text)}")
    return "\n".join(lines) + "\n"


def shell_note(rule_id: str, prefix: str, text: str, **keys: str) -> str:
    """A note before shell calls whose command starts with `prefix`: any other `keys`
    (`repeat="turn"`), then the condition and `text`."""
    lines = [f"- id: {rule_id}", "  target: tool", "  tool: shell", "  at: before"]
    lines += [f"  {key}: {value}" for key, value in keys.items()]
    lines.append(f"  when: 'tool.input.command starts_with {json.dumps(prefix)}'")
    lines.append(f"  text: {json.dumps(text)}")
    return "\n".join(lines) + "\n"


def no_rm(text: str) -> str:
    """The rule that refuses any `rm`, saying `text`."""
    return shell_rule("no-rm", "^rm ", text)


# Any `rm` refused.
NO_RM = no_rm("No deletes.")

# A note before every shell call.
TIPS = """
- id: tips
  target: tool
  tool: shell
  at: before
  text: Prefer small commands.
"""


def package_text(
    name: str,
    *rules: str,
    description: str | None = None,
    version: str = "1.0.0",
    head: str = "",
) -> str:
    """A package's STYLE.yaml: the header (`head`: more top-level keys, as YAML), then the
    rules in order."""
    lines = [f"spec: {SPEC}", f"name: {name}", f"version: {version}"]
    if description is not None:
        lines.append(f"description: {description}")
    text = "\n".join(lines) + "\n" + textwrap.dedent(head).strip("\n")
    if head.strip():
        text += "\n"
    text += "rules:\n"
    for rule in rules:
        text += textwrap.indent(textwrap.dedent(rule).strip("\n") + "\n", "  ")
    return text
