"""The checks emit diagnostic codes by their named constants (agentstyle/codes.py), never as bare
strings, and every code has its prose in codes.yaml: a misspelt or undocumented code fails here
instead of at `style validate --explain`."""

from __future__ import annotations

import ast
from importlib.resources import files
from pathlib import Path

import yaml

from agentstyle import codes
from agentstyle.codes import CODES

PACKAGE = Path(__file__).resolve().parent.parent / "agentstyle"

# (module, string) pairs that equal a code's name without being one.
NOT_CODES = {
    ("runtime/causes.py", "unknown-event"),  # a failure's cause (Cause.UNKNOWN_EVENT), counted
}


def named_codes() -> dict[str, str]:
    """The constants of agentstyle.codes that name a registered code: constant → code."""
    return {
        name: value
        for name, value in vars(codes).items()
        if name.isupper() and isinstance(value, str) and value in CODES
    }


def code_arguments(tree: ast.AST) -> list[ast.expr]:
    """What a module passes where a diagnostic code goes: the first argument of `Diagnostic(…)`,
    `Diagnostic.make(…)` and any `….emit(…)`, every `code=` argument, and the default of every
    parameter named `code`."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            coded = (
                (isinstance(f, ast.Name) and f.id == "Diagnostic")
                or (isinstance(f, ast.Attribute) and f.attr == "emit")
                or (
                    isinstance(f, ast.Attribute)
                    and f.attr == "make"
                    and isinstance(f.value, ast.Name)
                    and f.value.id == "Diagnostic"
                )
            )
            if coded and node.args:
                found.append(node.args[0])
            found += [k.value for k in node.keywords if k.arg == "code"]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            positional = [*a.posonlyargs, *a.args]
            defaulted = positional[len(positional) - len(a.defaults) :]
            pairs = list(zip(defaulted, a.defaults, strict=True))
            pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d]
            found += [default for param, default in pairs if param.arg == "code"]
    return found


def code_problems(source: str, rel: str) -> list[str]:
    """A module's bare code strings and the codes it names that the registry lacks."""
    tree = ast.parse(source)
    known = named_codes()
    problems = [
        f"{rel}:{node.lineno}: bare code {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in CODES
        and (rel, node.value) not in NOT_CODES
    ]
    for arg in code_arguments(tree):
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value not in CODES:
            problems.append(f"{rel}:{arg.lineno}: bare code {arg.value!r}")
        elif (
            isinstance(arg, ast.Attribute)
            and isinstance(arg.value, ast.Name)
            and arg.value.id == "codes"
            and arg.attr not in known
        ):
            problems.append(f"{rel}:{arg.lineno}: `codes.{arg.attr}` is no registered code")
    return problems


def test_the_check_finds_bare_and_unknown_codes() -> None:
    source = """
from agentstyle import codes
def check(emit, code="bad-pattern", exit_code=1, *, code2=None):
    emit(Diagnostic.make("bad-id", "m", None))
    self.emit("E012", "m", None)
    cand.reject("m", code="W001")
    if code == "dup-id":
        Diagnostic(codes.NO_SUCH_CODE, "m")
    self.emit(codes.BAD_ID, "m", None)
    self.emit(code, "m", None)
"""
    assert sorted(code_problems(source, "x.py")) == [
        "x.py:3: bare code 'bad-pattern'",
        "x.py:4: bare code 'bad-id'",
        "x.py:5: bare code 'E012'",
        "x.py:6: bare code 'W001'",
        "x.py:7: bare code 'dup-id'",
        "x.py:8: `codes.NO_SUCH_CODE` is no registered code",
    ]
    assert code_problems('Cause = "unknown-event"', "runtime/causes.py") == []


def test_no_module_emits_a_bare_code() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel != "codes.py":
            problems += code_problems(path.read_text("utf-8"), rel)
    assert problems == []


def test_every_code_has_one_constant() -> None:
    assert sorted(named_codes().values()) == sorted(CODES)


def test_every_code_has_prose_and_all_prose_a_code() -> None:
    """codes.yaml holds the four parts of each registered code, and nothing for a code the
    registry lacks (one renamed in codes.py alone)."""
    text = files("agentstyle").joinpath("codes.yaml").read_text(encoding="utf-8")
    prose = yaml.safe_load(text)
    assert list(prose) == list(CODES)
    for name, parts in prose.items():
        assert sorted(parts) == ["example", "fix", "what", "why"], name
        assert all(isinstance(v, str) and v.strip() for v in parts.values()), name
