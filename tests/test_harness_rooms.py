"""A harness is one room (agentstyle/harnesses/__init__.py): its facts are its `HarnessSpec`, its
behaviour its adapter, what the hook reads before it loads anything its `HARNESSES` entry, and the
code outside agentstyle/harnesses/ names no harness, so adding one is adding a room."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agentstyle.harnesses import DEFAULT, HARNESSES, MODULES, SUPPORTED, adapter_for
from agentstyle.harnesses.facts import spec_for

PACKAGE = Path(__file__).resolve().parent.parent / "agentstyle"
# What names a harness in code: its name, its module's, and the strings of its own facts the
# hook reads (the variables of its environment, its payload keys), and its config folder.
NAMES = (
    frozenset(SUPPORTED)
    | frozenset(MODULES.values())
    | {
        value
        for facts in HARNESSES.values()
        for value in (facts.project_dir_env, facts.session_env, facts.roots_key)
        if value
    }
    | {facts.session_key for facts in HARNESSES.values()} - {"session_id"}  # shared default
    | {folder for name in SUPPORTED if (folder := spec_for(name).config_folder)}
)

# (module relative to agentstyle/, the harness name it may hold): why it is no harness fact.
ALLOWED = {
    # the demo is a scripted Claude Code session, fixtures and all (`make demo`)
    ("demo.py", "claude-code"): "the demo runs Claude Code's fixtures",
    ("demo.py", ".claude"): "the demo shows the settings it installed",
    # hookify (a Claude Code plugin) keeps its rule files in `.claude/`: a file format's place
    ("imports/hookify.py", ".claude"): "an import format",
    # `style import --from cursor` reads Cursor's rule files: a file format, not a hook client
    ("cli/import_.py", "cursor"): "an import format",
    ("imports/importer.py", "cursor"): "an import format",
    ("imports/formats.py", "cursor"): "an import format",
    # a model's name (`codex-mini`) says its provider; it is no harness
    ("evaluator/recording.py", "codex"): "a model name's prefix",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _holds_a_harness(node: ast.expr) -> bool:
    """A name, attribute or key that holds a harness's name (`harness`, `call.harness`,
    `row["harness"]`, `harnesses`)."""
    if isinstance(node, ast.Name):
        return "harness" in node.id
    if isinstance(node, ast.Attribute):
        return "harness" in node.attr
    if isinstance(node, ast.Subscript):
        key = node.slice
        return (
            isinstance(key, ast.Constant) and isinstance(key.value, str) and "harness" in key.value
        )
    return False


def _strings(node: ast.expr) -> list[str]:
    """The non-empty string constants a comparison's operand is or holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _strings(elt)]
    return []


def harness_names(source: str) -> list[tuple[int, str]]:
    """Where code names a harness: (line, the name or the comparison). A string constant that is
    a harness's (or its module's) name, wherever it stands but in a docstring; and a harness
    compared with, or matched against, any string written out (`harness == "…"`,
    `call.harness in ("…",)`, `harness.startswith("…")`)."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in NAMES
            and id(node) not in docstrings
        ):
            found.append((node.lineno, node.value))
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(map(_holds_a_harness, operands)) and any(_strings(o) for o in operands):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and _holds_a_harness(node.func.value)
            and any(_strings(a) for a in node.args)
        ):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_scan_finds_a_harness_named_in_code() -> None:
    assert harness_names('DEFAULTS = {"codex": 3}\n') == [(1, "codex")]
    assert harness_names('x = adapter_for("gemini-cli")\n') == [(1, "gemini-cli")]
    assert harness_names("import_module('agentstyle.harnesses.x')\nm = 'claude_code'\n") == [
        (2, "claude_code")
    ]
    assert harness_names('os.environ.get("CURSOR_PROJECT_DIR")\n') == [(1, "CURSOR_PROJECT_DIR")]
    assert harness_names('p.get("conversation_id") or p.get("session_id")\n') == [
        (1, "conversation_id")
    ]
    assert harness_names('root / ".gemini" / "settings.json"\n') == [(1, ".gemini")]
    assert harness_names('if call.harness == "claude":\n    pass\n') == [
        (1, "call.harness == 'claude'")
    ]
    assert harness_names('ok = row["harness"] not in ("x", "y")\n') == [
        (1, "row['harness'] not in ('x', 'y')")
    ]
    assert harness_names('ok = harness.startswith("gem")\n') == [(1, "harness.startswith('gem')")]


def test_the_scan_passes_over_prose_and_generic_code() -> None:
    source = (
        'def f(harness):\n    """Runs `--harness claude-code` as cursor does."""\n'
        '    note = f"{harness}: see Claude Code"\n'
        '    return harness == spec.name or harness == "" or not harness\n'
    )
    assert harness_names(source) == []


def test_no_code_outside_the_harnesses_package_names_a_harness() -> None:
    offenders: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("harnesses/"):
            continue
        for line, named in harness_names(path.read_text("utf-8")):
            if (rel, named) in ALLOWED:
                used.add((rel, named))
                continue
            offenders.append(f"{rel}:{line}: {named}")
    assert offenders == [], "ask spec_for(name) or adapter_for(name) instead"
    assert sorted(set(ALLOWED) - used) == [], "allowed names no longer used: drop them"


@pytest.mark.parametrize("harness", SUPPORTED)
def test_every_harness_has_its_room(harness: str) -> None:
    """The `HARNESSES` entry, the spec and the adapter, under one name, and what the rest of
    STYLE reads of each."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
    assert spec.name == adapter.name == harness and adapter.spec is spec
    assert spec.hook is HARNESSES[harness]
    assert spec.title and spec.points and spec.tool_names
    assert spec.config_folder is not None and spec.config_folder.startswith(".")
    assert spec.hook_config_files, "self-protection guards the files that hold the hooks"
    assert adapter.config_file.startswith(f"{spec.config_folder}/")
    assert adapter.version_command
    if adapter.extension_kind is not None:
        assert adapter.extension_hooks_file is not None
    formats = adapter.transcripts()
    if formats is not None:
        assert formats.harness == harness


def test_the_default_harness_is_supported() -> None:
    assert DEFAULT in SUPPORTED
