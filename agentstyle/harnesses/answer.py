"""Writing a harness's answer: its JSON, notices for the person, and doctor's check of it.

The JSON every harness reads, notices for the person, and the check `style doctor` makes of an
answer. Standard library only (the hook path imports it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.harnesses.facts import Can, PointSpec

# What a refusal tells the person where the harness has no `ask` (docs/design/cli.md#allowances):
# the rule's question is delivered as a refusal, and this sentence says how to let the call through.
APPROVE_HINT = "Ask the user; they can allow it once with 'style allow --last'."


def with_approve_hint(reason: str) -> str:
    """An `ask` question turned into a refusal reason that tells the person `style allow`.

    A body that already names `style allow` is left as it is; a body ending in `:` reads on
    into the hint ("needs approval: ask the user; …").
    """
    text = reason.rstrip()
    if "style allow" in text:
        return text
    if not text:
        return APPROVE_HINT
    if text.endswith(":"):
        return f"{text} {APPROVE_HINT[0].lower()}{APPROVE_HINT[1:]}"
    return f"{text} {APPROVE_HINT}"


def dump(obj: Mapping[str, Any]) -> str:
    """One compact JSON object, as every harness reads it."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# What the model is told where a `redact` rule fired and the client cannot replace the output
# (the point lacks Can.REPLACE_OUTPUT, or the output could not be rebuilt): docs/actions.md#redact.
REDACT_NOTICE = (
    "STYLE: the output of this tool call holds a secret ({rules}) that could not be removed "
    "before you read it. Do not repeat it, write it anywhere, or use it; tell the user it was "
    "exposed."
)


def redaction_context(decision: Decision, spec: PointSpec | None) -> list[str]:
    """What the model reads of a redaction: the rules' texts where the answer replaces the
    output, else the notice that the output held a secret it must not repeat or use."""
    redaction = decision.redaction
    if redaction is None:
        return []
    replaces = spec is not None and Can.REPLACE_OUTPUT in spec.capabilities
    if replaces and redaction.output is not None:
        return [t for t in redaction.texts if t]
    return [REDACT_NOTICE.format(rules=rule_names(redaction.rules))]


def result_text(value: Any) -> str | None:
    """The text of a tool's result where it is all text: a string, or parts (a list, or an
    MCP result's `content`) each a string or an object with `text`. None where it holds
    anything else (an image), which no reason text can stand for."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = value.get("content", [value])
    parts = value if isinstance(value, list) else []
    texts = [p.get("text") if isinstance(p, dict) else p for p in parts]
    strings = [t for t in texts if isinstance(t, str)]
    return "".join(strings) if strings and len(strings) == len(texts) else None


def result_reason(
    decision: Decision, context: str, text_of: Callable[[Any], str | None] = result_text
) -> str | None:
    """The reason a client's refusal after a call carries where its reason stands in for the
    call's result (Codex, Gemini CLI, Copilot CLI: docs/actions.md#redact): the redaction's
    output, replaced, as the text `text_of` reads of it, then `context` (the rules' texts and
    any other context). None where there is no such redaction, or no text to stand for it."""
    redaction = decision.redaction
    if redaction is None or redaction.output is None:
        return None
    replaced = text_of(redaction.output)
    if replaced is None:
        return None
    return "\n\n".join(filter(None, [replaced, context]))


def deliverable(decision: Decision, spec: PointSpec | None) -> tuple[str, str]:
    """(context, message) of a decision, each only where the point can deliver it
    (docs/design/harnesses.md#answers): a `warn` at a context-only point reaches the model alone, at
    a message-only point the user alone. An event of no known point keeps both. A redaction's
    text comes first (`redaction_context`)."""
    context = "\n\n".join([*redaction_context(decision, spec), *decision.contexts])
    message = "\n\n".join(decision.messages)
    if spec is not None and Can.CONTEXT not in spec.capabilities:
        context = ""
    if spec is not None and Can.MESSAGE not in spec.capabilities:
        message = ""
    return context, message


def short(text: str, limit: int = 200) -> str:
    """One line, at most `limit` characters: how a command or path is named to the person."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def rule_names(rules: list[str]) -> str:
    """Rule ids as the person reads them in a notice: the local id, without the package."""
    names = [r.split("/", 1)[1] if "/" in r else r for r in rules]
    return ", ".join(dict.fromkeys(names)) or "policy"


def merge_notice(stdout: str, key: str, text: str) -> str | None:
    """An answer (one JSON object, or empty for "no opinion") with `text` added to its
    user-facing field `key`, after any text already there (a `warn` rule's message): still one
    object. None when the answer is not one JSON object (nothing to merge into)."""
    if not stdout.strip():
        obj: dict[str, Any] = {}
    else:
        try:
            parsed = json.loads(stdout)
        except ValueError:
            return None
        if not isinstance(parsed, dict):
            return None
        obj = parsed
    before = obj.get(key)
    if isinstance(before, str) and before.strip():
        obj[key] = before if text in before else f"{before}\n\n{text}"
    else:
        obj[key] = text
    return dump(obj)


def notice_on_stderr(wire: Wire, text: str) -> Wire:
    """Where an event has no user-facing field: the notice as one more stderr line, the best
    place left (some clients show a hook's stderr, all keep it in their debug log)."""
    line = " ".join(text.split())
    return Wire(wire.stdout, wire.exit_code, wire.stderr + line + "\n")


def json_problem(stdout: str) -> tuple[dict[str, Any] | None, str | None]:
    """The one JSON object of an answer, or why the answer is not one."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None, None
    if len(lines) > 1:
        return None, "more than one line on stdout"
    try:
        obj = json.loads(lines[0])
    except ValueError:
        return None, "stdout is not JSON"
    if not isinstance(obj, dict):
        return None, "stdout is not a JSON object"
    return obj, None
