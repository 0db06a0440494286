"""`style test`: a package's fixture cases run through the same evaluator as the hook."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentstyle.diagnostics import StyleError
from agentstyle.engine.evaluate import EMITTING, evaluate
from agentstyle.engine.policy import memory_policy
from agentstyle.engine.store import Connection

FIRING = (*EMITTING, "blocked", "asked", "allowed")
CASE_KEYS = {"note", "event", "payload", "payload_file", "expect"}
EXPECT_KEYS = {"verdict", "fires", "silent", "output_contains", "stdout", "exit"}


@dataclass(slots=True)
class CaseResult:
    file: str
    note: str
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _qualify(pkg: str, rule: str) -> str:
    return rule if "/" in rule and rule.split("/", 1)[0] == pkg else f"{pkg}/{rule}"


def _payload(case: dict[str, Any], base: Path, cwd: str, event: str | None) -> dict[str, Any]:
    if "payload_file" in case:
        loaded = json.loads((base / str(case["payload_file"])).read_text("utf-8"))
        payload = loaded if isinstance(loaded, dict) else {}
    else:
        payload = dict(case.get("payload") or {})
    payload.setdefault("session_id", "style-test-session")
    payload.setdefault("cwd", cwd)
    if event:
        payload.setdefault("hook_event_name", event)
    return payload


def run_file(conn: Connection, pkg_name: str, path: Path, harness: str) -> list[CaseResult]:
    """Cases of one file run in order against one database, like one session."""
    from agentstyle.harnesses import adapter_for

    adapter = adapter_for(harness)
    try:
        doc = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise StyleError(f"{path}: cannot read test file: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        raise StyleError(f"{path}: a test file is a mapping with a `cases` list")
    results: list[CaseResult] = []
    for i, case in enumerate(doc["cases"], start=1):
        note = str(case.get("note", f"case {i}")) if isinstance(case, dict) else f"case {i}"
        result = CaseResult(str(path), note)
        results.append(result)
        if not isinstance(case, dict) or set(case) - CASE_KEYS:
            result.failures.append(f"malformed case (keys: {', '.join(sorted(CASE_KEYS))})")
            continue
        expect = case.get("expect") or {}
        if set(expect) - EXPECT_KEYS:
            result.failures.append(f"unknown expectation `{sorted(set(expect) - EXPECT_KEYS)[0]}`")
            continue
        try:
            payload = _payload(
                case, path.parent, str(path.parent.parent.resolve()), case.get("event")
            )
        except (OSError, ValueError) as exc:
            result.failures.append(f"cannot read payload: {exc}")
            continue
        native = str(case.get("event") or payload.get("hook_event_name") or "")
        event = adapter.normalize(payload, native)
        conn.execute("BEGIN TRANSACTION")
        [evaluation] = evaluate(conn, [event])
        conn.execute("COMMIT")
        wire = adapter.answer(evaluation.decision, native)
        fired = {c.rule_id for c in evaluation.candidates if c.outcome in FIRING}
        check(result, expect, pkg_name, evaluation.decision, fired, wire)
    return results


def check(
    result: CaseResult, expect: dict[str, Any], pkg: str, decision: Any, fired: set[str], wire: Any
) -> None:
    if "verdict" in expect:
        want = expect["verdict"]
        got = decision.verdict or "none"
        if str(want) != got:
            result.failures.append(f"verdict: expected {want}, got {got}")
    for rule in expect.get("fires", []) or []:
        if _qualify(pkg, rule) not in fired:
            result.failures.append(f"expected `{rule}` to fire")
    for rule in expect.get("silent", []) or []:
        if _qualify(pkg, rule) in fired:
            result.failures.append(f"expected `{rule}` to stay silent")
    texts = "\n".join([*decision.reasons, *decision.contexts, *decision.messages])
    wanted = expect.get("output_contains")
    for needle in [wanted] if isinstance(wanted, str) else (wanted or []):
        if needle not in texts:
            result.failures.append(f"output does not contain {needle!r}")
    if "stdout" in expect and expect["stdout"] != wire.stdout:
        result.failures.append(f"stdout: expected {expect['stdout']!r}, got {wire.stdout!r}")
    if "exit" in expect and int(expect["exit"]) != wire.exit_code:
        result.failures.append(f"exit: expected {expect['exit']}, got {wire.exit_code}")


def run_package_tests(package: str, harness: str = "claude-code") -> list[CaseResult]:
    root = Path(package)
    folder = (root if root.is_dir() else root.parent) / "tests"
    files = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    if not files:
        return []
    results: list[CaseResult] = []
    for path in files:
        conn, compiled = memory_policy([package], harness)
        try:
            pkg_name = compiled.packages[0].package.name
            results.extend(run_file(conn, pkg_name, path, harness))
        finally:
            conn.close()
    return results
