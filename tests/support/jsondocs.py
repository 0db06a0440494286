"""Claude Code settings files for the JSON editing tests: STYLE's hook groups (`GROUPS`), how to
tell STYLE's handlers (`is_ours`), and random user documents written in random formattings
(`random_document`, `random_style`, `dump`; seeded, so a failure replays); and what Gemini CLI
makes of a settings file with comments (`gemini_reads`)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from agentstyle.configfiles.jsonedit import Dialect
from agentstyle.configfiles.jsonspans import parse_document
from agentstyle.harnesses import adapter_for

PY = '"/usr/bin/python3" -m agentstyle.hook --harness claude-code --event '


def is_ours(handler: dict[str, Any]) -> bool:
    return "agentstyle.hook" in str(handler.get("command", ""))


def group(event: str, matcher: str = "Bash|Edit", **extra: Any) -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": PY + event, **extra}]}


GROUPS: dict[str, dict[str, list[dict[str, Any]]]] = {
    "one": {"PreToolUse": [group("PreToolUse")]},
    "three": {
        "PreToolUse": [group("PreToolUse", onFailure="block")],
        "Stop": [group("Stop", "")],
        "SessionStart": [group("SessionStart", "startup|resume")],
    },
    "two-groups": {
        "PreToolUse": [group("PreToolUse", "Bash"), group("PreToolUse", "Write|Edit")],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": PY + "UserPromptSubmit"}]}],
    },
    "unicode": {"PostToolUse": [group("PostToolUse", "mcp__bücher__.*")]},
}

USER_HANDLER = '{"type": "command", "command": "npx prettier --write"}'


def random_user_hooks(rng: random.Random) -> dict[str, Any]:
    hooks: dict[str, Any] = {}
    for event in rng.sample(
        ["PreToolUse", "Stop", "Notification", "SessionStart"], rng.randint(0, 3)
    ):
        groups = []
        for _ in range(rng.choice([0, 0, 1, 2])):
            g: dict[str, Any] = {"hooks": [json.loads(USER_HANDLER)] * rng.randint(0, 2)}
            if rng.random() < 0.7:
                g = {"matcher": rng.choice(["Bash", "*", "Edit|Write", ""]), **g}
            groups.append(g)
        hooks[event] = groups
    return hooks


def random_document(rng: random.Random) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    keys = ["permissions", "env", "model", "hooks", "ünï", "empty", "list"]
    for key in rng.sample(keys, rng.randint(0, len(keys))):
        doc[key] = {
            "permissions": {"allow": ["Read", "Bash(ls:*)"], "deny": []},
            "env": {"A": "1", "B": "x\ny"},
            "model": "opus",
            "hooks": random_user_hooks(rng),
            "ünï": "cødé ✓",
            "empty": {},
            "list": [1, [], {}, 2.5, None, True],
        }[key]
    return doc


def dump(value: Any, rng: random.Random, style: dict[str, Any], level: int = 0) -> str:
    """Write `value` as JSON in a random but consistent (or deliberately chaotic) style."""
    nl: str = style["newline"]
    unit: str = style["unit"]

    def ws(default: str) -> str:
        if style["kind"] == "chaotic":
            return rng.choice(["", " ", "\t", nl, nl + "  ", "  " + nl + " "])
        return default

    if isinstance(value, dict | list):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        open_, close = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not items:
            return (
                open_
                + (ws(rng.choice(["", "", " "])) if style["kind"] != "compact" else "")
                + close
            )
        one_line = style["kind"] == "compact" or (style["kind"] == "pretty" and rng.random() < 0.15)
        parts = []
        for item in items:
            if isinstance(value, dict):
                key, val = item
                sep = style["key_sep"] if style["kind"] != "chaotic" else ws("") + ":" + ws(" ")
                sub = (
                    dict(style, kind="compact") if one_line and style["kind"] == "pretty" else style
                )
                parts.append(
                    json.dumps(key, ensure_ascii=style["ascii"])
                    + sep
                    + dump(val, rng, sub, level + 1)
                )
            else:
                sub = (
                    dict(style, kind="compact") if one_line and style["kind"] == "pretty" else style
                )
                parts.append(dump(item, rng, sub, level + 1))
        if style["kind"] == "chaotic":
            return (
                open_
                + ws("")
                + "".join(p + ws("") + "," + ws("") for p in parts[:-1])
                + parts[-1]
                + ws("")
                + close
            )
        if one_line:
            item_sep: str = style["item_sep"]
            return open_ + ("," + item_sep).join(parts) + close
        inner = nl + unit * (level + 1)
        return open_ + inner + ("," + inner).join(parts) + nl + unit * level + close
    return json.dumps(value, ensure_ascii=style["ascii"])


def random_style(rng: random.Random) -> dict[str, Any]:
    return {
        "kind": rng.choice(["pretty", "pretty", "compact", "chaotic"]),
        "newline": rng.choice(["\n", "\r\n"]),
        "unit": rng.choice(["  ", "    ", "\t", " "]),
        "key_sep": rng.choice([": ", ":", " : "]),
        "item_sep": rng.choice([" ", ""]),
        "ascii": rng.random() < 0.5,
    }


# Gemini CLI's settings files: JSON with comments.
GEMINI = adapter_for("gemini-cli").config_dialect()


# JavaScript's `\s`, which strip-json-comments 3.1.1 leaves in place when it blanks a comment.
JS_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def _blank(comment: str) -> str:
    return "".join(ch if JS_SPACE.match(ch) else " " for ch in comment)


def gemini_reads(text: str) -> Any:
    """What Gemini CLI's settings loader makes of `text`: strip-json-comments 3.1.1 blanks each
    comment outside strings but JavaScript's whitespace (a line comment ends at "\\n", an
    unclosed block comment runs to the end), then strict JSON. Raises ValueError where Gemini
    CLI reports an error."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\":
                out.append(text[i + 1 : i + 2])
                i += 2
                continue
            in_string = ch != '"'
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(_blank(text[i:end]))
            i = end
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
            out.append(_blank(text[i:end]))
            i = end
        else:
            in_string = ch == '"'
            out.append(ch)
            i += 1
    stripped = "".join(out)
    if stripped.startswith("\ufeff"):
        raise ValueError("JSON.parse does not skip a byte order mark")
    return json.loads(stripped, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"`{name}` is not JSON")


def comment_texts(text: str, dialect: Dialect = GEMINI) -> list[str]:
    doc = parse_document(text, dialect=dialect)
    return [text[c.start : c.end] for c in doc.comments]
