"""`style test`: a package's fixture cases run through the same evaluator as the hook."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.checkresult import as_result
from agentstyle.evaluator.compiled import PolicyErrors
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.evaluation import EMITTING
from agentstyle.evaluator.fixes import fixed_by
from agentstyle.evaluator.store import Connection, memory_store, replace_policy, transaction
from agentstyle.harnesses import DEFAULT as DEFAULT_HARNESS
from agentstyle.policy.compile import compile_policy, load_and_validate

FIRING = (*EMITTING, "blocked", "asked", "allowed", "fixed")
FILE_KEYS = {"cases", "settings"}
CASE_KEYS = {"note", "event", "payload", "payload_file", "check", "expect"}
EXPECT_KEYS = {"verdict", "fires", "silent", "checks", "output_contains", "stdout", "exit"}
# A case's `check:`: the result of a rule's check for the case's event (docs/testing.md).
CHECK_RESULT_KEYS = {"rule", "exit", "output", "duration_s", "timed_out", "crashed"}
VERDICTS = ("block", "ask", "allow", "none")


@dataclass(slots=True)
class CaseResult:
    file: str
    note: str
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "note": self.note, "ok": self.ok, "failures": self.failures}


def _qualify(pkg: str, rule: str) -> str:
    return rule if "/" in rule and rule.split("/", 1)[0] == pkg else f"{pkg}/{rule}"


def _names(value: Any) -> list[str]:
    """A rule list or a single rule name."""
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _payload(case: dict[str, Any], base: Path, cwd: str, event: str | None) -> dict[str, Any]:
    if "payload_file" in case:
        loaded = json.loads((base / str(case["payload_file"])).read_text("utf-8"))
        if not isinstance(loaded, dict):
            raise ValueError("the payload file must hold a JSON object")
        payload = loaded
    else:
        given = case.get("payload") or {}
        if not isinstance(given, dict):
            raise ValueError("`payload` must be a mapping")
        payload = dict(given)
    payload.setdefault("session_id", "style-test-session")
    payload.setdefault("cwd", cwd)
    if event:
        payload.setdefault("hook_event_name", event)
    return payload


def _shape_problem(case: Any) -> str | None:
    if not isinstance(case, dict):
        return "a case must be a mapping"
    unknown = sorted(set(case) - CASE_KEYS)
    if unknown:
        return f"unknown case key `{unknown[0]}` (known: {', '.join(sorted(CASE_KEYS))})"
    if "payload" in case and "payload_file" in case:
        return "give `payload` or `payload_file`, not both"
    check = case.get("check")
    if check is not None:
        if not isinstance(check, dict) or "rule" not in check:
            return "`check` is a mapping with the `rule` whose check ran, and its result"
        unknown = sorted(set(check) - CHECK_RESULT_KEYS)
        if unknown:
            known = ", ".join(sorted(CHECK_RESULT_KEYS))
            return f"unknown `check` key `{unknown[0]}` (known: {known})"
    expect = case.get("expect")
    if expect is None:
        return "the case has no `expect`"
    if not isinstance(expect, dict):
        return "`expect` must be a mapping"
    unknown = sorted(set(expect) - EXPECT_KEYS)
    if unknown:
        return f"unknown expectation `{unknown[0]}` (known: {', '.join(sorted(EXPECT_KEYS))})"
    if "verdict" in expect and str(expect["verdict"]) not in VERDICTS:
        return f"`verdict` must be one of: {', '.join(VERDICTS)}"
    return None


# libyaml reads a large test file ~10x faster than PyYAML's parser, into the same objects; a file
# it refuses is read again by PyYAML, so the error names the problem as it always did.
_FastLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_FastLoader)  # a safe loader: plain data only
    except yaml.YAMLError:
        return yaml.safe_load(text)


def read_test_file(path: Path) -> dict[str, Any]:
    try:
        doc = _load_yaml(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StyleError(f"{path}: cannot read test file: {first}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        raise StyleError(f"{path}: a test file is a mapping with a `cases` list")
    unknown = sorted(set(doc) - FILE_KEYS)
    if unknown:
        raise StyleError(f"{path}: unknown key `{unknown[0]}` (known: cases, settings)")
    if not isinstance(doc.get("settings") or {}, dict):
        raise StyleError(f"{path}: `settings` maps setting names to values")
    return doc


def run_file(
    conn: Connection,
    pkg_name: str,
    path: Path,
    harness: str,
    doc: dict[str, Any] | None = None,
    *,
    display: str | None = None,
    cwd: str | None = None,
) -> list[CaseResult]:
    """Cases of one file run in order against one database, like one session."""
    from agentstyle.harnesses import adapter_for

    adapter = adapter_for(harness)
    doc = doc if doc is not None else read_test_file(path)
    results: list[CaseResult] = []
    for i, case in enumerate(doc["cases"], start=1):
        note = str(case.get("note", f"case {i}")) if isinstance(case, dict) else f"case {i}"
        result = CaseResult(display or str(path), note)
        results.append(result)
        problem = _shape_problem(case)
        if problem:
            result.failures.append(f"malformed case: {problem}")
            continue
        try:
            payload = _payload(
                case, path.parent, cwd or str(path.parent.parent.resolve()), case.get("event")
            )
        except (OSError, ValueError) as exc:
            result.failures.append(f"cannot read payload: {exc}")
            continue
        native = str(case.get("event") or payload.get("hook_event_name") or "")
        event = adapter.normalize(payload, native)
        if event.point is None:
            result.failures.append(
                f"unknown {harness} event `{native}` (set `event:` or `hook_event_name`)"
            )
            continue
        if case.get("check") is not None:  # the check's result, as its runner hands it back
            result_of = dict(case["check"])
            result_of["rule"] = _qualify(pkg_name, str(result_of["rule"]))
            as_result(event, result_of)
        fixing = adapter.fixing(payload, native, event)
        with transaction(conn):
            [evaluation] = evaluate(conn, [event], decided=fixed_by(conn, [fixing]))
        wire = adapter.answer(evaluation.decision, native, event)
        fired = {c.rule_id for c in evaluation.candidates if c.outcome in FIRING}
        check(result, case["expect"], pkg_name, evaluation.decision, fired, wire)
    return results


def check(
    result: CaseResult, expect: dict[str, Any], pkg: str, decision: Any, fired: set[str], wire: Any
) -> None:
    shown = ", ".join(sorted(fired)) or "none"
    if "verdict" in expect:
        want = str(expect["verdict"])
        got = decision.verdict or "none"
        if want != got:
            result.failures.append(f"verdict: expected {want}, got {got}")
    for rule in _names(expect.get("fires")):
        if _qualify(pkg, rule) not in fired:
            result.failures.append(f"expected `{rule}` to fire (fired: {shown})")
    for rule in _names(expect.get("silent")):
        if _qualify(pkg, rule) in fired:
            result.failures.append(f"expected `{rule}` to stay silent (fired: {shown})")
    if "checks" in expect:  # the rules whose check this event starts
        started = sorted(c.rule_id for c in decision.checks)
        wanted = sorted(_qualify(pkg, rule) for rule in _names(expect["checks"]))
        if started != wanted:
            result.failures.append(
                f"checks: expected {wanted or 'none'}, started {started or 'none'}"
            )
    texts = "\n".join([*decision.reasons, *decision.contexts, *decision.messages])
    redaction = decision.redaction
    if redaction is not None:  # what the model reads instead of the output, and is told
        shown_output = json.dumps(redaction.output, ensure_ascii=False, separators=(",", ":"))
        texts = "\n".join([texts, *redaction.texts, shown_output])
    for needle in _names(expect.get("output_contains")):
        if needle not in texts:
            result.failures.append(f"output does not contain {needle!r}; output: {texts!r}")
    if "stdout" in expect and str(expect["stdout"]) != wire.stdout:
        result.failures.append(f"stdout: expected {expect['stdout']!r}, got {wire.stdout!r}")
    if "exit" in expect and str(expect["exit"]) != str(wire.exit_code):
        result.failures.append(f"exit: expected {expect['exit']}, got {wire.exit_code}")


def fixture_files(package: str) -> list[Path]:
    """A directory package's `tests/*.yaml`; a single-file `NAME.md`'s `tests/NAME.yaml`."""
    root = Path(package)
    if root.is_dir():
        folder = root / "tests"
        return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    folder = root.parent / "tests"
    return [p for p in (folder / f"{root.stem}.yaml", folder / f"{root.stem}.yml") if p.is_file()]


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def run_package_tests(package: str, harness: str = DEFAULT_HARNESS) -> list[CaseResult]:
    """Every fixture file of a package, each against a fresh in-memory policy database."""
    files = fixture_files(package)
    if not files:
        return []
    root = Path(package)
    cwd = str((root if root.is_dir() else root.parent).resolve())
    results: list[CaseResult] = []
    for path in files:
        doc = read_test_file(path)
        # Loaded afresh per file: compile_policy extends the plan of what it is given.
        loaded = load_and_validate([package])
        if not loaded.ok:
            raise PolicyErrors(loaded)
        pkg_name = loaded.packages[0].package.name
        chosen = {str(k): v for k, v in (doc.get("settings") or {}).items()}
        compiled = compile_policy(loaded, [harness], {pkg_name: chosen})
        if not compiled.ok:
            raise PolicyErrors(compiled)
        conn = memory_store()
        try:
            replace_policy(conn, compiled.rows)
            results.extend(
                run_file(conn, pkg_name, path, harness, doc, display=_display(path), cwd=cwd)
            )
        finally:
            conn.close()
    return results
