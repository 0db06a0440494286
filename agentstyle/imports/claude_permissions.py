"""Claude Code permission rules (`permissions.deny` / `.ask`) as STYLE rules.

See docs/design/harnesses.md#claude-code-permission-rules.

`Bash(git push:*)` becomes a shell rule whose `shell_regex` runs over each simple command,
`Read(...)`/`Edit(...)` gitignore patterns become `file.path` globs, `WebFetch(domain:…)` a
regex over the URL, `mcp__server__tool` an MCP rule; deny blocks, ask asks. An entry Claude
Code would not enforce the same way is rejected with the reason.

No imported rule is broader than its source: `Read(...)` covers what Claude Code applies Read
rules to — Read, and Grep and Glob (`file.search`) searching inside the path — and nothing it
does not (an edit or a write is an `Edit(...)` rule's business).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from agentstyle.globs import is_glob
from agentstyle.imports.convert import Candidate, in_order
from agentstyle.imports.formats import (
    any_of,
    escape_template,
    quote,
    quote_regex,
    re2_escape,
    slug,
)


def _order(cand: Candidate) -> None:
    cand.fields = in_order(cand.fields)


_ENTRY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$", re.DOTALL)
_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(.+)$", re.DOTALL)
BARE_TOOLS: dict[str, list[str]] = {
    "Bash": ["shell"],
    "Read": ["file.read"],
    "Edit": ["file.edit", "file.write", "notebook.edit"],
    "Write": ["file.write"],
    "NotebookEdit": ["notebook.edit"],
    "WebFetch": ["web.fetch"],
    "WebSearch": ["web.search"],
    "Agent": ["agent"],
    "Task": ["agent"],
    "TodoWrite": ["todo"],
}
NEVER_CONSULTED = ("Write", "MultiEdit", "Glob")
# What Claude Code and STYLE split a command line on (a redirect such as `2>&1` is not one).
_SHELL_OPERATOR = re.compile(r"\|\||&&|\|&|[;|\n]|(?<![<>&])&(?![>&])")


@dataclass(slots=True)
class PermissionEntry:
    kind: str  # deny | ask
    index: int
    entry: str
    line: int | None


def permission_entries(text: str, display: str) -> tuple[list[PermissionEntry], list[str], int]:
    """(deny and ask entries with their lines, problems with the file, allow entry count)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        return [], [f"`{display}` is not JSON: {exc}"], 0
    if not isinstance(doc, dict):
        return [], [f"`{display}` is not a settings object"], 0
    perms = doc.get("permissions")
    if perms is None:
        return [], [], 0
    if not isinstance(perms, dict):
        return [], ["`permissions` must be an object"], 0
    out: list[PermissionEntry] = []
    problems: list[str] = []
    for kind in ("deny", "ask"):
        items = perms.get(kind) or []
        if not isinstance(items, list):
            problems.append(f"`permissions.{kind}` must be a list")
            continue
        lines = _entry_lines(text, kind, len(items))
        for i, item in enumerate(items):
            out.append(PermissionEntry(kind, i, item if isinstance(item, str) else "", lines[i]))
            if not isinstance(item, str):
                problems.append(f"`permissions.{kind}[{i}]` is not a string")
    allow = perms.get("allow")
    return out, problems, len(allow) if isinstance(allow, list) else 0


def _entry_lines(text: str, kind: str, count: int) -> list[int | None]:
    """Line of each string of `permissions.<kind>` (located by scanning the JSON text)."""
    lines: list[int | None] = [None] * count
    perm = re.search(r'"permissions"\s*:\s*\{', text)
    if perm is None:
        return lines
    key = re.compile(rf'"{kind}"\s*:\s*\[').search(text, perm.end())
    if key is None:
        return lines
    pos = key.end()
    token = re.compile(r'"(?:[^"\\]|\\.)*"|\]|\{|\[')
    for i in range(count):
        m = token.search(text, pos)
        if m is None or m.group() == "]":
            break
        lines[i] = text.count("\n", 0, m.start()) + 1
        pos = m.end()
    return lines


def bash_regex(spec: str) -> tuple[str | None, list[str]]:
    """A Claude Code Bash pattern as an RE2 over one simple command, and notes."""
    notes: list[str] = []
    s = spec.strip()
    if s.endswith(":*"):
        s = s[:-2] + " *"
    if any(q in s for q in "\"'"):
        s = s.replace('"', "").replace("'", "")
        notes.append("quotes removed: STYLE matches each command with its quotes removed")
    s = " ".join(s.split(" "))
    s = re.sub(r"\s+", " ", s)
    if s in ("", "*"):
        return None, notes
    word_boundary = s.endswith(" *")
    core = s[:-2] if word_boundary else s
    regex = ".*".join(re2_escape(part) for part in core.split("*"))
    if word_boundary:
        regex += "( |$)"
    elif not core.endswith("*"):
        regex += "$"
    elif regex.endswith(".*"):
        regex = regex[:-2]
    return "^" + regex, notes


def path_globs(spec: str, tool: str) -> tuple[list[str] | None, str | None, list[str]]:
    """A Read/Edit gitignore-style pattern as `file.path` globs; or (None, why not, notes)."""
    s = spec.strip()
    notes: list[str] = []
    if not s:
        return None, f"`{tool}()` has an empty path pattern", notes
    if s.startswith("!"):
        return None, "a negated (`!`) path pattern cannot be imported", notes
    if s.startswith("~"):
        return (
            None,
            "a `~/` path is relative to the home folder, which a shared package cannot know",
            notes,
        )
    if s.startswith("//"):
        g = s[1:]
    elif s.startswith("/"):
        g = s[1:]
        notes.append(
            f"`{s}` is relative to the settings file's project; imported relative to the "
            "project folder (the harness's working folder)"
        )
    else:
        g = s
        while g.startswith("./"):
            g = g[2:]
        if s.startswith("./"):
            pass
        elif "/" not in g.rstrip("/"):
            g = "**/" + g
    if g.endswith("/"):
        return [g + "**"], None, notes
    if g.endswith("/**") or g.endswith("/*"):
        return [g], None, notes
    # gitignore: a pattern naming a folder also covers everything below it.
    return [g, g + "/**"], None, notes


def domain_regex(domain: str) -> str:
    host = domain.strip().lower()
    wildcard = host.startswith("*.")
    host_re = r"[^/?#@:]+\." + re2_escape(host[2:]) if wildcard else re2_escape(host)
    return rf"(?i)^[a-z][a-z0-9+.-]*://([^/?#@]*@)?{host_re}(:[0-9]+)?([/?#]|$)"


def permission_candidate(pe: PermissionEntry, display: str, settings_name: str) -> Candidate:
    label = f"{display}:{pe.line}" if pe.line else display
    cand = Candidate(display, pe.line, f"{label} permissions.{pe.kind}[{pe.index}]", None)
    cand.comment = f"imported from {settings_name} permissions.{pe.kind} by style import"
    entry = pe.entry.strip()
    action = "block" if pe.kind == "deny" else "ask"
    m = _ENTRY.match(entry)
    if not entry or m is None:
        cand.reject(f"`{pe.entry}` is not a permission rule (`Tool` or `Tool(specifier)`)")
        return cand
    tool, spec = m.group(1), m.group(2)
    cand.id = f"{pe.kind}/{_permission_slug(tool, spec)}"
    if action == "block":
        cand.body = escape_template(f"Denied by the Claude Code permission `{entry}`.")
    else:
        cand.body = escape_template(
            f"Allow this call? The Claude Code permission `{entry}` asks first."
        )
    if tool.startswith("mcp__"):
        _mcp(cand, tool, spec, action)
    else:
        cand.set("target", "tool")
        if spec is None or spec.strip() in ("", "*"):
            _set_tools(cand, tool)
            cand.set("action", action)
        else:
            _specified(cand, entry, tool, spec, action)
            if not cand.ok:
                return cand
    _order(cand)
    return cand


def _set_tools(cand: Candidate, tool: str) -> None:
    """The STYLE tools of a Claude Code tool name; a name STYLE has no tool for is matched as the
    harness's native name."""
    tools = BARE_TOOLS.get(tool)
    if tools is None:
        cand.set("names", [tool])
    else:
        cand.set("tool", tools[0] if len(tools) == 1 else tools)


def _specified(cand: Candidate, entry: str, tool: str, spec: str, action: str) -> None:
    """A `Tool(specifier)` entry: its tool, action and `when`, or rejected with the reason."""
    param = _PARAM.match(spec)
    if tool == "Bash":
        _bash(cand, entry, spec, param, action)
    elif tool in ("Read", "Edit"):
        _read_edit(cand, entry, tool, spec, action)
    elif tool in NEVER_CONSULTED:
        cand.reject(
            f"Claude Code never consults `{tool}(...)` path rules (use `Edit(...)`); "
            "importing it would add a rule the source does not enforce"
        )
    elif tool == "WebFetch":
        if not spec.startswith("domain:") or not spec[len("domain:") :].strip():
            cand.reject(f"`{entry}`: only `WebFetch(domain:HOST)` can be imported")
            return
        cand.set("tool", "web.fetch")
        cand.set("action", action)
        regex = domain_regex(spec[len("domain:") :])
        cand.set("when", f"tool.input.url regex {quote_regex(regex)}")
    elif param is not None:
        name, value = param.group(1), param.group(2).strip()
        _set_tools(cand, tool)
        cand.set("action", action)
        cand.set("when", f"tool.input.{name} == {quote(value)}")
    elif tool in ("Agent", "Task"):
        cand.set("tool", "agent")
        cand.set("action", action)
        cand.set("when", f"tool.input.subagent_type == {quote(spec.strip())}")
    else:
        cand.reject(f"`{entry}`: no STYLE mapping for a `{tool}(...)` specifier")


def _bash(cand: Candidate, entry: str, spec: str, param: re.Match[str] | None, action: str) -> None:
    """`Bash(pattern)`: a shell rule whose regex runs over each simple command."""
    if param is not None and param.group(1) == "command":
        cand.reject("`Bash(command:…)` is ignored by Claude Code (a primary field)")
        return
    if _SHELL_OPERATOR.search(spec):
        cand.reject(
            f"`{entry}` spans a shell operator; STYLE matches each simple command of a "
            "command line, which such a pattern never equals: write one rule per command"
        )
        return
    regex, notes = bash_regex(spec)
    for n in notes:
        cand.note(n)
    cand.set("tool", "shell")
    cand.set("action", action)
    if regex is not None:
        cand.set("when", f"tool.input.command shell_regex {quote_regex(regex)}")


def _read_edit(cand: Candidate, entry: str, tool: str, spec: str, action: str) -> None:
    """`Read(path)` and `Edit(path)`: gitignore patterns as `file.path` globs."""
    globs, why, notes = path_globs(spec, tool)
    if globs is None:
        cand.reject(f"`{entry}`: {why}")
        return
    for n in notes:
        cand.note(n)
    preds = [f"file.path glob {quote(g)}" for g in globs]
    if tool == "Read":
        # Claude Code applies Read rules to the tools that read files, Grep and Glob too
        # (file.search, whose `file.path` is the folder searched): a search of the folder
        # itself reads what is inside it.
        tools = ["file.read", "file.search"]
        folders = [g[: -len("/**")] for g in globs if g.endswith("/**")]
        folders = [f for f in folders if f and f != "**" and f not in globs]
        if folders:
            inside = any_of([f"file.path glob {quote(f)}" for f in folders])
            preds.append(f'(tool.name == "file.search" and {inside})')
    else:
        tools = BARE_TOOLS["Edit"]
    cand.set("tool", tools[0] if len(tools) == 1 else tools)
    cand.set("action", action)
    cand.set("when", any_of(preds, top=True))


def _mcp(cand: Candidate, name: str, spec: str | None, action: str) -> None:
    if spec is not None:
        cand.reject(f"`{name}({spec})`: an MCP rule takes no specifier")
        return
    rest = name[len("mcp__") :]
    server, sep, tool = rest.partition("__")
    if not server:
        cand.reject(f"`{name}` names no MCP server")
        return
    cand.set("target", "mcp")
    cand.set("mcp", server)
    cand.set("action", action)
    if sep and tool and tool != "*":
        op = "glob" if is_glob(tool) else "=="
        cand.set("when", f"mcp.tool {op} {quote(tool)}")


def _permission_slug(tool: str, spec: str | None) -> str:
    if spec is None:
        return slug(tool)
    s = spec.strip()
    if tool == "Bash":
        for tail in (":*", " *"):
            if s.endswith(tail):
                s = s[: -len(tail)]
    return slug(f"{tool}-{s}")
