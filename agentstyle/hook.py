"""The tiny entry a harness runs per event: `python -m agentstyle.hook --harness H --event E`."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

MAX_STDIN = 16 * 1024 * 1024
DEADLINE_CAP_S = 55.0


class HandlerError(Exception):
    """Anything that stops STYLE from evaluating reliably (runtime.md); `cause` is short."""


def _args(argv: list[str]) -> dict[str, Any]:
    # argparse costs a few ms of import; the hook's arguments are fixed and few.
    out: dict[str, Any] = {"harness": None, "event": None, "fail_closed": False}
    it = iter(argv)
    for arg in it:
        if arg == "--harness":
            out["harness"] = next(it, None)
        elif arg == "--event":
            out["event"] = next(it, None)
        elif arg == "--fail-closed":
            out["fail_closed"] = True
    return out


def find_database(payload_cwd: str | None) -> Path | None:
    """The `.style` folder this event belongs to: STYLE_HOME, else the project, else the user's."""
    override = os.environ.get("STYLE_HOME")
    if override:
        return Path(override)
    starts = [os.environ.get("CLAUDE_PROJECT_DIR"), payload_cwd, os.getcwd()]
    for start in starts:
        if not start:
            continue
        here = Path(start)
        for folder in (here, *here.parents):
            if (folder / ".style" / "style.duckdb").is_file():
                return folder / ".style"
    user = Path.home() / ".style"
    return user if (user / "style.duckdb").is_file() else None


def log_error(home: Path | None, harness: str, event: str, cause: str) -> None:
    target = home if home is not None else Path.home() / ".style"
    try:
        (target / "logs").mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        with open(target / "logs" / "errors.log", "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {harness} {event} {cause}\n")
    except OSError:
        pass


def run(argv: list[str], stdin: bytes) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) for one hook invocation; never raises."""
    started = time.monotonic()
    args = _args(argv)
    harness, native_event = args["harness"] or "", args["event"] or ""
    if harness != "claude-code":
        return "", f"STYLE: unknown harness `{harness}`\n", 0
    from agentstyle.harnesses import claude_code as adapter
    from agentstyle.harnesses.claude_code_spec import SPEC

    point = SPEC.point_of(native_event)
    timeout = SPEC.points[point].timeout_s if point in SPEC.points else 600.0
    deadline = started + min(0.9 * timeout, DEADLINE_CAP_S)
    home: Path | None = None
    payload: dict[str, Any] = {}
    try:
        if len(stdin) > MAX_STDIN:
            raise HandlerError("payload over 16 MiB")
        text = stdin.decode("utf-8", errors="replace")
        if not text.strip():
            raise HandlerError("empty stdin")
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HandlerError(
                f"malformed JSON on stdin ({exc.msg} at line {exc.lineno})"
            ) from None
        if not isinstance(parsed, dict):
            raise HandlerError("stdin is not a JSON object")
        payload = parsed
        home = find_database(payload.get("cwd") if isinstance(payload.get("cwd"), str) else None)
        if point is None:
            raise HandlerError(f"unknown event `{native_event}`")
        if home is None:
            raise HandlerError("no rules database (run `style install`)")
        event = adapter.normalize(payload, native_event)
        from agentstyle.engine.runtime import evaluate_hook

        decision = evaluate_hook(home, event, deadline, started)
        wire = adapter.answer(decision, native_event)
        return wire.stdout, wire.stderr, wire.exit_code
    except Exception as exc:  # every failure becomes the documented fail answer, no traceback
        cause = str(exc) if isinstance(exc, HandlerError) else _short(exc)
        return _failure(
            adapter,
            harness,
            native_event,
            point,
            payload,
            home,
            cause,
            args["fail_closed"],
            deadline,
        )


def _short(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "LockTimeout":
        return "the rules database stayed locked past the deadline"
    if name in ("InterruptException", "DeadlineExceeded"):
        return "internal deadline passed"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{name}: {text}"[:200]


def _failure(
    adapter: Any,
    harness: str,
    native_event: str,
    point: str | None,
    payload: dict[str, Any],
    home: Path | None,
    cause: str,
    install_fail_closed: bool,
    deadline: float,
) -> tuple[str, str, int]:
    log_error(home, harness, native_event, cause)
    closed: bool | None = None  # None: the database could not be read
    if home is not None and (home / "style.duckdb").is_file():
        try:
            from agentstyle.engine.runtime import record_failure

            closed = record_failure(
                home,
                harness,
                native_event,
                point,
                payload,
                cause,
                max(deadline, time.monotonic() + 1.0),
            )
        except Exception:
            closed = None
    if closed or (closed is None and install_fail_closed):
        reason = (
            f"STYLE could not evaluate policy ({cause}); the call is refused because a "
            "rule requires it."
        )
        wire = adapter.deny_answer(native_event, reason)
        # seed 000: the install-level fail-closed answer also exits 1 (onFailure: block).
        code = 1 if closed is None else 0
        return wire.stdout, f"STYLE: {cause}; refused (fail closed)\n", code
    return "", f"STYLE: {cause}; allowed (fail open)\n", 0


def main() -> None:
    try:
        stdin = sys.stdin.buffer.read(MAX_STDIN + 1)
    except OSError:
        stdin = b""
    out, err, code = run(sys.argv[1:], stdin)
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err if err.endswith("\n") else err + "\n")
    sys.stdout.flush()
    raise SystemExit(code)


if __name__ == "__main__":
    main()
