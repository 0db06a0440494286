"""The import directions of the house style hold: stages import one way, heavy libraries stay in
their one place, and no module imports itself back through another."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

from agentstyle.harnesses import MODULES
from agentstyle.runtime import client
from tests.support.environment import ENGINE_ON, clean_env
from tests.support.packages import package_text
from tests.support.project import Project

PACKAGE = Path(__file__).resolve().parent.parent / "agentstyle"

# library → the modules (paths relative to agentstyle/, prefix match) allowed to import it
ALLOWED = {
    "lark": ("grammar/",),
    "duckdb": ("duck.py",),  # DuckDB's engine, for the database (store.py) and RE2 (re2.py)
    "typer": ("cli/",),
    "polars": ("imports/", "audit/report.py", "audit/replay.py"),
    "re2": ("evaluator/heldindex.py",),  # the resident engine's own text tests
}

# The stages, lowest first: a module may import its own group and the groups of lower rank.
# Groups of one rank do not import each other, except where DOWNSTREAM says which way.
# (pattern relative to agentstyle/, group, rank); the first matching pattern wins.
GROUPS = (
    ("source.py", "leaves", 0),
    ("codes.py", "leaves", 0),
    ("diagnostics.py", "leaves", 0),
    ("vocabulary.py", "leaves", 0),
    ("limits.py", "leaves", 0),
    ("slotted.py", "leaves", 0),  # the records of the hook's fast path
    ("folders.py", "leaves", 0),
    ("globs.py", "leaves", 0),  # path globs as RE2 patterns (the rules and the command model)
    ("duck.py", "leaves", 0),
    ("__init__.py", "leaves", 0),
    ("sql/*", "leaves", 0),  # the statements and their loader
    # the harnesses by name, with what the hook reads of them before it loads anything (plain
    # data; its adapters are found by name, not imported)
    ("harnesses/__init__.py", "leaves", 0),
    ("shell/*", "shell", 1),  # what a command string runs: its own program, below the evaluator
    # what each simple command does, per its program's grammar (reads the shell's runs)
    ("commands/*", "commands", 1),
    ("grammar/*", "grammar", 1),
    ("configfiles/*", "configfiles", 1),
    # each harness's capability table: data the planner and the evaluator read, below them both
    ("harnesses/facts/*", "harness-facts", 1),
    ("policy/*", "policy", 2),
    ("evaluator/*", "evaluator", 3),
    ("harnesses/*", "harness-adapters", 4),
    ("observe/runner.py", "entries", 7),  # the checks' runner: a process of its own
    ("observe/*", "observe", 4),  # the observer lane's files: tickets, slots, deliveries
    ("runtime/*", "runtime", 5),
    ("install/*", "install", 6),
    ("doctor/*", "doctor", 6),  # `style doctor`: reads what install wrote
    ("audit/*", "audit", 6),
    ("imports/*", "imports", 6),
    ("cli/*", "cli", 7),
    ("*.py", "entries", 7),  # hook.py, demo.py, __main__.py
)
# same-rank groups that may import the other (never back)
DOWNSTREAM = {
    ("commands", "shell"),
    ("audit", "install"),
    ("doctor", "install"),
    ("audit", "doctor"),  # coverage reads the installed policy as doctor does
    ("imports", "install"),
    ("entries", "cli"),
    ("cli", "entries"),
}
# (module, module it imports for the type checker alone): no import at run time, so no stage
# crossed. The harnesses' face is plain data the hook reads, and finds an adapter by its name.
TYPE_ONLY = {("harnesses/__init__.py", "harnesses/protocol.py")}


def group_of(rel: str) -> tuple[str, int]:
    for pattern, group, rank in GROUPS:
        if fnmatch(rel, pattern):
            return group, rank
    raise AssertionError(f"{rel} is in no group of GROUPS")


def module_file(dotted: str) -> str | None:
    """`agentstyle.x.y` → `x/y.py` (or `x/y/__init__.py`), when it is a module of the package."""
    parts = dotted.split(".")[1:]
    for cut in (len(parts), len(parts) - 1):  # `from agentstyle.x import y`: y may be a name
        if cut <= 0:
            continue
        base = PACKAGE.joinpath(*parts[:cut])
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py").relative_to(PACKAGE).as_posix()
        if (base / "__init__.py").is_file():
            return (base / "__init__.py").relative_to(PACKAGE).as_posix()
    return None


def package_imports(path: Path) -> set[str]:
    """Every module of the package `path` imports, at the top or inside a function."""
    tree = ast.parse(path.read_text("utf-8"))
    rel_parts = path.relative_to(PACKAGE).with_suffix("").parts
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["agentstyle", *rel_parts[: len(rel_parts) - node.level]]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names = [f"{module}.{a.name}" for a in node.names]
        for name in names:
            if name.startswith("agentstyle."):
                target = module_file(name)
                if target is not None:
                    found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module → the modules it imports at run time (TYPE_ONLY's left out)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        graph[rel] = {t for t in package_imports(path) if (rel, t) not in TYPE_ONLY}
    return graph


def test_every_module_is_in_a_stage_group() -> None:
    for rel in import_graph():
        group_of(rel)


def test_stages_import_one_way() -> None:
    offenders = []
    for rel, targets in import_graph().items():
        group, rank = group_of(rel)
        for target in targets:
            t_group, t_rank = group_of(target)
            if t_group == group or t_rank < rank:
                continue
            if t_rank == rank and (group, t_group) in DOWNSTREAM:
                continue
            offenders.append(f"{rel} ({group}) imports {target} ({t_group})")
    assert offenders == []


def test_same_rank_groups_import_in_one_direction_only() -> None:
    for a, b in DOWNSTREAM:
        if {a, b} <= {"entries", "cli"}:
            continue
        assert (b, a) not in DOWNSTREAM


def test_no_import_cycles() -> None:
    """No module reaches itself through imports, lazy ones (inside functions) included."""
    graph = import_graph()
    cycles: list[str] = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt.endswith("__init__.py") and nxt != node and nxt.rsplit("/", 1)[0] in node:
                continue  # a package's __init__ runs before its modules: not a cycle of code
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])
    assert cycles == []


def test_the_readme_layout_names_every_stage_folder() -> None:
    readme = (PACKAGE.parent / "README.md").read_text("utf-8")
    layout = readme.split("## Layout", 1)[1]
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    missing = [f for f in folders if f"{f}/" not in layout]
    assert missing == []


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_heavy_libraries_are_imported_only_in_their_place() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for lib in imported_modules(path) & set(ALLOWED):
            if not rel.startswith(ALLOWED[lib]):
                offenders.append(f"{rel} imports {lib}")
    assert offenders == []


def test_leaves_import_nothing_of_the_engine() -> None:
    for leaf in ("source.py", "codes.py", "diagnostics.py", "vocabulary.py"):
        text = (PACKAGE / leaf).read_text("utf-8")
        assert "agentstyle.evaluator" not in text and "agentstyle.cli" not in text, leaf
        assert "agentstyle.grammar" not in text, leaf


def test_grammar_trees_stop_at_the_grammar_boundary() -> None:
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith("grammar/"):
            assert "lark" not in imported_modules(path), rel


def test_no_sql_text_assembled_in_python() -> None:
    """SQL lives in .sql files: no SELECT/INSERT/DELETE statements in engine Python code."""

    statement = re.compile(r"""["'](SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b""")
    offenders = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if statement.search(path.read_text("utf-8"))
    ]
    assert offenders == []


# A string that is a transaction statement (`BEGIN TRANSACTION`, `commit;`, …; a bare `BEGIN` in
# capitals only: `begin` is a marker word too), and a line of a .sql file that starts one.
_TX_STRING = re.compile(
    r"\s*((?i:(BEGIN|START)\s+TRANSACTION|COMMIT|ROLLBACK|ABORT)|BEGIN)\s*;?\s*"
)
_TX_LINE = re.compile(r"^\s*(BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK|ABORT)\b", re.I | re.M)


def transaction_statements(source: str) -> list[str]:
    """The string constants of a Python source that are transaction statements."""
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _TX_STRING.fullmatch(node.value)
    ]


def test_transactions_begin_and_end_only_in_the_store() -> None:
    """Every BEGIN, COMMIT and ROLLBACK is evaluator/store.py's: elsewhere a `with` block
    (`transaction`, `rolled_back`) says where a transaction ends, so none is left open."""
    assert transaction_statements('c.execute("BEGIN TRANSACTION"); c.execute("commit")') == [
        "BEGIN TRANSACTION",
        "commit",
    ]
    assert transaction_statements('"-----BEGIN PRIVATE KEY-----"; "Commit it."; "begin"') == []
    offenders = [
        f"{path.relative_to(PACKAGE).as_posix()}: {found}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() != "evaluator/store.py"
        for found in transaction_statements(path.read_text("utf-8"))
    ]
    offenders += [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.sql"))
        if _TX_LINE.search(path.read_text("utf-8"))
    ]
    assert offenders == []


def test_hook_entry_imports_nothing_heavy_before_it_has_work() -> None:
    code = (
        "import sys, agentstyle.hook as h\n"
        "h.run(['--harness', 'nope', '--event', 'PreToolUse'], b'{}')\n"
        "heavy = {'duckdb', '_duckdb', 'polars', 'lark', 'typer', 'yaml', 'tree_sitter', 're2'}\n"
        "heavy &= set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# What the hook may load beyond the bare interpreter in a folder with no STYLE project
# (docs/performance.md#never-holding-the-agent-and-nothing-to-do-costing-nothing).
NO_PROJECT_IMPORTS = {
    "__future__",
    "agentstyle",
    "agentstyle.folders",
    "agentstyle.harnesses",
    "agentstyle.hook",
    "agentstyle.limits",
    "agentstyle.runtime",
    "agentstyle.runtime.hookcall",
    "agentstyle.runtime.payloadin",
    "agentstyle.slotted",  # HookCall's and HookFacts' records (a few lines, no imports)
}


def imports_of(importtime_log: str) -> set[str]:
    """The modules (not packages' folders) a `python -X importtime` run's stderr says it
    imported."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in importtime_log.splitlines()
        if line.startswith("import time:") and not line.rstrip().endswith("package")
    }


def test_a_hook_with_nothing_to_do_loads_only_its_own_few_modules(tmp_path: Path) -> None:
    """The installed `style-hook` in a folder with no project, its payload already written and
    stdin closed (as harnesses do): the few small modules that find there is nothing to do, and
    nothing else, not even `select`, which only input still to come needs."""
    folder, home = tmp_path / "work", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STYLE_", "CLAUDE_"))}
    env["HOME"] = str(home)
    script = Path(sys.executable).parent / "style-hook"
    argv = [sys.executable, "-X", "importtime", str(script), "--harness", "claude-code"]
    payload = json.dumps({"session_id": "s", "cwd": str(folder), "tool_name": "Bash"})
    bare = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, env=env
    )
    proc = subprocess.run(
        [*argv, "--event", "PreToolUse"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=60,
    )
    assert (proc.stdout, proc.returncode) == ("", 0)
    assert imports_of(proc.stderr) - imports_of(bare.stderr) - NO_PROJECT_IMPORTS == set()
    assert not (home / ".style").exists()


# What a warm hook (the installed `style-hook`, its event answered by the project's resident
# engine) may load beyond the bare interpreter: the no-project modules, the watchdog, the
# freshness check and the engine's client. Nothing that only a failure needs (the causes and
# `enum` behind them), nor `json`, `struct`, `select`, `hashlib` or DuckDB
# (docs/performance.md#how-an-event-is-answered-in-a-few-milliseconds).
WARM_HOOK_IMPORTS = NO_PROJECT_IMPORTS | {
    "_socket",
    "agentstyle.runtime.budget",
    "agentstyle.runtime.client",
    "agentstyle.runtime.freshness",
    "agentstyle.runtime.peer",
    "faulthandler",
}
WARM_PACKAGE = package_text(
    "warm",
    """
- id: no-recursive-delete
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command shell_regex "^rm .*-rf"'
  text: No recursive deletes.
""",
    head="""
description: the warm hook's imports
""",
)


def test_a_warm_hook_loads_only_the_engine_client(project: Project) -> None:
    """The installed `style-hook` in a project whose resident engine runs, the payload written
    and stdin closed: the engine answers (a refusal), and the hook loads WARM_HOOK_IMPORTS and
    nothing else."""
    project.install(str(project.write_package(WARM_PACKAGE)))
    served = project.start_engine()["served"]
    env = clean_env(project.home, ENGINE_ON)
    script = Path(sys.executable).parent / "style-hook"
    argv = [sys.executable, "-X", "importtime", str(script), "--harness", "claude-code"]
    payload = json.dumps(project.payload("PreToolUse.bash-rm-rf.json", session_id="warm"))
    try:
        bare = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "pass"],
            capture_output=True,
            text=True,
            env=env,
        )
        proc = subprocess.run(
            [*argv, "--event", "PreToolUse"],
            input=payload,
            capture_output=True,
            text=True,
            cwd=project.root,
            env=env,
            timeout=60,
        )
        info = client.ping(str(project.style))
    finally:
        client.stop_engine(str(project.style), wait_s=20)
    assert proc.returncode == 0, proc.stderr
    assert '"permissionDecision":"deny"' in proc.stdout
    assert info is not None and info["served"] == served + 1  # type: ignore[operator]
    assert imports_of(proc.stderr) - imports_of(bare.stderr) - WARM_HOOK_IMPORTS == set()


ADAPTER_MODULES = tuple(MODULES.values())


def test_every_caller_holds_an_adapter_by_its_interface() -> None:
    """An adapter is reached through `adapter_for`, typed `HarnessAdapter`, so mypy strict
    checks every call: no module outside harnesses/ imports an adapter module as a handle, no
    parameter holds an adapter as `Any`, and nothing probes one with getattr/hasattr."""
    import typing

    from agentstyle.harnesses import adapter_for
    from agentstyle.harnesses.facts import SUPPORTED
    from agentstyle.harnesses.protocol import HarnessAdapter

    # (the module imports the interface for typing only: the hook path loads no adapter early)
    hints = typing.get_type_hints(adapter_for, localns={"HarnessAdapter": HarnessAdapter})
    assert hints["return"] is HarnessAdapter
    assert all(isinstance(adapter_for(name), HarnessAdapter) for name in SUPPORTED)
    assert {adapter_for(name).name for name in SUPPORTED} == set(SUPPORTED)
    offenders: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text("utf-8"))
        if "ModuleType" in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
            offenders.append(f"{rel}: a ModuleType handle")
        if not rel.startswith("harnesses/"):
            for target in package_imports(path):
                if target.removesuffix(".py") in {f"harnesses/{m}" for m in ADAPTER_MODULES}:
                    offenders.append(f"{rel}: imports {target} (use adapter_for)")
        held: set[str] = set()  # names bound to an adapter in this module
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func).endswith("adapter_for")
            ):
                held |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(node, ast.arg) and node.arg in ("adapter", "reader"):
                held.add(node.arg)
                if node.annotation is None or "HarnessAdapter" not in ast.unparse(node.annotation):
                    offenders.append(f"{rel}:{node.lineno}: `{node.arg}` is not a HarnessAdapter")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
            ):
                probed = node.args[0]
                name = probed.id if isinstance(probed, ast.Name) else ast.unparse(probed)
                if name in held or "adapter" in name:
                    offenders.append(f"{rel}:{node.lineno}: {node.func.id}({name}, …)")
    assert offenders == []


MAX_FUNCTION_LINES = 100  # its `def` line to its last, docstring included (not its decorators)
MAX_MODULE_LINES = 900


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """`name (N lines)` of each function or method in `source` longer than `limit` lines."""
    return [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_over_100_lines_and_no_module_over_900() -> None:
    """A function says one step; a module holds one job. (No grammar tables are exempt: the
    grammars are .lark files, and no table in agentstyle/ is written as one function.)"""

    def method(lines: int) -> str:
        return "class C:\n    def f(self):\n" + "".join(
            f"        x = {i}\n" for i in range(lines - 1)
        )

    assert long_functions(method(MAX_FUNCTION_LINES)) == []
    assert long_functions(method(MAX_FUNCTION_LINES + 1)) == ["f (101 lines)"]
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        source = path.read_text("utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            offenders.append(f"{rel}: {lines} lines")
        offenders += [f"{rel}: {found}" for found in long_functions(source)]
    assert offenders == []
