"""Rule files of STYLE, oh-my-pi and Cursor as import candidates.

See docs/import.md#markdown-style-rule-files.

Each converter maps what it can faithfully and rejects the rest with the reason: a rule is
never imported weaker than its source (an oh-my-pi `astCondition` is rejected, not dropped).
The shared helpers (quoting, globs, ids) also serve `importer_permissions`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agentstyle import codes
from agentstyle.globs import is_glob
from agentstyle.imports.convert import Candidate, Origin, in_order
from agentstyle.policy.files import MAX_FILE_BYTES, decode
from agentstyle.policy.load import split_front_matter, trim_body
from agentstyle.policy.yamlpos import YamlError, YMap, YNode, YSeq, load_yaml
from agentstyle.source import Span

# -- shared helpers --------------------------------------------------------------------------------

_RE2_SPECIAL = frozenset("\\.^$*+?()[]{}|")
_SLUG_DROP = re.compile(r"[^a-z0-9_]+")
_FILE_TOOLS_EDIT = ("file.edit", "file.write")
FILE_INJECT_TOOLS = ["file.read", "file.edit", "file.write"]


@dataclass(slots=True)
class SourceDoc:
    """A markdown source file: front matter (with positions) and body."""

    display: str
    text: str
    front: YMap | None
    body: str
    body_line: int
    raw: bytes


def re2_escape(text: str) -> str:
    """`text` as a literal in an RE2 pattern (only RE2's metacharacters are escaped)."""
    return "".join("\\" + c if c in _RE2_SPECIAL else c for c in text)


def quote(value: str) -> str:
    """A string literal of the `when` language (a JSON string, which the grammar reads)."""
    return json.dumps(value, ensure_ascii=False)


def quote_regex(pattern: str) -> str:
    """A regex as a raw string `r"..."` when it can be one, so reviewers read it as written."""
    raw_ok = '"' not in pattern and "\n" not in pattern and "\r" not in pattern
    if raw_ok:
        i = 0
        while i < len(pattern):
            if pattern[i] == "\\":
                if i + 1 >= len(pattern):
                    raw_ok = False
                    break
                i += 2
                continue
            i += 1
    return f'r"{pattern}"' if raw_ok else quote(pattern)


def any_of(preds: list[str], *, top: bool = False) -> str:
    """Predicates joined by `or`; parenthesized unless it is the whole `when` (`top`)."""
    unique = list(dict.fromkeys(preds))
    if len(unique) == 1:
        return unique[0]
    joined = " or ".join(unique)
    return joined if top else f"({joined})"


def all_of(parts: list[str]) -> str:
    kept = [p for p in parts if p]
    if len(kept) == 1 and _wrapped(kept[0]):
        return kept[0][1:-1]
    return " and ".join(kept)


def _wrapped(expr: str) -> bool:
    """Whether the first `(` of `expr` closes at its last character (strings skipped)."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return False
    depth, in_string, i = 0, False, 0
    while i < len(expr):
        c = expr[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and i != len(expr) - 1:
                return False
        i += 1
    return True


def file_glob(pattern: str) -> str:
    """A rule-file glob as a `file.path` glob: one without `/` matches at any depth."""
    g = pattern.strip()
    while g.startswith("./"):
        g = g[2:]
    if "/" not in g.rstrip("/"):
        g = "**/" + g
    if g.endswith("/"):
        g += "**"
    return g


def slug(text: str) -> str:
    """A valid id segment derived from a name; a hash stands in when nothing is left.

    `*` reads as `star` so that `.env` and `.env.*` stay two ids.
    """
    s = re.sub(r"\*+", "*", text.lower()).replace("*", "-star-")
    s = _SLUG_DROP.sub("-", s)
    s = re.sub(r"-{2,}", "-", s).strip("-_")
    if not s:
        s = "rule-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    return s[:96].rstrip("-_")


def path_id(rel: str) -> str:
    """An id from a path relative to the source folder, without its extension."""
    parts = [p for p in rel.split("/") if p]
    return "/".join(slug(p) for p in parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def escape_template(text: str) -> str:
    """Literal text as a rule body: `{{` would start a template variable
    (docs/templates.md#syntax)."""
    return text.replace("{{", "\\{{")


def read_doc(path: Path, display: str) -> tuple[SourceDoc | None, str | None, int | None]:
    """The source file parsed, or (None, why not, line)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, f"`{display}` is {size} bytes, over the 256 KiB limit of a rule file", 1
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read `{display}`: {(exc.strerror or str(exc)).lower()}", None
    text, problem = decode(raw, display)
    if text is None:
        assert problem is not None
        return None, problem.message, problem.span.line if problem.span else None
    fm, body, body_line = split_front_matter(text)
    front: YMap | None = None
    if fm is not None:
        try:
            node = load_yaml(fm, display)
        except YamlError as exc:
            return None, exc.message, exc.span.line
        if node is not None and not isinstance(node, YMap):
            return None, "front matter must be a mapping", node.span.line
        front = node
    return SourceDoc(display, text, front, body, body_line, raw), None, None


def _strings(node: YNode | None, *, split_commas: bool = False) -> list[str] | None:
    """A string-or-list value as a list of trimmed, non-empty strings; None if not one."""
    if node is None or node.value is None:
        return []
    values = node.value if isinstance(node, YSeq) else [node.value]
    if not all(isinstance(v, str) for v in values):
        return None
    out: list[str] = []
    for v in values:
        pieces = v.split(",") if split_commas else [v]
        out.extend(p.strip() for p in pieces if p.strip())
    return list(dict.fromkeys(out))


def _line(front: YMap | None, key: str) -> int | None:
    if front is None or key not in front:
        return None
    return front.key_span(key).line


def body_of(doc: SourceDoc) -> tuple[str, int]:
    return trim_body(doc.body, doc.body_line)


def pointer_body(description: str, source: str) -> str:
    return escape_template(
        f"{_one_line(description).rstrip('.')}: the full rule is in `{source}`; "
        "read it when this applies."
    )


def _pointer_rule(
    cand: Candidate, description: str, doc: SourceDoc, line: int | None, kind: str
) -> None:
    """A rule the agent applies by its description: injected as a one-line pointer to the source
    file, not with its body."""
    origin = Origin(line)
    cand.set("target", "system", origin)
    cand.set("action", "inject", origin)
    cand.body = pointer_body(description, doc.display)
    cand.body_origin = origin
    cand.note(
        f"{kind}: imported as a one-line pointer to the source file, the body is not injected",
        line=line,
    )


# -- markdown (STYLE rule files) -----------------------------------------------------------------


def markdown_candidate(path: Path, display: str, cid: str) -> Candidate:
    """A STYLE rule file, copied byte for byte; the loader validates it as it is."""
    cand = Candidate(display, 1, display, cid)
    try:
        size = path.stat().st_size
        cand.raw = path.read_bytes() if size <= MAX_FILE_BYTES + 1 else None
    except OSError as exc:
        cand.reject(f"cannot read `{display}`: {(exc.strerror or str(exc)).lower()}")
        return cand
    if cand.raw is None:
        cand.reject(
            f"`{display}` is {size} bytes, over the 256 KiB limit", code=codes.FILE_TOO_LARGE
        )
    return cand


# -- oh-my-pi ------------------------------------------------------------------------------------

OMP_TOOLS = {
    "edit": "file.edit",
    "write": "file.write",
    "read": "file.read",
    "notebook": "notebook.edit",
    "bash": "shell",
    "grep": "file.search",
    "find": "file.search",
    "glob": "file.search",
    "ls": "file.search",
    "fetch": "web.fetch",
    "web_fetch": "web.fetch",
    "web_search": "web.search",
    "task": "agent",
    "todo_write": "todo",
    "todo": "todo",
}
ADDING = frozenset({"file.edit", "file.write", "notebook.edit"})
OMP_KNOWN = {
    "description",
    "globs",
    "alwaysApply",
    "condition",
    "ttsr_trigger",
    "ttsrTrigger",
    "astCondition",
    "question",
    "scope",
    "agents",
    "interruptMode",
    "reminder",
    "enabled",
    "repeatMode",
    "repeatGap",
    "pathScope",
    "paths",
}
INTERRUPT_MODES = ("never", "prose-only", "tool-only", "always")
_SCOPE_TOKEN = re.compile(r"^tool:([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$")


def split_scope(value: str) -> list[str]:
    """Scope tokens split on top-level commas (a `{a,b}` or `(x, y)` stays whole)."""
    tokens: list[str] = []
    depth = 0
    quote_char: str | None = None
    current = ""
    for i, char in enumerate(value):
        if quote_char:
            current += char
            if char == quote_char and value[i - 1 : i] != "\\":
                quote_char = None
            continue
        if char in "\"'":
            quote_char = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            if current.strip():
                tokens.append(current.strip())
            current = ""
            continue
        current += char
    if current.strip():
        tokens.append(current.strip())
    out = []
    for token in tokens:
        if len(token) >= 2 and token[0] in "\"'" and token[-1] == token[0]:
            token = token[1:-1].strip()
        if token:
            out.append(token)
    return out


def looks_like_file_glob(token: str) -> bool:
    """oh-my-pi's test for a `condition` token that is a file glob (`*.rs`), not a regex."""
    t = token.strip()
    if not t or re.search(r"[\\^$+|()]", t) or not re.search(r"[?*\[\]{}]", t):
        return False
    return "/" in t or re.fullmatch(r"\*\.[^\s/]+", t) is not None


def js_regex(pattern: str) -> str:
    """A JavaScript regex source as RE2: `\\uXXXX` is `\\x{XXXX}`; the rest RE2 reads or rejects.

    RE2 rejects what it cannot run in linear time (look-around, backreferences); the
    validator reports that as `bad-pattern` and the rule is rejected, not weakened.
    """
    return re.sub(r"(?<!\\)((?:\\\\)*)\\u([0-9A-Fa-f]{4})", r"\1\\x{\2}", pattern)


def _doc_candidate(doc: SourceDoc, cid: str, tool: str) -> tuple[Candidate, YMap]:
    """The candidate of a markdown source file of `tool` (its body kept as text) and the file's
    front matter (an empty mapping where it has none)."""
    cand = Candidate(doc.display, 1, doc.display, cid)
    cand.comment = f"imported from {Path(doc.display).name} ({tool}) by style import"
    front = doc.front if doc.front is not None else YMap({}, Span(doc.display, 1, 1))
    body, first = body_of(doc)
    cand.body = escape_template(body)
    cand.body_origin = Origin(first)
    return cand, front


def omp_candidate(doc: SourceDoc, cid: str) -> Candidate:
    cand, front = _doc_candidate(doc, cid, "oh-my-pi")
    for key in front:
        if key not in OMP_KNOWN:
            cand.note(f"`{key}` is not an oh-my-pi rule field; ignored", line=_line(front, key))

    def values(key: str, *, commas: bool = False) -> list[str]:
        got = _strings(front.get(key), split_commas=commas)
        if got is None:
            cand.reject(f"`{key}` must be a string or a list of strings", line=_line(front, key))
            return []
        return got

    _omp_unmappable(cand, front)
    mode = _omp_mode(cand, front)
    cond_key = next((k for k in ("condition", "ttsr_trigger", "ttsrTrigger") if k in front), None)
    conditions = values(cond_key) if cond_key else []
    globs = values("globs", commas=True)
    agents = [a.lower() for a in values("agents", commas=True)]
    scope = [t for v in values("scope") for t in split_scope(v)]
    inferred: list[str] = []
    regexes: list[str] = []
    for token in conditions:
        if looks_like_file_glob(token):
            inferred += [f"tool:edit({token})", f"tool:write({token})"]
        else:
            regexes.append(token)
    scope = list(dict.fromkeys(scope + inferred))
    _omp_body_and_reason(cand, front, bool(conditions))
    if not cand.ok:
        return cand
    if not conditions:
        _omp_context_rule(cand, front, globs, scope, doc)
        return cand
    always = front.get("alwaysApply")
    if always is not None and always.value is True:
        cand.note(
            "`alwaysApply` is ignored: oh-my-pi treats a rule with a condition as a stream rule"
        )
    _omp_stream_rule(cand, front, mode, regexes, globs, agents, scope)
    return cand


def _omp_unmappable(cand: Candidate, front: YMap) -> None:
    """Rejects the rule where a field holds what STYLE cannot keep: a judge model's question, an
    ast-grep pattern, a repeat after a gap of messages, a non-boolean `enabled`."""
    enabled = front.get("enabled")
    if enabled is not None and not isinstance(enabled.value, bool):
        cand.reject("`enabled` must be true or false", line=enabled.span.line)
    for key, why in (
        ("astCondition", "ast-grep patterns have no STYLE condition"),
        ("question", "a question for a judge model has no deterministic STYLE condition"),
        ("pathScope", "`pathScope` (a fork's field) has no confirmed meaning to map"),
    ):
        node = front.get(key)
        if node is not None and node.value not in (None, "", []):
            cand.reject(f"`{key}` cannot be imported: {why}", line=_line(front, key))
    if "paths" in front and "globs" not in front:
        cand.reject(
            "`paths` is read by some oh-my-pi versions only; rename it to `globs`",
            line=_line(front, "paths"),
        )
    repeat_mode = front.get("repeatMode")
    if repeat_mode is not None and repeat_mode.value not in (None, "once", "per-compact"):
        cand.reject(
            f"`repeatMode: {repeat_mode.value}` cannot be imported: STYLE repeats per "
            "session, turn or event, not after a gap of messages",
            line=repeat_mode.span.line,
        )


def _omp_mode(cand: Candidate, front: YMap) -> str:
    """The rule's interrupt mode (oh-my-pi's default `always`); an unknown one rejects it."""
    mode_node = front.get("interruptMode")
    if mode_node is None:
        return "always"
    if mode_node.value not in INTERRUPT_MODES:
        cand.reject(
            f"`interruptMode: {mode_node.value}` is not one of: {', '.join(INTERRUPT_MODES)}",
            line=mode_node.span.line,
        )
        return "always"
    return str(mode_node.value)


def _omp_body_and_reason(cand: Candidate, front: YMap, has_condition: bool) -> None:
    """The body from a short `reminder` (what oh-my-pi sends), the reason from the description
    of a rule that applies by itself, and `enabled: false` kept."""
    reminder = front.get("reminder")
    if (
        isinstance(reminder, YNode)
        and isinstance(reminder.value, str)
        and reminder.value.strip()
        and len(reminder.value.encode("utf-8")) <= 1024
    ):
        cand.body = escape_template(reminder.value.strip())
        cand.body_origin = Origin(reminder.span.line)
        cand.note("the body is the rule's `reminder` (what oh-my-pi sends)")
    description = front.get("description")
    desc = description.value if description is not None else None
    always = front.get("alwaysApply")
    is_always = always is not None and always.value is True
    if isinstance(desc, str) and desc.strip() and (has_condition or is_always):
        cand.set("reason", _one_line(desc), Origin(_line(front, "description") or 1))
    enabled = front.get("enabled")
    if enabled is not None and enabled.value is False:
        cand.set("enabled", False, Origin(_line(front, "enabled") or 1))


def _omp_stream_rule(
    cand: Candidate,
    front: YMap,
    mode: str,
    regexes: list[str],
    globs: list[str],
    agents: list[str],
    scope: list[str],
) -> None:
    """A rule with a condition watches one stream: the reply's text or the tool calls its scope
    names; one that watches the model's thinking, or both streams, is rejected."""
    agent_pred = any_of([f"harness.agent glob {quote(a)}" for a in agents]) if agents else ""
    text_tokens = [t for t in scope if t == "text"]
    other = [t for t in scope if t != "text"]
    if "thinking" in other:
        cand.reject(
            "scope `thinking`: STYLE does not see the model's thinking", line=_line(front, "scope")
        )
        return
    if text_tokens and other:
        cand.reject(
            "scope mixes the text stream and tool calls; split it into two rules",
            line=_line(front, "scope"),
        )
        return
    if not other:
        _omp_text_rule(cand, front, mode, regexes, globs, agent_pred)
    else:
        _omp_tool_rule(cand, front, mode, regexes, globs, agent_pred, other)


def _omp_context_rule(
    cand: Candidate, front: YMap, globs: list[str], scope: list[str], doc: SourceDoc
) -> None:
    """A rule without a condition is no stream rule: always-apply, rulebook or inactive."""
    for key in ("scope", "interruptMode", "agents"):
        if key in front:
            cand.note(f"`{key}` is ignored: the rule has no `condition`", line=_line(front, key))
    always = front.get("alwaysApply")
    description = front.get("description")
    origin = Origin(_line(front, "alwaysApply") or 1)
    if always is not None and always.value is True:
        cand.set("target", "system", origin)
        cand.set("action", "inject", origin)
        if globs:
            cand.note("`globs` is ignored: the rule always applies")
        return
    desc = description.value if description is not None else None
    if description is not None and isinstance(desc, str) and desc.strip():
        _pointer_rule(cand, desc, doc, description.span.line, "description-only rule")
        if globs:
            cand.note("`globs` is ignored: the agent decides from the description")
        return
    cand.reject("the rule is inactive in oh-my-pi (no `condition`, `alwaysApply` or `description`)")


def _omp_interrupt(cand: Candidate, front: YMap, mode: str, *, tool: bool) -> None:
    """The action of a stream rule from its interrupt mode (absent: oh-my-pi's `always`).

    An interrupting match refuses the call (tool stream) or sends the agent back (text
    stream), with the rule text; a non-interrupting one becomes a once-per-session reminder.
    """
    line = _line(front, "interruptMode") or 1
    origin = Origin(line)
    interrupts = mode in ("always", "tool-only") if tool else mode in ("always", "prose-only")
    if interrupts:
        cand.set("action", "block", origin)
        if tool:
            cand.set("at", "before", origin)
        return
    cand.set("action", "inject", origin)
    if tool:
        cand.set("at", "after", origin)
    else:
        cand.note(
            f"`interruptMode: {mode}` on the text stream: a reminder at `stop` that does not "
            "send the agent back; `style plan` shows the harnesses whose stop hook can add it",
            line=line,
        )
    cand.set("repeat", "session", origin)
    repeat_mode = front.get("repeatMode")
    if repeat_mode is not None and repeat_mode.value == "per-compact":
        cand.set("reinject_on_compact", True, Origin(_line(front, "repeatMode") or 1))


def _omp_text_rule(
    cand: Candidate, front: YMap, mode: str, regexes: list[str], globs: list[str], agent: str
) -> None:
    if globs:
        cand.reject(
            "`globs` on a text-stream rule: the reply has no file path in STYLE",
            line=_line(front, "globs"),
        )
        return
    origin = Origin(_line(front, "scope") or _line(front, "condition") or 1)
    cand.set("target", "event", origin)
    cand.set("event", "stop", origin)
    _omp_interrupt(cand, front, mode, tool=False)
    when = all_of(
        [any_of([f"response.text regex {quote_regex(js_regex(r))}" for r in regexes]), agent]
    )
    if when:
        cand.set("when", when, Origin(_line(front, "condition") or 1))
    _order(cand)


def _omp_tool_rule(
    cand: Candidate,
    front: YMap,
    mode: str,
    regexes: list[str],
    globs: list[str],
    agent: str,
    tokens: list[str],
) -> None:
    scope_line = _line(front, "scope") or _line(front, "condition") or 1
    # (normalized tools, path glob or None), in scope order.
    groups: dict[tuple[str | None, bool], list[str]] = {}
    all_tools = False
    for token in tokens:
        if token == "tool":
            all_tools = True
            continue
        m = _SCOPE_TOKEN.match(token)
        if m is None:
            cand.reject(f"unknown scope token `{token}`", line=scope_line)
            return
        name, glob = m.group(1).lower(), (m.group(2) or "").strip() or None
        tool = OMP_TOOLS.get(name)
        if tool is None:
            cand.reject(f"oh-my-pi tool `{name}` has no STYLE tool to map to", line=scope_line)
            return
        if glob is not None and tool in ("shell", "web.fetch", "web.search", "agent", "todo"):
            cand.reject(f"scope `{token}`: a `{name}` call has no file path", line=scope_line)
            return
        groups.setdefault((glob, tool in ADDING), []).append(tool)
    if all_tools:
        if groups:
            cand.note("scope `tool` covers every tool; the narrower tokens add nothing")
        groups = {(None, False): ["*"]}
    if globs and any(
        t not in ADDING | {"file.read", "file.search"} for ts in groups.values() for t in ts
    ):
        cand.reject(
            "`globs` on a rule that watches tools without a file path", line=_line(front, "globs")
        )
        return
    tools = list(dict.fromkeys(t for ts in groups.values() for t in ts))
    origin = Origin(scope_line)
    cand.set("target", "tool", origin)
    cand.set("tool", tools[0] if len(tools) == 1 else tools, origin)
    _omp_interrupt(cand, front, mode, tool=True)
    scope_globs = {file_glob(g) for g, _ in groups if g is not None}
    alternatives: list[str] = []
    for (glob, adding), group_tools in groups.items():
        parts: list[str] = []
        if len(groups) > 1:
            names = list(dict.fromkeys(group_tools))
            parts.append(
                f"tool.name == {quote(names[0])}"
                if len(names) == 1
                else f"tool.name in [{', '.join(quote(n) for n in names)}]"
            )
        if glob is not None:
            parts.append(f"file.path glob {quote(file_glob(glob))}")
        field = "tool.added" if adding else "tool.input"
        if regexes:
            parts.append(any_of([f"{field} regex {quote_regex(js_regex(r))}" for r in regexes]))
        alternatives.append(all_of(parts))
    path_globs = [file_glob(g) for g in globs]
    extra = ""
    if path_globs and set(path_globs) != scope_globs:
        extra = any_of([f"file.path glob {quote(g)}" for g in path_globs])
    combined = [a for a in alternatives if a]
    when = all_of(
        [
            (combined[0] if len(combined) == 1 else any_of(combined)) if combined else "",
            extra,
            agent,
        ]
    )
    if when:
        cand.set("when", when, Origin(_line(front, "condition") or scope_line))
    _order(cand)


def _order(cand: Candidate) -> None:
    cand.fields = in_order(cand.fields)


# -- Cursor --------------------------------------------------------------------------------------

CURSOR_KNOWN = ("description", "globs", "alwaysApply")


def cursor_candidate(doc: SourceDoc, cid: str) -> Candidate:
    cand, front = _doc_candidate(doc, cid, "Cursor")
    for key in front:
        if key not in CURSOR_KNOWN:
            cand.note(f"`{key}` is not a Cursor rule field; ignored (Cursor ignores it too)")
    always = front.get("alwaysApply")
    is_always = always is not None and always.value is True
    if always is not None and isinstance(always.value, str):
        cand.note(
            f"`alwaysApply: {always.value!r}` is a string, which Cursor does not count as true",
            line=always.span.line,
        )
    globs = _strings(front.get("globs"), split_commas=True)
    if globs is None:
        cand.reject("`globs` must be a comma-separated string or a list of strings")
        return cand
    description = front.get("description")
    desc = description.value if description is not None else None
    if desc is not None and not isinstance(desc, str):
        cand.reject("`description` must be a string", line=_line(front, "description"))
        return cand
    if isinstance(desc, str) and desc.strip() and (is_always or globs):
        cand.set("reason", _one_line(desc), Origin(_line(front, "description")))
    if is_always:
        origin = Origin(_line(front, "alwaysApply"))
        cand.set("target", "system", origin)
        cand.set("action", "inject", origin)
        if globs:
            cand.note("`globs` is ignored: the rule always applies (as in Cursor)")
    elif globs:
        origin = Origin(_line(front, "globs"))
        cand.set("target", "tool", origin)
        cand.set("tool", list(FILE_INJECT_TOOLS), origin)
        cand.set("action", "inject", origin)
        cand.set("at", "before", origin)
        cand.set("repeat", "session", origin)
        cand.set(
            "when",
            any_of([f"file.path glob {quote(file_glob(g))}" for g in globs], top=True),
            origin,
        )
        for g in globs:
            if not is_glob(g) and "/" not in g:
                cand.note(f"glob `{g}` has no wildcard: it matches that file name at any depth")
    elif isinstance(desc, str) and desc.strip():
        line = _line(front, "description")
        _pointer_rule(cand, desc, doc, line, "description-only rule (Apply Intelligently)")
    else:
        cand.reject(
            "manual rule (no `alwaysApply`, `globs` or `description`): Cursor applies it only "
            "when mentioned with `@`, which STYLE has no event for"
        )
    _order(cand)
    return cand


# -- source files ---------------------------------------------------------------------------------


def expand(path: Path, display: str, fmt: str) -> Iterator[tuple[Path, str, str]]:
    """(file, display, id) for a source argument: a file, or the rule files of a folder.

    oh-my-pi reads its rules folder without sub-folders; Cursor and STYLE rules may nest.
    """
    if path.is_file():
        # STYLE rule files keep their ids (docs/import.md#markdown-style-rule-files); other tools'
        # names are made valid.
        yield path, display, path.stem if fmt == "markdown" else path_id(path.stem)
        return
    suffixes = {"markdown": (".md",), "oh-my-pi": (".md", ".mdc"), "cursor": (".mdc",)}[fmt]
    pattern = "*" if fmt == "oh-my-pi" else "**/*"
    found = sorted(p for p in path.glob(pattern) if p.is_file() and p.suffix in suffixes)
    for p in found:
        rel = p.relative_to(path).as_posix()
        stem = rel.rsplit(".", 1)[0]
        shown = f"{display.rstrip('/')}/{rel}" if display not in ("", ".") else rel
        yield p, shown, (stem if fmt == "markdown" else path_id(stem))
