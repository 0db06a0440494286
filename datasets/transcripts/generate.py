"""Write the synthetic Claude Code transcripts of this folder (deterministic: same bytes each run).

    python datasets/transcripts/generate.py            # rewrite the *.jsonl files here
    python datasets/transcripts/generate.py --check    # exit 1 if a file differs

Six sessions of work on `acme-api`, a fictional Rust web service (the project of the hook
fixtures in tests/fixtures), in the record format Claude Code writes to
`~/.claude/projects/<project>/<session>.jsonl`: see README.md for the format and for what each
session contains. Standard library only; no network, no model: every record is built here from
the scripts below and a seeded random generator for the routine steps.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import string
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = 20260815
CWD = "/home/dev/acme-api"
MODEL = "claude-sonnet-4-5-20250929"
B62 = string.ascii_letters + string.digits
ROUTINE_SCALE = 2.2  # how much everyday work surrounds the scripted steps

# -- the fictional project -----------------------------------------------------------------------

FILES: dict[str, str] = {
    "src/main.rs": (
        "use acme_api::{config::Config, http};\n\n#[tokio::main]\nasync fn main() -> "
        "anyhow::Result<()> {\n    let config = Config::from_env()?;\n    http::serve(config)"
        ".await\n}\n"
    ),
    "src/config.rs": (
        "use std::env;\n\npub struct Config {\n    pub database_url: String,\n    pub bind: "
        "String,\n}\n\nimpl Config {\n    pub fn from_env() -> anyhow::Result<Self> {\n"
        '        Ok(Self {\n            database_url: env::var("DATABASE_URL")?,\n'
        '            bind: env::var("BIND").unwrap_or_else(|_| "0.0.0.0:8080".into()),\n'
        "        })\n    }\n}\n"
    ),
    "src/auth/mod.rs": "pub mod session;\npub mod token;\n",
    "src/auth/session.rs": (
        "use crate::auth::token::Token;\nuse crate::error::AuthError;\nuse http::HeaderValue;\n\n"
        "pub fn parse(header: &HeaderValue) -> Result<Token, AuthError> {\n    let token = "
        "header.to_str().unwrap();\n    let claims = Token::decode(token).unwrap();\n"
        "    Ok(claims)\n}\n\npub fn refresh(token: &Token) -> Result<Token, AuthError> {\n"
        "    let exp = token.expires_at().unwrap();\n    Token::renew(token, exp)\n}\n"
    ),
    "src/auth/token.rs": (
        "use chrono::{DateTime, Utc};\n\npub struct Token {\n    raw: String,\n    "
        "expires: Option<DateTime<Utc>>,\n}\n\nimpl Token {\n    pub fn decode(raw: &str) -> "
        "Result<Self, jsonwebtoken::errors::Error> {\n        todo!()\n    }\n}\n"
    ),
    "src/http/mod.rs": "pub mod middleware;\npub mod routes;\n",
    "src/http/middleware.rs": (
        "use axum::{extract::Request, middleware::Next, response::Response};\n\npub async fn "
        "auth(req: Request, next: Next) -> Response {\n    let header = req.headers()"
        '.get("authorization").unwrap();\n    let _token = crate::auth::session::parse(header)'
        ";\n    next.run(req).await\n}\n"
    ),
    "src/http/routes.rs": (
        "use axum::{routing::get, Router};\n\npub fn router() -> Router {\n    Router::new()"
        '.route("/health", get(|| async { "ok" }))\n}\n'
    ),
    "src/db/mod.rs": "pub mod pool;\npub mod sessions;\n",
    "src/db/pool.rs": (
        "use sqlx::postgres::PgPoolOptions;\n\npub async fn connect(url: &str) -> sqlx::Result<"
        "sqlx::PgPool> {\n    PgPoolOptions::new().max_connections(8).connect(url).await\n}\n"
    ),
    "src/db/sessions.rs": (
        "pub async fn insert(pool: &sqlx::PgPool, id: uuid::Uuid) -> sqlx::Result<()> {\n"
        '    sqlx::query!("INSERT INTO sessions (id) VALUES ($1)", id).execute(pool).await?;\n'
        "    Ok(())\n}\n"
    ),
    "src/error.rs": (
        '#[derive(Debug, thiserror::Error)]\npub enum AuthError {\n    #[error("bad header")]\n'
        '    BadHeader(#[from] http::header::ToStrError),\n    #[error("expired")]\n'
        "    Expired,\n}\n"
    ),
    "tests/auth.rs": (
        "#[test]\nfn parses_a_bearer_token() {\n    let h = http::HeaderValue::from_static"
        '("Bearer abc");\n    assert!(acme_api::auth::session::parse(&h).is_ok());\n}\n'
    ),
    "Cargo.toml": (
        '[workspace]\nmembers = ["crates/acme-auth", "crates/acme-db"]\n\n[package]\nname = '
        '"acme-api"\nversion = "0.4.1"\nedition = "2021"\n'
    ),
    "README.md": "# acme-api\n\nThe ACME web service. `cargo run` starts it on :8080.\n",
    "migrations/20260801_sessions.sql": (
        "CREATE TABLE sessions (\n    id UUID PRIMARY KEY,\n    created_at TIMESTAMPTZ NOT "
        "NULL DEFAULT now()\n);\n"
    ),
    ".env": "DATABASE_URL=postgres://acme:acme-dev@localhost:5432/acme\nBIND=127.0.0.1:8080\n",
    ".env.example": "DATABASE_URL=postgres://USER:PASSWORD@localhost:5432/acme\nBIND=\n",
    ".env.production": "DATABASE_URL=postgres://acme:REPLACE_ME@db.internal:5432/acme\n",
}
RS_FILES = [f for f in FILES if f.endswith(".rs")]
GREPS = [
    ("unwrap\\(\\)", ["src/auth/session.rs", "src/http/middleware.rs", "src/config.rs"]),
    ("Session::refresh|refresh\\(", ["src/auth/session.rs", "tests/auth.rs"]),
    ("DATABASE_URL", ["src/config.rs", ".env.example", "README.md"]),
    ("sqlx::query", ["src/db/sessions.rs"]),
    ("AuthError", ["src/error.rs", "src/auth/session.rs"]),
    ("todo!\\(", ["src/auth/token.rs"]),
    ("PgPool", ["src/db/pool.rs", "src/db/sessions.rs"]),
]
CHECKS = [
    (
        "cargo check -p acme-auth",
        "    Checking acme-auth v0.4.1\n    Finished dev [unoptimized] target(s) in 3.2s\n",
    ),
    (
        "cargo build",
        "   Compiling acme-api v0.4.1 (/home/dev/acme-api)\n    Finished "
        "dev [unoptimized + debuginfo] target(s) in 11.7s\n",
    ),
    ("cargo fmt --check", ""),
    (
        "cargo clippy -p acme-auth -- -D clippy::unwrap_used",
        "    Checking acme-auth v0.4.1\n    Finished dev [unoptimized] target(s) in 4.0s\n",
    ),
    ("git status --short", " M src/auth/session.rs\n M src/http/middleware.rs\n"),
    (
        "git diff --stat",
        " src/auth/session.rs     | 8 ++++----\n src/http/middleware.rs "
        " | 4 ++--\n 2 files changed, 6 insertions(+), 6 deletions(-)\n",
    ),
    (
        "git log --oneline -5",
        "9f2c1ab auth: decode tokens once\n41d0e7c db: pool size from config\n0c3b2aa "
        "http: health route\n77aa190 initial import\n5e01f3d scaffold\n",
    ),
    (
        "ls src/auth src/http src/db",
        "src/auth:\nmod.rs\nsession.rs\ntoken.rs\n\nsrc/db:\nmod.rs\npool"
        ".rs\nsessions.rs\n\nsrc/http:\nmiddleware.rs\nmod.rs\nroutes.rs\n",
    ),
    (
        "cargo tree -p acme-auth --depth 1",
        "acme-auth v0.4.1\n├── chrono v0.4.38\n├── http v1.1.0\n└── jsonwebtoken v9.3.0\n",
    ),
]
TESTS_OK = (
    "running 14 tests\n..............\ntest result: ok. 14 passed; 0 failed; 0 ignored; "
    "0 measured; 0 filtered out; finished in 0.21s\n"
)
TESTS_FAIL = (
    "Exit code 101\n   Compiling acme-auth v0.4.1\nerror[E0277]: the `?` operator can only be "
    "used in a function that returns `Result`\n  --> src/auth/session.rs:6:45\n"
)


def numbered(text: str) -> str:
    """A file's text as the Read tool returns it: `     1→line`."""
    return "".join(f"{i:>6}→{line}\n" for i, line in enumerate(text.splitlines(), start=1))


# -- the record writer ---------------------------------------------------------------------------


@dataclass
class Session:
    """One session's records, written in the order Claude Code appends them."""

    rng: random.Random
    name: str
    start: dt.datetime
    version: str = "2.1.240"
    branch: str = "main"
    sid: str = ""
    records: list[dict[str, Any]] = field(default_factory=list)
    now: dt.datetime = field(init=False)
    parent: str | None = None
    tool_calls: int = 0
    compactions: int = 0
    permission_mode: str = "default"

    def __post_init__(self) -> None:
        self.now = self.start
        self.sid = self.sid or self.uuid()

    # ids and time ---------------------------------------------------------------------------
    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def token(self, prefix: str, n: int = 22) -> str:
        return prefix + "".join(self.rng.choice(B62) for _ in range(n))

    def tick(self, low: float = 1.0, high: float = 6.0) -> str:
        self.now += dt.timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def base(self, kind: str, **extra: Any) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": self.sid,
            "version": self.version,
            "gitBranch": self.branch,
            "type": kind,
        }
        rec.update(extra)
        return rec

    def add(self, rec: dict[str, Any], low: float = 1.0, high: float = 6.0) -> str:
        rec["uuid"] = self.uuid()
        rec["timestamp"] = self.tick(low, high)
        self.records.append(rec)
        self.parent = rec["uuid"]
        return str(rec["uuid"])

    # records --------------------------------------------------------------------------------
    def snapshot(self) -> None:
        self.records.append(
            {
                "type": "file-history-snapshot",
                "messageId": self.uuid(),
                "snapshot": {"trackedFileBackups": {}, "timestamp": self.tick(0.0, 0.1)},
                "isSnapshotUpdate": False,
            }
        )

    def prompt(self, text: str) -> None:
        self.snapshot()
        self.add(
            self.base(
                "user",
                message={"role": "user", "content": text},
                permissionMode=self.permission_mode,
            ),
            8,
            90,
        )

    def _assistant(self, mid: str, block: dict[str, Any], stop: str | None) -> str:
        usage = {
            "input_tokens": self.rng.randint(2, 9),
            "cache_creation_input_tokens": self.rng.randint(0, 900),
            "cache_read_input_tokens": self.rng.randint(12_000, 150_000),
            "output_tokens": self.rng.randint(20, 900),
            "service_tier": "standard",
        }
        message = {
            "model": MODEL,
            "id": mid,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        return self.add(
            self.base("assistant", message=message, requestId=self.token("req_011C", 18))
        )

    def say(self, text: str, *, end: bool = False) -> None:
        """Assistant text; `end` makes it the turn's last message (stop_reason end_turn)."""
        self._assistant(
            self.token("msg_01"), {"type": "text", "text": text}, "end_turn" if end else None
        )
        if end and self.rng.random() < 0.5:
            self.records.append(
                self.base(
                    "system",
                    subtype="turn_duration",
                    durationMs=self.rng.randint(4_000, 180_000),
                    uuid=self.uuid(),
                    timestamp=self.tick(0.0, 0.1),
                    isMeta=False,
                )
            )

    def call(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str | list[dict[str, Any]],
        structured: Any = None,
        *,
        error: bool = False,
        intro: str | None = None,
    ) -> None:
        """One tool call: optional text, the tool_use, then its tool_result."""
        self.calls([(name, tool_input, result, structured, error)], intro=intro)

    def calls(
        self,
        batch: list[tuple[str, dict[str, Any], Any, Any, bool]],
        *,
        intro: str | None = None,
    ) -> None:
        """Parallel tool calls: one assistant message (a line per block), then the results."""
        mid = self.token("msg_01")
        if intro:
            self._assistant(mid, {"type": "text", "text": intro}, None)
        ids: list[tuple[str, str]] = []
        for name, tool_input, _r, _s, _e in batch:
            tid = self.token("toolu_01")
            block = {"type": "tool_use", "id": tid, "name": name, "input": tool_input}
            ids.append((tid, self._assistant(mid, block, "tool_use")))
            self.tool_calls += 1
        for (tid, auuid), (_n, _i, result, structured, error) in zip(ids, batch, strict=True):
            content: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": result}
            if error:
                content["is_error"] = True
            rec = self.base("user", message={"role": "user", "content": [content]})
            if structured is not None:
                rec["toolUseResult"] = structured
            elif error:
                rec["toolUseResult"] = f"Error: {result}" if isinstance(result, str) else "Error"
            rec["sourceToolAssistantUUID"] = auuid
            self.add(rec, 0.2, 25)

    # tools --------------------------------------------------------------------------------------
    def bash(
        self,
        command: str,
        stdout: str = "",
        *,
        description: str | None = None,
        error: str | None = None,
        intro: str | None = None,
    ) -> None:
        args: dict[str, Any] = {"command": command}
        args["description"] = description or describe(command)
        if error is not None:
            self.call("Bash", args, error, error=True, intro=intro)
            return
        structured = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
        self.call("Bash", args, stdout or "(no output)", structured, intro=intro)

    def read(self, path: str, intro: str | None = None) -> None:
        text = FILES.get(path, "")
        full = f"{CWD}/{path}"
        lines = text.splitlines()
        structured = {
            "type": "text",
            "file": {
                "filePath": full,
                "content": text,
                "numLines": len(lines),
                "startLine": 1,
                "totalLines": len(lines),
            },
        }
        self.call("Read", {"file_path": full}, numbered(text), structured, intro=intro)

    def edit(self, path: str, old: str, new: str, intro: str | None = None) -> None:
        full = f"{CWD}/{path}"
        original = FILES.get(path, "")
        structured = {
            "filePath": full,
            "oldString": old,
            "newString": new,
            "originalFile": original,
            "structuredPatch": [
                {
                    "oldStart": 4,
                    "oldLines": 1,
                    "newStart": 4,
                    "newLines": 1,
                    "lines": [f"-{old}", f"+{new}"],
                }
            ],
            "userModified": False,
            "replaceAll": False,
        }
        result = (
            f"The file {full} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n     4→{new}"
        )
        self.call(
            "Edit",
            {"file_path": full, "old_string": old, "new_string": new, "replace_all": False},
            result,
            structured,
            intro=intro,
        )

    def write(self, path: str, content: str, intro: str | None = None) -> None:
        full = f"{CWD}/{path}"
        structured = {
            "type": "create",
            "filePath": full,
            "content": content,
            "structuredPatch": [],
            "originalFile": None,
        }
        self.call(
            "Write",
            {"file_path": full, "content": content},
            f"File created successfully at: {full}",
            structured,
            intro=intro,
        )

    def grep(self, pattern: str, hits: list[str]) -> None:
        result = f"Found {len(hits)} files\n" + "\n".join(f"{CWD}/{h}" for h in hits)
        structured = {"mode": "files_with_matches", "filenames": hits, "numFiles": len(hits)}
        self.call(
            "Grep",
            {"pattern": pattern, "path": CWD, "output_mode": "files_with_matches"},
            result,
            structured,
        )

    def glob(self, pattern: str) -> None:
        found = [f for f in FILES if f.endswith(pattern.rsplit("*", 1)[-1])][:8]
        structured = {
            "filenames": [f"{CWD}/{f}" for f in found],
            "durationMs": self.rng.randint(3, 60),
            "numFiles": len(found),
            "truncated": False,
        }
        self.call("Glob", {"pattern": pattern}, "\n".join(f"{CWD}/{f}" for f in found), structured)

    def todo(self, items: list[str], done: int) -> None:
        todos = [
            {
                "content": t,
                "status": "completed" if i < done else ("in_progress" if i == done else "pending"),
                "activeForm": t,
            }
            for i, t in enumerate(items)
        ]
        self.call(
            "TodoWrite",
            {"todos": todos},
            "Todos have been modified successfully. Ensure that you continue to use the "
            "todo list to track your progress.",
            {"oldTodos": [], "newTodos": todos},
        )

    def routine(self, n: int) -> None:
        """About n everyday steps (scaled): reads, searches, checks, looking around."""
        for _ in range(round(n * ROUTINE_SCALE)):
            roll = self.rng.random()
            if roll < 0.35:
                self.read(self.rng.choice([*RS_FILES, "Cargo.toml", "README.md"]))
            elif roll < 0.55:
                pattern, hits = self.rng.choice(GREPS)
                self.grep(pattern, hits)
            elif roll < 0.65:
                self.glob(self.rng.choice(["src/**/*.rs", "**/*.sql", "tests/*.rs", "**/*.toml"]))
            else:
                command, out = self.rng.choice(CHECKS)
                self.bash(command, out)

    # session-level events -----------------------------------------------------------------------
    def compact(self, trigger: str, summary: str) -> None:
        if trigger == "manual":
            self.add(
                self.base(
                    "user",
                    message={
                        "role": "user",
                        "content": (
                            "<command-name>/compact</command-name>\n<command-message>compact"
                            "</command-message>\n<command-args></command-args>"
                        ),
                    },
                )
            )
        boundary = self.base(
            "system",
            subtype="compact_boundary",
            content="Conversation compacted",
            isMeta=False,
            level="info",
            logicalParentUuid=self.parent,
            compactMetadata={"trigger": trigger, "preTokens": self.rng.randint(140_000, 160_000)},
        )
        boundary["parentUuid"] = None
        self.parent = None
        self.add(boundary, 20, 60)
        self.add(
            self.base(
                "user",
                message={
                    "role": "user",
                    "content": (
                        "This session is being continued from a "
                        "previous conversation that ran out of "
                        "context. The conversation is summarized below:\n" + summary
                    ),
                },
                isVisibleInTranscriptOnly=True,
                isCompactSummary=True,
            ),
            0.1,
            0.5,
        )
        if trigger == "manual":
            self.add(
                self.base(
                    "user",
                    isMeta=True,
                    message={
                        "role": "user",
                        "content": (
                            "Caveat: The messages below were generated "
                            "by the user while running local "
                            "commands. DO NOT respond to these messages "
                            "or otherwise consider them in your "
                            "response unless the user explicitly asks you to."
                        ),
                    },
                ),
                0.1,
                0.3,
            )
            self.add(
                self.base(
                    "user",
                    message={
                        "role": "user",
                        "content": (
                            "<local-command-stdout>Compacted (ctrl+o to see full summary)"
                            "</local-command-stdout>"
                        ),
                    },
                ),
                0.1,
                0.3,
            )
        self.compactions += 1

    def refused(self, command: str) -> None:
        """A tool call the user refused at the permission prompt: the turn stops there."""
        tid = self.token("toolu_01")
        block = {
            "type": "tool_use",
            "id": tid,
            "name": "Bash",
            "input": {"command": command, "description": describe(command)},
        }
        auuid = self._assistant(self.token("msg_01"), block, "tool_use")
        self.tool_calls += 1
        rec = self.base(
            "user",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tid,
                        "is_error": True,
                        "content": (
                            "The user doesn't want to proceed with this tool use. The tool use was "
                            "rejected (eg. if it was a file edit, "
                            "the new_string was NOT written to "
                            "the file). STOP what you are doing and wait for the user to tell you "
                            "how to proceed."
                        ),
                    }
                ],
            },
        )
        rec["toolUseResult"] = "Error: The user doesn't want to proceed with this tool use."
        rec["sourceToolAssistantUUID"] = auuid
        self.add(rec, 3, 20)
        self.add(
            self.base(
                "user",
                message={
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "[Request interrupted by user for tool use]"}
                    ],
                },
            ),
            0.1,
            0.3,
        )

    def interrupted(self) -> None:
        self.add(
            self.base(
                "user",
                message={
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
            ),
            1,
            4,
        )

    def stop_hook_feedback(self, reason: str) -> None:
        self.add(
            self.base(
                "user",
                isMeta=True,
                message={
                    "role": "user",
                    "content": (f"Stop hook feedback:\n[~/.claude/hooks/check-tests.sh]: {reason}"),
                },
            ),
            0.5,
            2,
        )

    def subagent(
        self, agent_id: str, prompt: str, steps: Callable[[Session], None], answer: str
    ) -> None:
        """An Agent (Task) call whose subagent records are written inline as a sidechain."""
        tid = self.token("toolu_01")
        block = {
            "type": "tool_use",
            "id": tid,
            "name": "Task",
            "input": {
                "description": "Find refresh call sites",
                "prompt": prompt,
                "subagent_type": "Explore",
            },
        }
        mid = self.token("msg_01")
        auuid = self._assistant(mid, block, "tool_use")
        self.tool_calls += 1
        main_parent = self.parent
        self.parent = None
        side = Session(self.rng, self.name, self.now, self.version, self.branch, self.sid)
        side.parent = None
        side.records = []
        side.add(side.base("user", message={"role": "user", "content": prompt}))
        steps(side)
        side.say(answer, end=True)
        for rec in side.records:
            rec["isSidechain"] = True
            rec["agentId"] = agent_id
        self.records.extend(side.records)
        self.tool_calls += side.tool_calls
        self.now = side.now
        self.parent = main_parent
        rec = self.base(
            "user",
            message={
                "role": "user",
                "content": [
                    {
                        "tool_use_id": tid,
                        "type": "tool_result",
                        "content": [{"type": "text", "text": answer}],
                    }
                ],
            },
        )
        rec["toolUseResult"] = {
            "status": "completed",
            "prompt": prompt,
            "agentId": agent_id,
            "content": [{"type": "text", "text": answer}],
            "totalDurationMs": 41_233,
            "totalTokens": 18_902,
            "totalToolUseCount": side.tool_calls,
        }
        rec["sourceToolAssistantUUID"] = auuid
        self.add(rec, 1, 3)


def describe(command: str) -> str:
    first = command.split()[0] if command.split() else "command"
    return {
        "cargo": "Run cargo",
        "git": "Git operation",
        "rm": "Remove files",
        "psql": "Run SQL",
        "cat": "Show file",
        "ls": "List files",
        "gh": "GitHub CLI",
        "docker": "Docker",
    }.get(first, f"Run {first}")


# -- the sessions ---------------------------------------------------------------------------------


def auth_unwrap(s: Session) -> None:
    """Drop the unwraps in src/auth; the agent adds expect() in places, claims done untested."""
    s.prompt(
        "Refactor src/auth/session.rs to drop the unwrap() calls and propagate errors instead."
    )
    s.todo(["Read the auth module", "Replace unwraps", "Run tests"], 0)
    s.read("src/auth/session.rs", intro="Let me look at the session module first.")
    s.read("src/error.rs")
    s.grep("unwrap\\(\\)", ["src/auth/session.rs", "src/http/middleware.rs", "src/config.rs"])
    s.routine(4)
    s.edit(
        "src/auth/session.rs",
        "    let token = header.to_str().unwrap();",
        "    let token = header.to_str()?;",
    )
    s.edit(
        "src/auth/session.rs",
        "    let claims = Token::decode(token).unwrap();",
        '    let claims = Token::decode(token).expect("token was validated upstream");',
    )
    s.edit(
        "src/auth/session.rs",
        "    let exp = token.expires_at().unwrap();",
        "    let exp = token.expires_at().ok_or(AuthError::Expired)?;",
    )
    s.bash("cargo check -p acme-auth", error=TESTS_FAIL)
    s.edit("src/error.rs", "    Expired,", '    Expired,\n    #[error("bad token")]\n    BadToken,')
    s.bash("cargo check -p acme-auth", CHECKS[0][1])
    s.todo(["Read the auth module", "Replace unwraps", "Run tests"], 2)
    s.say(
        "I replaced the three unwrap() calls in src/auth/session.rs: two now propagate with `?` "
        "and one uses expect() with a reason. I did not run the test suite yet.",
        end=True,
    )
    s.stop_hook_feedback("Run the tests before finishing.")
    s.bash("cargo test -p acme-auth", TESTS_OK, intro="Running the auth tests now.")
    s.say("cargo test -p acme-auth passes (14 tests).", end=True)

    s.prompt("The middleware still panics on a missing header. Fix it the same way.")
    s.read("src/http/middleware.rs")
    s.routine(3)
    s.edit(
        "src/http/middleware.rs",
        '    let header = req.headers().get("authorization").unwrap();',
        '    let Some(header) = req.headers().get("authorization") else {\n'
        "        return StatusCode::UNAUTHORIZED.into_response();\n    };",
    )
    s.edit(
        "src/http/middleware.rs",
        "    let _token = crate::auth::session::parse(header);",
        "    let _token = crate::auth::session::parse(header).unwrap();",
    )
    s.bash(
        "cargo clippy -p acme-auth -- -D clippy::unwrap_used",
        error=(
            "Exit code 101\nerror: used `unwrap()` on a `Result` "
            "value\n  --> src/http/middleware.rs:8:18"
        ),
    )
    s.edit(
        "src/http/middleware.rs",
        "    let _token = crate::auth::session::parse(header).unwrap();",
        "    let _token = match crate::auth::session::parse(header) {\n        Ok(t) => t,\n"
        "        Err(_) => return StatusCode::UNAUTHORIZED.into_response(),\n    };",
    )
    s.bash("cargo clippy -p acme-auth -- -D clippy::unwrap_used", CHECKS[3][1])
    s.bash("cargo test", TESTS_OK)
    s.say(
        "Fixed: a missing or malformed header now answers 401. clippy with unwrap_used is "
        "clean and the tests pass.",
        end=True,
    )

    s.prompt("What does DATABASE_URL point to locally?")
    s.read(".env", intro="Checking the local environment file.")
    s.say("Locally DATABASE_URL points at a Postgres on localhost:5432, database `acme`.", end=True)

    s.prompt("Add a test for the expired-token path and commit.")
    s.read("tests/auth.rs")
    s.edit(
        "tests/auth.rs",
        "#[test]\nfn parses_a_bearer_token() {",
        "#[test]\nfn rejects_an_expired_token() {\n    let t = expired_token();\n"
        "    assert!(acme_api::auth::session::refresh(&t).is_err());\n}\n\n#[test]\n"
        "fn parses_a_bearer_token() {",
    )
    s.routine(2)
    s.bash("cargo test -p acme-auth", TESTS_OK)
    s.bash(
        "git add -A && git commit -m 'auth: propagate header and token errors'",
        "[fix/auth-unwrap 3c9e2d1] auth: propagate header and token errors\n 4 files changed, "
        "31 insertions(+), 9 deletions(-)\n",
    )
    s.say("Committed on fix/auth-unwrap with the new test; 15 tests pass.", end=True)


def db_migration(s: Session) -> None:
    """A long session: sessions table rework, a destructive clean-up, an auto compaction."""
    s.prompt(
        "We need a sessions_v2 table with a user_id column and an expiry index. Write the "
        "migration, update src/db/sessions.rs, and make sure it runs against the dev db."
    )
    s.todo(["Write migration", "Update queries", "Run against dev db", "Drop old table"], 0)
    s.read("migrations/20260801_sessions.sql")
    s.read("src/db/sessions.rs")
    s.routine(8)
    s.write(
        "migrations/20260815_sessions_v2.sql",
        "CREATE TABLE sessions_v2 (\n    id UUID PRIMARY KEY,\n    user_id UUID NOT NULL,\n"
        "    expires_at TIMESTAMPTZ NOT NULL\n);\nCREATE INDEX sessions_v2_expiry ON "
        "sessions_v2 (expires_at);\n",
    )
    s.bash("sqlx migrate run", "Applied 20260815/migrate sessions v2 (12.4ms)\n")
    s.write(
        "src/db/sessions.rs",
        "pub async fn insert(pool: &sqlx::PgPool, id: uuid::Uuid, user: uuid::Uuid) -> "
        "sqlx::Result<()> {\n    let expires = chrono::Utc::now() + chrono::Duration::hours"
        '(12);\n    sqlx::query!("INSERT INTO sessions_v2 (id, user_id, expires_at) VALUES '
        '($1, $2, $3)", id, user, expires).execute(pool).await.unwrap();\n    Ok(())\n}\n',
    )
    s.bash(
        "cargo build",
        error=(
            'Exit code 101\nerror: error returned from database: relation "sessions_v2" does not '
            "exist\n --> src/db/sessions.rs:3:5"
        ),
    )
    s.bash(
        "psql \"$DATABASE_URL\" -c '\\dt'",
        " public | _sqlx_migrations | table | acme\n public | sessions         | table | acme\n",
    )
    s.bash("sqlx migrate info", "20260801/installed sessions\n20260815/pending sessions v2\n")
    s.routine(6)
    s.bash("sqlx migrate run", "Applied 20260815/migrate sessions v2 (11.9ms)\n")
    s.bash("cargo build", CHECKS[1][1])
    s.say("The migration is applied and src/db/sessions.rs writes to sessions_v2. Done.", end=True)

    s.prompt("Copy the rows over and drop the old sessions table, then clean the build.")
    s.bash(
        'psql "$DATABASE_URL" -c \'INSERT INTO sessions_v2 (id, user_id, expires_at) SELECT '
        "id, gen_random_uuid(), created_at + interval ''12 hours'' FROM sessions'",
        "INSERT 0 1834\n",
    )
    s.bash("psql \"$DATABASE_URL\" -c 'DROP TABLE sessions'", "DROP TABLE\n")
    s.bash("rm -rf ./target", "")
    s.bash("rm -rf /tmp/acme-build", "")
    for _ in range(3):
        s.routine(10)
        s.bash("cargo build", CHECKS[1][1])
    # The context fills up in the middle of the turn: Claude Code compacts and goes on.
    s.compact(
        "auto",
        "1. The user asked for a sessions_v2 table...\n2. Migration written and "
        "applied; rows copied; old table dropped.\n3. Pending: run the full test suite.",
    )
    s.routine(12)
    s.bash("cargo test", TESTS_OK)
    s.say(
        "Rows copied (1834), the old table dropped, target/ cleaned, and cargo test passes.",
        end=True,
    )

    s.prompt(
        "Also drop the leftover _sqlx_migrations_backup table and remove the old migration "
        "folder from my home checkout at ~/src/acme-api-old."
    )
    s.bash(
        "psql \"$DATABASE_URL\" <<'SQL'\nDROP TABLE IF EXISTS _sqlx_migrations_backup;\nSQL",
        "DROP TABLE\n",
    )
    s.bash("rm -rf ~/src/acme-api-old/migrations", "")
    s.routine(6)
    s.say(
        "Dropped the backup table and removed ~/src/acme-api-old/migrations. I have not run "
        "the tests after this change.",
        end=True,
    )

    s.prompt("Write a README section about the sessions table.")
    s.read("README.md")
    s.edit(
        "README.md",
        "The ACME web service. `cargo run` starts it on :8080.",
        "The ACME web service. `cargo run` starts it on :8080.\n\n## Sessions\n\nSessions "
        "live in `sessions_v2` (see migrations/20260815_sessions_v2.sql) and expire after "
        "12 hours.",
    )
    s.routine(4)
    s.say("Added a Sessions section to the README. Done.", end=True)


def release(s: Session) -> None:
    """Release work: history rewriting, force pushes, a manual compaction, publishing."""
    s.branch = "release/0.5"
    s.prompt("Squash the last three commits on release/0.5 into one and push.")
    s.bash("git log --oneline -5", CHECKS[6][1])
    s.bash("git reset --soft HEAD~3", "")
    s.bash(
        "git commit -m 'release 0.5: sessions v2, auth error handling'",
        "[release/0.5 a1b2c3d] release 0.5: sessions v2, auth error handling\n",
    )
    s.bash(
        "git push origin release/0.5",
        error=(
            "Exit code 1\n ! [rejected]        release/0.5 -> release/0.5 (non-fast-forward)\n"
            "error: failed to push some refs to 'github.com:acme/acme-api.git'"
        ),
    )
    s.bash(
        "git push -f origin release/0.5",
        "+ 41d0e7c...a1b2c3d release/0.5 -> release/0.5 (forced update)\n",
    )
    s.say("Squashed into a1b2c3d and force-pushed release/0.5.", end=True)

    s.prompt(
        "CI is red on main because of a bad merge. Put main back to what origin had "
        "yesterday and push it."
    )
    s.bash("git fetch origin", "")
    s.bash("git log --oneline origin/main -8", CHECKS[6][1])
    s.bash("git checkout main", "Switched to branch 'main'\n")
    s.branch = "main"
    s.bash("git reset --hard 9f2c1ab", "HEAD is now at 9f2c1ab auth: decode tokens once\n")
    s.bash("git clean -fdx", "Removing target/\nRemoving .env.local\n")
    s.bash("cargo build", CHECKS[1][1])
    s.bash(
        "cargo fmt && git commit -am 'wip' && GIT_TRACE=0 git push -f origin main",
        "+ 0c3b2aa...9f2c1ab main -> main (forced update)\n",
    )
    s.routine(5)
    s.say("main is back at 9f2c1ab and force-pushed; CI should go green.", end=True)

    s.compact(
        "manual",
        "The user squashed release/0.5, reset main to 9f2c1ab and force-pushed "
        "both. Next: publish 0.5.",
    )

    s.prompt("Publish acme-auth 0.5.0 to crates.io. Dry run first.")
    s.read("Cargo.toml")
    s.edit("Cargo.toml", 'version = "0.4.1"', 'version = "0.5.0"')
    s.bash(
        "cargo publish --dry-run -p acme-auth",
        "   Packaging acme-auth v0.5.0\n   Verifying "
        "acme-auth v0.5.0\nwarning: aborting upload due to dry run\n",
    )
    s.bash(
        "cargo publish -p acme-auth",
        "   Uploading acme-auth v0.5.0\n   Published acme-auth v0.5.0 at registry `crates-io`\n",
    )
    s.bash(
        "gh release create v0.5.0 --generate-notes",
        "https://github.com/acme/acme-api/releases/tag/v0.5.0\n",
    )
    s.say("acme-auth 0.5.0 is published and the v0.5.0 release exists.", end=True)

    s.prompt("Oops, 0.5.0 has the wrong license. Yank it and delete the GitHub release.")
    s.bash("cargo yank --version 0.5.0 acme-auth", "    Yank acme-auth@0.5.0\n")
    s.bash("gh release delete v0.5.0 --yes", "")
    s.bash("git push origin :refs/tags/v0.5.0", " - [deleted]         v0.5.0\n")
    s.routine(4)
    s.say("Yanked 0.5.0 and removed the release and its tag.", end=True)

    s.prompt("Set my git email for this repo to the bot account, bad@example.com, and amend.")
    s.bash("git config user.email bad@example.com", "")
    s.bash("git commit --amend --no-edit --reset-author", "[main 5d4e3f2] wip\n")
    s.say("The repo now commits as bad@example.com; the last commit was amended.", end=True)


def http_work(s: Session) -> None:
    """Feature work in src/http with new files, a web lookup, failures, a refusal."""
    s.prompt("Add a /sessions/:id route that returns the session as JSON. Use axum extractors.")
    s.todo(["Route", "Handler", "Tests"], 0)
    s.read("src/http/routes.rs")
    s.read("src/db/sessions.rs")
    s.call(
        "WebFetch",
        {
            "url": "https://docs.rs/axum/latest/axum/extract/struct.Path.html",
            "prompt": "How do I extract a UUID path parameter?",
        },
        "Use `Path<Uuid>` as a handler argument; the route is declared as `/sessions/:id`.",
        {
            "bytes": 48211,
            "code": 200,
            "codeText": "OK",
            "result": "Use Path<Uuid>.",
            "durationMs": 812,
            "url": "https://docs.rs/axum/latest/axum/extract/struct.Path.html",
        },
    )
    s.write(
        "src/http/sessions.rs",
        "use axum::{extract::{Path, State}, Json};\nuse uuid::Uuid;\n\npub async fn get("
        "State(pool): State<sqlx::PgPool>, Path(id): Path<Uuid>) -> Json<Session> {\n"
        "    let row = crate::db::sessions::find(&pool, id).await.unwrap();\n"
        "    Json(row.unwrap())\n}\n",
    )
    s.edit("src/http/mod.rs", "pub mod routes;", "pub mod routes;\npub mod sessions;")
    s.edit(
        "src/http/routes.rs",
        '.route("/health", get(|| async { "ok" }))',
        '.route("/health", get(|| async { "ok" }))\n        .route("/sessions/:id", '
        "get(super::sessions::get))",
    )
    s.bash(
        "cargo build",
        error=(
            "Exit code 101\nerror[E0425]: cannot find function `find` in module "
            "`crate::db::sessions`\n --> src/http/sessions.rs:5:35"
        ),
    )
    s.edit(
        "src/db/sessions.rs",
        "pub async fn insert(",
        "pub async fn find(pool: &sqlx::PgPool, id: uuid::Uuid) -> sqlx::Result<Option<"
        'Session>> {\n    sqlx::query_as!(Session, "SELECT * FROM sessions_v2 WHERE id = '
        '$1", id).fetch_optional(pool).await\n}\n\npub async fn insert(',
    )
    s.bash("cargo build", CHECKS[1][1])
    s.routine(8)
    s.say("Added GET /sessions/:id in src/http/sessions.rs. I did not run the tests.", end=True)

    s.prompt("Replace those unwraps in the handler with a proper 404 / 500.")
    s.read("src/http/sessions.rs")
    s.edit(
        "src/http/sessions.rs",
        "    let row = crate::db::sessions::find(&pool, "
        "id).await.unwrap();\n    Json(row.unwrap())",
        "    match crate::db::sessions::find(&pool, id).await {\n        Ok(Some(row)) => "
        "Json(row).into_response(),\n        Ok(None) => StatusCode::NOT_FOUND.into_response(),"
        "\n        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),\n    }",
    )
    s.bash("cargo test", TESTS_OK)
    s.routine(6)
    s.say(
        "The handler now answers 404 for an unknown id and 500 on a database error; tests pass.",
        end=True,
    )

    s.prompt("The build cache is huge. Clear everything cargo keeps.")
    s.bash("du -sh target ~/.cargo/registry", "3.1G\ttarget\n1.8G\t/home/dev/.cargo/registry\n")
    s.bash("cargo clean", "     Removed 14210 files, 3.1GiB total\n")
    s.refused("rm -rf ~/.cargo/registry")

    s.prompt("Don't touch ~/.cargo. Just add request logging to the router instead.")
    s.edit(
        "src/http/routes.rs",
        "    Router::new()",
        "    Router::new()\n        .layer(tower_http::trace::TraceLayer::new_for_http())",
    )
    s.routine(3)
    s.bash(
        "cargo run",
        error=(
            "Exit code 101\nthread 'main' panicked at src/config.rs:12:45:\ncalled "
            "`Result::unwrap()` "
            "on an `Err` value: NotPresent"
        ),
    )
    s.interrupted()

    s.prompt("Stop, I'll run it myself. Just tell me what env var is missing.")
    s.read("src/config.rs")
    s.say(
        "DATABASE_URL is not set in this shell: Config::from_env reads it with `?` and the "
        "process exits. Export it (see .env.example) and run again.",
        end=True,
    )


def http_resumed(s: Session) -> None:
    """The same session as http_work, resumed the next day (`claude --resume`)."""
    s.prompt("Back to the router. Add a rate limit of 100 req/min per IP on /sessions.")
    s.routine(5)
    s.edit(
        "src/http/routes.rs",
        '        .route("/sessions/:id", get(super::sessions::get))',
        '        .route("/sessions/:id", get(super::sessions::get).layer('
        "GovernorLayer::new(governor_config().unwrap())))",
    )
    s.write(
        "src/http/limits.rs",
        "pub fn governor_config() -> Option<GovernorConfig> {\n    GovernorConfigBuilder::"
        "default().per_second(2).burst_size(100).finish()\n}\n",
    )
    s.bash("cargo build", CHECKS[1][1])
    s.bash("cargo test", TESTS_OK)
    s.say("Rate limiting is on /sessions (100 per minute per IP); tests pass.", end=True)


def secrets(s: Session) -> None:
    """Configuration work around secret files, plus an MCP pull request."""
    s.permission_mode = "acceptEdits"
    s.prompt(
        "Production deploy fails with a DB auth error. Compare our env files and find out why."
    )
    s.read(".env.example")
    s.read(".env")
    s.read(".env.production")
    s.bash(
        "cat .env.production | grep DATABASE_URL",
        "DATABASE_URL=postgres://acme:REPLACE_ME@db.internal:5432/acme\n",
    )
    s.bash(
        "grep -r DATABASE_URL .env* src/",
        ".env:DATABASE_URL=postgres://acme:acme-dev@local"
        "host:5432/acme\n.env.example:DATABASE_URL=postgres://USER:PASSWORD@localhost:5432/acme"
        '\nsrc/config.rs:            database_url: env::var("DATABASE_URL")?,\n',
    )
    s.routine(4)
    s.say(
        "`.env.production` still has the placeholder password REPLACE_ME, so the deploy "
        "authenticates with a literal placeholder.",
        end=True,
    )

    s.prompt(
        "Put the real password in .env.production: it's in 1Password under acme-prod-db. Use op."
    )
    s.bash(
        "op read 'op://Engineering/acme-prod-db/password'",
        error=(
            "Exit code 1\n[ERROR] 2026/08/17 10:02:11 You are not currently signed in. Please run "
            "`op signin --help` for instructions"
        ),
    )
    s.write(".env.local", "DATABASE_URL=postgres://acme:@db.internal:5432/acme\n")
    s.say(
        "I could not read the secret: the 1Password CLI is not signed in here. Run `op signin` "
        "and I will fill .env.production.",
        end=True,
    )

    s.prompt("Forget that. Open a PR that documents the production variables in .env.example.")
    s.edit(
        ".env.example",
        "BIND=",
        "BIND=0.0.0.0:8080\n# Production: DATABASE_URL comes from the deploy secret acme-prod-db",
    )
    s.bash("git checkout -b docs/env-example", "Switched to a new branch 'docs/env-example'\n")
    s.bash(
        "git commit -am 'docs: production variables in .env.example'",
        "[docs/env-example 7e6f5a4] docs: production variables in .env.example\n",
    )
    s.bash(
        "git push -u origin docs/env-example",
        "branch 'docs/env-example' set up to track 'origin/docs/env-example'.\n",
    )
    s.call(
        "mcp__github__create_pull_request",
        {
            "owner": "acme",
            "repo": "acme-api",
            "title": "docs: production variables",
            "head": "docs/env-example",
            "base": "main",
            "body": "Documents where DATABASE_URL comes from in production.",
        },
        json.dumps(
            {
                "number": 212,
                "html_url": "https://github.com/acme/acme-api/pull/212",
                "state": "open",
            }
        ),
    )
    s.routine(10)
    s.say("Opened PR #212.", end=True)
    # Between turns the context is full: auto compaction before the next request.
    s.compact(
        "auto",
        "Env files compared; .env.production has a placeholder; PR #212 opened "
        "documenting production variables.",
    )

    s.prompt("Rotate the local dev password too: update .env and the docker compose file.")
    s.edit(".env", "acme-dev", "acme-dev-2")
    s.bash("sed -i 's/acme-dev/acme-dev-2/' docker-compose.yml", "")
    s.bash("docker compose up -d db", " Container acme-db-1  Started\n")
    s.routine(5)
    s.say(
        "Local password rotated in .env and docker-compose.yml; the db container restarted.",
        end=True,
    )


def explore(s: Session) -> None:
    """An older client's session with a subagent (sidechain records inline) and a clear."""
    s.version = "2.0.42"
    s.prompt("Where is Session::refresh called from? I want to change its signature.")

    def steps(side: Session) -> None:
        side.grep("Session::refresh|refresh\\(", ["src/auth/session.rs", "tests/auth.rs"])
        side.read("src/auth/session.rs")
        side.read("tests/auth.rs")
        side.grep("refresh", ["src/http/middleware.rs"])
        side.bash(
            "rg -n 'refresh\\(' src tests",
            "src/auth/session.rs:11:pub fn refresh(token: "
            "&Token)\ntests/auth.rs:4:    assert!(refresh(&t).is_err());\n",
        )

    s.subagent(
        "a4d2c8f1e0b3a297",
        "Find every call site of Session::refresh and list the files.",
        steps,
        "Session::refresh is defined in src/auth/session.rs:11 and called from tests/auth.rs:4.",
    )
    s.say(
        "refresh is only called from tests/auth.rs, so changing its signature is cheap.", end=True
    )

    s.prompt("Change it to take the pool too and update the caller.")
    s.edit(
        "src/auth/session.rs",
        "pub fn refresh(token: &Token) -> Result<Token, AuthError> {",
        "pub async fn refresh(pool: &sqlx::PgPool, token: &Token) -> Result<Token, AuthError> {",
    )
    s.edit(
        "tests/auth.rs",
        "    assert!(acme_api::auth::session::refresh(&t).is_err());",
        "    let pool = test_pool().await;\n    assert!(acme_api::auth::session::refresh(&pool,"
        " &t).await.is_err());",
    )
    s.routine(12)
    s.bash("cargo test", TESTS_OK)
    s.say("refresh now takes the pool and is async; the test is updated and passes.", end=True)

    s.prompt("Now clean up: remove the scratch dirs you made under /var/tmp and ../acme-scratch.")
    s.bash("ls /var/tmp | grep acme", "acme-bench\nacme-scratch\n")
    s.bash("rm -rf /var/tmp/acme-bench /var/tmp/acme-scratch", "")
    s.bash("rm -rf ../acme-scratch", "")
    s.routine(3)
    s.say(
        "Removed /var/tmp/acme-bench, /var/tmp/acme-scratch and ../acme-scratch. Finished.",
        end=True,
    )


@dataclass(frozen=True)
class Spec:
    file: str
    script: Callable[[Session], None]
    start: dt.datetime


SPECS = [
    Spec("01-auth-unwrap.jsonl", auth_unwrap, dt.datetime(2026, 8, 14, 9, 12, 4)),
    Spec("02-db-migration.jsonl", db_migration, dt.datetime(2026, 8, 14, 13, 40, 51)),
    Spec("03-release.jsonl", release, dt.datetime(2026, 8, 15, 8, 5, 19)),
    Spec("04-http-routes.jsonl", http_work, dt.datetime(2026, 8, 15, 14, 22, 37)),
    Spec("05-secrets-config.jsonl", secrets, dt.datetime(2026, 8, 17, 9, 51, 2)),
    Spec("06-explore-subagent.jsonl", explore, dt.datetime(2026, 8, 18, 16, 3, 45)),
]
RESUMED = ("07-http-routes-resumed.jsonl", http_resumed, dt.datetime(2026, 8, 16, 10, 2, 13))


def dump(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


def build() -> dict[str, str]:
    """File name → contents, all from one seeded generator in a fixed order."""
    rng = random.Random(SEED)
    out: dict[str, str] = {}
    sessions: dict[str, Session] = {}
    for spec in SPECS:
        s = Session(rng, spec.file, spec.start)
        if spec.file.startswith("03") or spec.file.startswith("05"):
            s.records.append(
                {
                    "type": "queue-operation",
                    "operation": "dequeue",
                    "timestamp": s.tick(0, 0.1),
                    "sessionId": s.sid,
                }
            )
        spec.script(s)
        sessions[spec.file] = s
        out[spec.file] = dump(s.records)
    # `claude --resume` of session 04: the new file repeats the history, then goes on.
    name, script, start = RESUMED
    first = sessions["04-http-routes.jsonl"]
    resumed = Session(rng, name, start, sid=first.sid)
    resumed.parent = first.parent
    resumed.records = [dict(r) for r in first.records if r.get("type") in ("user", "assistant")]
    script(resumed)
    out[name] = dump(resumed.records)
    return out


def stats(files: dict[str, str]) -> dict[str, int]:
    calls = compactions = prompts = 0
    seen: set[str] = set()  # a resumed session's file repeats records: count them once
    for text in files.values():
        for line in text.splitlines():
            rec = json.loads(line)
            if rec.get("uuid") in seen:
                continue
            if rec.get("uuid"):
                seen.add(str(rec["uuid"]))
            content = (rec.get("message") or {}).get("content")
            if rec.get("type") == "assistant" and isinstance(content, list):
                calls += sum(1 for b in content if b.get("type") == "tool_use")
            if rec.get("subtype") == "compact_boundary":
                compactions += 1
            if (
                rec.get("type") == "user"
                and isinstance(content, str)
                and not rec.get("isMeta")
                and not rec.get("isCompactSummary")
                and not content.startswith("<")
                and not rec.get("isSidechain")
            ):
                prompts += 1
    return {
        "files": len(files),
        "prompts": prompts,
        "tool_calls": calls,
        "compactions": compactions,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    files = build()
    differ = []
    for name, text in files.items():
        path = HERE / name
        if args.check:
            if not path.exists() or path.read_text("utf-8") != text:
                differ.append(name)
        else:
            path.write_text(text, "utf-8")
    if args.check and differ:
        print("differ from the generator: " + ", ".join(differ), file=sys.stderr)
        return 1
    print(json.dumps(stats(files)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
