"""Every bound a hook works within, each defined once: input size, deadline, their shares.

Plain data, no imports: the hook's fast path reads it. The timeout in force for an event is
`harnesses/__init__.py`'s (`timeout_for`); the deadline derived from it is `runtime/hookcall.py`'s.
"""

# A payload over this is never evaluated: it is answered per `fail` (docs/design/runtime.md step 1).
MAX_STDIN = 16 * 1024 * 1024
MAX_STDIN_TEXT = "16 MiB"  # how messages name MAX_STDIN
# Of a payload over MAX_STDIN, the head the engine is sent and a session id is looked for in.
PAYLOAD_HEAD = 64 * 1024
# An oversized payload's rest is read and dropped up to this (the harness never gets EPIPE).
MAX_DRAIN = 1024 * 1024 * 1024

# The promise: a hook answers within BUDGET_S of its start, whatever fails
# (docs/design/runtime.md#hook-budget). Its waiting paths (the engine's answer, the lock, DuckDB's
# file, a first-use build, stdin) end at the internal deadline: DEADLINE_SHARE of the timeout in
# force for the native event, at most DEADLINE_S. `STYLE_DEADLINE_S=<seconds>` replaces it (tests
# use a small value to prove what a hook that cannot finish in time answers, and the suite's
# crowds a large one on a loaded machine).
BUDGET_S = 2.0
DEADLINE_SHARE = 0.9
DEADLINE_S = 1.5
DEADLINE_ENV = "STYLE_DEADLINE_S"
# After the deadline passed, recording the failure (and reading whether a `fail: closed` rule
# applies) may still wait for the lock this long: BUDGET_GRACE_S within the budget, and up to
# FAILURE_GRACE_S where `STYLE_DEADLINE_S` replaced the deadline.
BUDGET_GRACE_S = 0.2
FAILURE_GRACE_S = 1.0
# The last resort (runtime/budget.py): WATCHDOG_MARGIN_S before the budget ends (where
# `STYLE_DEADLINE_S` replaced the deadline: WATCHDOG_AFTER_S after the deadline and its grace), a
# watchdog thread gives the fail answer itself and ends the process; WATCHDOG_EXIT_S after that,
# C code with no need of the interpreter (`faulthandler`) ends it with exit 1 and no answer.
WATCHDOG_MARGIN_S = 0.2
WATCHDOG_AFTER_S = 10.0
WATCHDOG_EXIT_S = 0.15
# Reading stdin may take until the deadline, and at least this long (a deadline of 0 s, which
# tests use to prove what a hook past its deadline answers, still reads the payload it answers).
STDIN_MIN_S = 0.5
# So that its answer takes no imports at the last moment, the watchdog loads what it answers
# with this long before it fires (only a call that is slow already pays for it).
WATCHDOG_PREPARE_S = 0.3

# Of the deadline, the engine gets nearly all: while it lives it holds the database, so a
# direct evaluation could not start before it answers anyway.
ENGINE_SHARE = 0.85
# Of the time a hook gives it, the engine spends at most this share (the rest carries the
# answer back and leaves the hook time to answer by itself).
ENGINE_BUDGET_SHARE = 0.8
# A first-use build (from `style.lock.yaml`) takes seconds: it runs in a process of its own, which
# the hook waits for until its deadline; after that the event is answered per `fail` and the
# build goes on for the next hook. A marker this old belongs to a build that died: start another.
BUILD_FRESH_S = 120.0
