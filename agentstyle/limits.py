"""Every bound a hook works within, each defined once: input size, deadline, their shares.

Plain data, no imports: the hook's fast path reads it. The timeout in force for an event is
`timeouts.py`'s; the deadline derived from it is `runtime/hookcall.py`'s.
"""

# A payload over this is never evaluated: it is answered per `fail` (docs/design/runtime.md step 1).
MAX_STDIN = 16 * 1024 * 1024
MAX_STDIN_TEXT = "16 MiB"  # how messages name MAX_STDIN
# Of a payload over MAX_STDIN, the head the engine is sent and a session id is looked for in.
PAYLOAD_HEAD = 64 * 1024
# An oversized payload's rest is read and dropped up to this (the harness never gets EPIPE).
MAX_DRAIN = 1024 * 1024 * 1024

# The internal deadline: this share of the timeout in force for the native event, at most
# DEADLINE_CAP_S (docs/design/harnesses.md); `STYLE_DEADLINE_S=<seconds>` replaces it (tests use a
# small value to prove what a hook that cannot finish in time answers).
DEADLINE_SHARE = 0.9
DEADLINE_CAP_S = 55.0
DEADLINE_ENV = "STYLE_DEADLINE_S"
# After the deadline passed, recording the failure (and reading whether a `fail: closed` rule
# applies) may still wait for the lock: half the time left before the harness's own timeout,
# at most this long.
FAILURE_GRACE_S = 1.0

# Of the deadline, the engine gets nearly all: while it lives it holds the database, so a
# direct evaluation could not start before it answers anyway.
ENGINE_SHARE = 0.85
# Of the time a hook gives it, the engine spends at most this share (the rest carries the
# answer back and leaves the hook time to answer by itself).
ENGINE_BUDGET_SHARE = 0.8
# Of the deadline, a first-use build of the database may take this much (at least
# BUILD_MIN_S); the rest is left for evaluating the event itself.
BUILD_SHARE = 0.7
BUILD_MIN_S = 0.5
