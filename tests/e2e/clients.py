"""Run a real harness client headless in a scratch project against a mock model API.

A `Session` is one scratch git project with a throwaway HOME, STYLE installed into it through
the real `style install`, a scripted mock of the client's model API, and the client itself run
non-interactively (`claude -p`, `codex exec`, `gemini -p`, `copilot -p`, `opencode run`). Every
run is bounded in time and ends its whole process group by pid; `close()` stops the resident
engine the hooks started and the mock server.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from e2e import install_clients, mockapi, qwen_client
from e2e.mockapi import MockServer, Request, Script

REPO = install_clients.REPO
# the real `style` command of the environment running the suite (what a user runs)
STYLE = [str(Path(sys.executable).parent / "style")]
RUN_TIMEOUT_S = 150.0  # one client run, on a loaded 2-core machine
STYLE_TIMEOUT_S = 120.0
# the clients the suite drives
HARNESSES = ("claude-code", "codex", "gemini-cli", "copilot-cli")
API_OF = {
    "claude-code": "anthropic",
    "codex": "openai",
    "gemini-cli": "gemini",
    "copilot-cli": "anthropic",
    "opencode": "anthropic",  # a provider of its own config, on the Anthropic wire
}
# Hook durations measured by the clients, collected over the whole suite (conftest prints them).
DURATIONS: list[tuple[str, str, float]] = []

_CLAUDE_HOOK_LINE = re.compile(
    r"Hooks: (?P<name>[A-Za-z]+)(?::\S+)? \[(?P<cmd>.*)\] finished with status (?P<status>\d+) "
    r"\((?P<ms>\d+)ms\)"
)


def is_style_command(command: str) -> bool:
    """Whether a hook command is one STYLE installed (the portable or the module form)."""
    return "style-hook" in command or "agentstyle.hook" in command


def binary(harness: str) -> Path:
    """The pinned client's command; a missing client fails the test with one line."""
    spec = install_clients.pinned()[harness]
    path = install_clients.binary_of(harness, spec)
    if not path.exists():
        import pytest

        pytest.fail(
            f"e2e: {harness} {spec['version']} is not installed in {path.parent.parent.parent} "
            "(run `make e2e`, which installs it)",
            pytrace=False,
        )
    return path


def end_group(proc: subprocess.Popen[Any]) -> None:
    """End the client's whole process group, by its pid (the group leader)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=5)
            # children may outlive the leader in its group: a second signal reaches them
        except subprocess.TimeoutExpired:
            continue


@dataclass(slots=True)
class Run:
    """One finished client run."""

    harness: str
    code: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    debug: str = ""

    @property
    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
        return out

    def hook_runs(self) -> list[dict[str, Any]]:
        """Claude Code: the hook runs its debug log records (event, status, ms, command)."""
        runs = []
        for m in _CLAUDE_HOOK_LINE.finditer(self.debug):
            runs.append(
                {
                    "event": m["name"],
                    "status": int(m["status"]),
                    "ms": float(m["ms"]),
                    "command": m["cmd"],
                }
            )
        return runs


@dataclass
class Session:
    """One scratch project, throwaway HOME, mock API and client, for one scenario."""

    harness: str
    root: Path
    script: Script
    project: Path = field(init=False)
    home: Path = field(init=False)
    server: MockServer = field(init=False)
    runs: list[Run] = field(default_factory=list)
    wrapped: bool = False
    # Codex: run with `--dangerously-bypass-hook-trust`, Copilot CLI with `--trust-folder`
    # (without it `codex exec` and `copilot -p` skip the project's hooks without a word)
    hook_trust: bool = True
    # STYLE's commands on the client's PATH (False: a machine where STYLE is not installed)
    style_on_path: bool = True

    def __post_init__(self) -> None:
        self.project = self.root / "project"
        self.home = self.root / "home"
        self.project.mkdir(parents=True)
        self.home.mkdir(parents=True)
        git = ["git", "-c", "user.email=e2e@example.invalid", "-c", "user.name=e2e"]
        subprocess.run(["git", "init", "-q"], cwd=self.project, check=True)
        (self.project / "README.md").write_text("scratch project\n")
        (self.project / "victim.txt").write_text("keep me\n")
        subprocess.run([*git, "add", "."], cwd=self.project, check=True)
        subprocess.run([*git, "commit", "-qm", "init"], cwd=self.project, check=True)
        self.server = MockServer(API_OF[self.harness], self.script, self.root / "requests.jsonl")
        self.server.__enter__()
        CLIENT[self.harness].prepare_home(self)

    # -- STYLE, through its real command line ----------------------------------------------

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(
                ("STYLE_", "CLAUDE", "ANTHROPIC", "CODEX", "OPENAI", "GEMINI", "GOOGLE")
            )
            and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTEST_CURRENT_TEST")
        }
        env["HOME"] = str(self.home)
        # STYLE's commands on PATH, as an installed STYLE has them (the hooks run `style-hook`)
        env["PATH"] = os.pathsep.join([str(Path(STYLE[0]).parent), env.get("PATH", "")])
        if not self.style_on_path:
            env["PATH"] = os.pathsep.join(
                p for p in env["PATH"].split(os.pathsep) if p and not Path(p, "style-hook").exists()
            )
        # the engine a hook starts ends by itself soon after the suite, whatever happens
        env["STYLE_ENGINE_IDLE_S"] = "90"
        return env

    def style(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*STYLE, *args],
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=STYLE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"style {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return done

    def package(self, yaml_text: str, name: str = "pkg") -> Path:
        folder = self.root / name
        folder.mkdir(exist_ok=True)
        (folder / "STYLE.yaml").write_text(textwrap.dedent(yaml_text).lstrip())
        return folder

    def install(self, yaml_text: str, *flags: str) -> subprocess.CompletedProcess[str]:
        pkg = self.package(yaml_text)
        return self.style("install", str(pkg), "--harness", self.harness, *flags)

    @property
    def config(self) -> Path:
        return self.project / CLIENT[self.harness].config

    def wrap_hooks(self, template: str, path: Path | None = None) -> None:
        """Replace every STYLE handler command with a wrapper script made from `template`
        (`{python}`, `{command}`, `{log}` filled in) that runs the original command (in `path`,
        another harness's config the client runs too; else its own)."""
        path = path or self.config
        config = json.loads(path.read_text())
        handlers = [
            h
            for groups in config["hooks"].values()
            if isinstance(groups, list)
            for group in groups
            for h in group.get("hooks", [group])  # a flat config's entry is the handler
        ]
        self.wrap_handlers(template, handlers, f"hook-wrapper-{path.parent.name}")
        path.write_text(json.dumps(config, indent=2))

    def wrap_handlers(self, template: str, handlers: list[dict[str, Any]], stem: str) -> None:
        """Point each of STYLE's `handlers` (a config's handler objects, edited in place) at a
        wrapper script `<stem>-<n>.py` made from `template`, as `wrap_hooks` says."""
        n = 0
        for h in handlers:
            if not is_style_command(h.get("command", "")):
                continue
            n += 1
            wrapper = self.root / f"{stem}-{n}.py"
            wrapper.write_text(
                template.format(
                    python=sys.executable,
                    command=h["command"],
                    log=str(self.root / "payloads.jsonl"),
                )
            )
            wrapper.chmod(0o755)
            h["command"] = str(wrapper)
        assert n, "no STYLE handler to wrap"
        self.wrapped = True  # the clients' hook durations now include the wrapper: not kept

    def record_payloads(self, path: Path | None = None) -> None:
        """Log every payload the client sends STYLE's hooks, and the answer, to payloads.jsonl."""
        self.wrap_hooks(RECORDING_WRAPPER, path)

    def payloads(self) -> list[dict[str, Any]]:
        log = self.root / "payloads.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]

    # -- the client ----------------------------------------------------------------------

    def run(self, prompt: str, *, resume: bool = False, extra: Sequence[str] = ()) -> Run:
        client = CLIENT[self.harness]
        argv, env, debug = client.command(self, prompt, resume, list(extra))
        run = self._drive(argv, env, debug)
        for hook in [] if self.wrapped else client.durations(self, run):
            DURATIONS.append((self.harness, hook[0], hook[1]))
        assert not run.timed_out, (
            f"{self.harness} did not finish in {RUN_TIMEOUT_S} s: {run.stderr[-2000:]}"
        )
        return run

    def run_open(self, prompt: str, until: Callable[[], bool], wait_s: float) -> Run:
        """Claude Code as a session that stays open after its turn: the prompt as a stream-json
        message on stdin, which stays open (the client waits for the person's next message, as
        an interactive session idles) until `until()` holds or `wait_s` passed."""
        assert self.harness == "claude-code"
        argv, env, debug = ClaudeCode.command(self, prompt, False, [])
        argv = [a for a in argv if a != prompt]
        argv += ["--input-format", "stream-json"]
        message = {"type": "user", "message": {"role": "user", "content": prompt}}
        run = self._drive(argv, env, debug, json.dumps(message) + "\n", until, wait_s)
        assert not run.timed_out, (
            f"claude-code did not end in {RUN_TIMEOUT_S} s: {run.stderr[-2000:]}"
        )
        return run

    def _drive(
        self,
        argv: list[str],
        env: dict[str, str],
        debug: Path | None,
        message: str | None = None,
        until: Callable[[], bool] | None = None,
        wait_s: float = 0.0,
    ) -> Run:
        """Run the client in its own process group, bounded, and keep what it printed. With a
        `message`, stdin stays open after it until `until()` holds or `wait_s` passed."""
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL if message is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        if message is not None:
            assert proc.stdin is not None and until is not None
            proc.stdin.write(message)
            proc.stdin.flush()
            deadline = started + wait_s
            while time.monotonic() < deadline and not until() and proc.poll() is None:
                time.sleep(0.2)
        timed_out = False
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)  # closes an open stdin
        except subprocess.TimeoutExpired:
            timed_out = True
            end_group(proc)
            out, err = proc.communicate()
        end_group(proc)  # whatever the client left running in its group
        run = Run(
            self.harness,
            proc.returncode,
            out,
            err,
            time.monotonic() - started,
            timed_out,
            debug.read_text(errors="replace") if debug and debug.exists() else "",
        )
        self.runs.append(run)
        n = len(self.runs)
        (self.root / f"run-{n}.stdout").write_text(out)
        (self.root / f"run-{n}.stderr").write_text(err)
        return run

    def requests(self, main_only: bool = True) -> list[Request]:
        return self.server.requests(main_only)

    def close(self) -> None:
        try:
            if (self.project / ".style" / "style.duckdb").exists():
                self.style("engine", "stop", check=False)
        finally:
            self.server.__exit__(None, None, None)


RECORDING_WRAPPER = """#!{python}
# Records the payload the client sent and STYLE's answer, then answers exactly as STYLE did.
import json, subprocess, sys
stdin = sys.stdin.buffer.read()
done = subprocess.run({command!r}, shell=True, input=stdin, capture_output=True)
try:
    payload = json.loads(stdin)
except ValueError:
    payload = {{"_raw": stdin.decode("utf-8", "replace")}}
with open({log!r}, "a") as f:
    f.write(json.dumps({{"payload": payload, "stdout": done.stdout.decode(),
                        "code": done.returncode}}) + "\\n")
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
sys.exit(done.returncode)
"""


# -- one client each ----------------------------------------------------------------------------


class ClaudeCode:
    config = ".claude/settings.json"

    @staticmethod
    def prepare_home(s: Session) -> None:
        return None

    @staticmethod
    def command(
        s: Session, prompt: str, resume: bool, extra: list[str]
    ) -> tuple[list[str], dict[str, str], Path | None]:
        debug = s.root / f"claude-debug-{len(s.runs)}.log"
        env = s.env()
        env.update(
            ANTHROPIC_BASE_URL=s.server.url,
            ANTHROPIC_API_KEY="e2e-dummy",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
        )
        argv = [
            str(binary("claude-code")),
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--debug-file",
            str(debug),
        ]
        if resume:
            argv.append("--continue")
        if "--permission-mode" not in extra and "--allowedTools" not in extra:
            # Claude Code's own permission prompt (a refusal in -p) must not be what stops a
            # call: the hooks decide (the broken-answer test proves the call runs without them)
            argv += ["--allowedTools", "Bash,Edit,Write,Read"]
        return argv + extra, env, debug

    @staticmethod
    def durations(s: Session, run: Run) -> list[tuple[str, float]]:
        return [(h["event"], h["ms"]) for h in run.hook_runs() if is_style_command(h["command"])]


class Codex:
    config = ".codex/hooks.json"

    @staticmethod
    def prepare_home(s: Session) -> None:
        (s.home / ".codex").mkdir(parents=True, exist_ok=True)

    @staticmethod
    def command(
        s: Session, prompt: str, resume: bool, extra: list[str]
    ) -> tuple[list[str], dict[str, str], Path | None]:
        env = s.env()
        env.update(CODEX_HOME=str(s.home / ".codex"), E2E_MOCK_KEY="e2e-dummy")
        provider = [
            "-c",
            "model_provider=mock",
            "-c",
            "model_providers.mock.name=mock",
            "-c",
            f'model_providers.mock.base_url="{s.server.url}/v1"',
            "-c",
            "model_providers.mock.env_key=E2E_MOCK_KEY",
            "-c",
            "model_providers.mock.wire_api=responses",
            # the mock's model has no metadata in Codex: ask for the file-edit tool by name
            "-c",
            "features.apply_patch_freeform=true",
        ]
        argv = [str(binary("codex")), "exec"]
        if resume:
            argv += ["resume", "--last"]
        argv += [
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            *(["--dangerously-bypass-hook-trust"] if s.hook_trust else []),
            "-m",
            mockapi.OPENAI_MODEL,
            *provider,
            *extra,
        ]
        if not resume:
            argv.append("--trust")
        return [*argv, prompt], env, None

    @staticmethod
    def durations(s: Session, run: Run) -> list[tuple[str, float]]:
        return []


class GeminiCLI:
    config = ".gemini/settings.json"

    @staticmethod
    def prepare_home(s: Session) -> None:
        gem = s.home / ".gemini"
        gem.mkdir(parents=True, exist_ok=True)
        # without the auth type the CLI stops ("Invalid auth method selected"); without folder
        # trust it drops the project's settings, hooks included
        (gem / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
        )
        (gem / "trustedFolders.json").write_text(json.dumps({str(s.project): "TRUST_FOLDER"}))

    @staticmethod
    def command(
        s: Session, prompt: str, resume: bool, extra: list[str]
    ) -> tuple[list[str], dict[str, str], Path | None]:
        env = s.env()
        env.update(
            GEMINI_API_KEY="e2e-dummy",
            GOOGLE_GEMINI_BASE_URL=s.server.url,
            GEMINI_CLI_NO_RELAUNCH="1",
            # telemetry to a local file only: its `hook_call` records carry each hook's duration
            GEMINI_TELEMETRY_ENABLED="true",
            GEMINI_TELEMETRY_TARGET="local",
            GEMINI_TELEMETRY_OUTFILE=str(s.root / f"gemini-telemetry-{len(s.runs)}.log"),
        )
        argv = [
            str(binary("gemini-cli")),
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--yolo",
            "-m",
            "gemini-2.5-flash",
        ]
        if resume:
            argv += ["--resume", "latest"]
        return argv + extra, env, None

    @staticmethod
    def durations(s: Session, run: Run) -> list[tuple[str, float]]:
        """The `hook_call` records of the run's telemetry file (concatenated JSON objects)."""
        log = s.root / f"gemini-telemetry-{len(s.runs) - 1}.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        found: list[tuple[str, float]] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if {"hook_event_name", "duration_ms", "hook_name"} <= node.keys():
                    if node["hook_name"] == "style":  # the handler name STYLE installs
                        found.append((str(node["hook_event_name"]), float(node["duration_ms"])))
                    return
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        decoder, at = json.JSONDecoder(), 0
        while (m := re.compile(r"\S").search(text, at)) is not None:
            try:
                obj, at = decoder.raw_decode(text, m.start())
            except ValueError:
                break
            walk(obj)
        return found


class CopilotCLI:
    """`copilot -p` against the mock's Anthropic wire (`COPILOT_PROVIDER_TYPE=anthropic`), no
    GitHub login (`COPILOT_OFFLINE`); its package unpacks itself once into the cache
    (`COPILOT_PKG_CACHE_HOME`), not into each throwaway HOME."""

    config = ".github/hooks/style.json"
    # the model Copilot CLI is told to use: its transcript names this one, whatever the API says
    MODEL = "claude-sonnet-4.6"

    @staticmethod
    def prepare_home(s: Session) -> None:
        (s.home / ".copilot").mkdir(parents=True, exist_ok=True)

    @staticmethod
    def command(
        s: Session, prompt: str, resume: bool, extra: list[str]
    ) -> tuple[list[str], dict[str, str], Path | None]:
        spec = install_clients.pinned()["copilot-cli"]
        env = {k: v for k, v in s.env().items() if not k.startswith(("COPILOT", "GH_", "GITHUB"))}
        env.update(
            COPILOT_PROVIDER_BASE_URL=s.server.url,
            COPILOT_PROVIDER_TYPE="anthropic",
            COPILOT_PROVIDER_API_KEY="e2e-dummy",
            COPILOT_MODEL=CopilotCLI.MODEL,
            COPILOT_OFFLINE="true",
            COPILOT_AUTO_UPDATE="false",
            COPILOT_PKG_CACHE_HOME=str(install_clients.prefix_of("copilot-cli", spec) / "unpacked"),
        )
        argv = [
            str(binary("copilot-cli")),
            "-p",
            prompt,
            "--allow-all-tools",
            "--no-ask-user",
            "--disable-builtin-mcps",
            "--log-dir",
            str(s.root / f"copilot-logs-{len(s.runs)}"),
        ]
        # Copilot CLI runs a session's first two hooks (SessionStart, UserPromptSubmit) at once:
        # with no engine yet, one waits for the other's hold of the database, and on this loaded
        # 2-core machine it can pass its deadline and fail open (docs/harnesses/copilot-cli.md).
        # The tests are about the answers: the engine is up before the client starts.
        if (s.project / ".style" / "style.duckdb").is_file():
            s.style("engine", "start", check=False)
        # A new session trusts the folder for itself (`--trust-folder`); a resumed one cannot
        # take the flag, and needs the trust a person saves (`trustedFolders`).
        CopilotCLI.save_trust(s, s.hook_trust and resume)
        if s.hook_trust and not resume:
            argv.append("--trust-folder")
        if resume:
            argv.append("--continue")
        return argv + extra, env, None

    @staticmethod
    def save_trust(s: Session, trusted: bool) -> None:
        """The project in `trustedFolders` of `~/.copilot/config.json` (a JSON file the client
        writes with comment lines above it), or not."""
        config = s.home / ".copilot" / "config.json"
        text = config.read_text() if config.exists() else "{}"
        body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
        doc = json.loads(body or "{}")
        doc["trustedFolders"] = [str(s.project)] if trusted else []
        config.write_text(json.dumps(doc, indent=2) + "\n")

    @staticmethod
    def durations(s: Session, run: Run) -> list[tuple[str, float]]:
        """Each hook run the session logs keep (`hook.start` to `hook.end`, by invocation)."""
        found: list[tuple[str, float]] = []
        for log in (s.home / ".copilot" / "session-state").glob("*/events.jsonl"):
            if log.stat().st_mtime < time.time() - run.seconds - 5:
                continue  # an earlier run's session
            started: dict[str, tuple[str, float]] = {}
            for line in log.read_text(errors="replace").splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                data = rec.get("data") or {}
                key = str(data.get("hookInvocationId") or "")
                stamp = _iso_seconds(rec.get("timestamp"))
                if rec.get("type") == "hook.start" and key and stamp is not None:
                    started[key] = (str(data.get("hookType")), stamp)
                elif rec.get("type") == "hook.end" and key in started and stamp is not None:
                    kind, began = started.pop(key)
                    found.append((kind, (stamp - began) * 1000.0))
        return found


def _iso_seconds(value: Any) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class OpenCode:
    """OpenCode (`opencode run`) with a provider of its own config whose `baseURL` is the mock
    (OpenCode's `@ai-sdk/anthropic`): nothing of the config on disk, no network."""

    config = ".opencode/plugins/style.js"
    # the provider and model the run uses (`provider/model`)
    PROVIDER = "mock"
    MODEL = f"{PROVIDER}/{mockapi.ANTHROPIC_MODEL}"

    @staticmethod
    def prepare_home(s: Session) -> None:
        return None

    @staticmethod
    def command(
        s: Session, prompt: str, resume: bool, extra: list[str]
    ) -> tuple[list[str], dict[str, str], Path | None]:
        env = {k: v for k, v in s.env().items() if not k.startswith("OPENCODE")}
        provider = {
            "npm": "@ai-sdk/anthropic",
            "name": "mock",
            "options": {"baseURL": f"{s.server.url}/v1", "apiKey": "e2e-dummy"},
            "models": {mockapi.ANTHROPIC_MODEL: {"name": "mock", "tool_call": True}},
        }
        env.update(
            # the config as text: no file in the project or the home folder
            OPENCODE_CONFIG_CONTENT=json.dumps({"provider": {OpenCode.PROVIDER: provider}}),
            # it finds its project from PWD, not from the process's working folder
            PWD=str(s.project),
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_AUTOUPDATE="1",
            # it installs its plugin package into `.opencode/` in the background: from npm's
            # cache only, so the run never reaches the network (the install fails, it goes on)
            npm_config_offline="true",
        )
        argv = [str(binary("opencode")), "run", "--format", "json", "--auto", "-m", OpenCode.MODEL]
        if resume:
            argv.append("--continue")
        return [*argv, *extra, prompt], env, None

    @staticmethod
    def durations(s: Session, run: Run) -> list[tuple[str, float]]:
        """What STYLE's plugin logged of each hook run (its `answered in` lines)."""
        found: list[tuple[str, float]] = []
        for log in sorted((s.home / ".local/share/opencode/log").glob("*.log")):
            text = log.read_text(errors="replace")
            for m in _OPENCODE_HOOK_LINE.finditer(text):
                found.append((m["event"], float(m["ms"])))
        seen = _OPENCODE_SEEN.get(s.root, 0)
        _OPENCODE_SEEN[s.root] = len(found)
        return found[seen:]


_OPENCODE_HOOK_LINE = re.compile(r"style-hook (?P<event>\S+) answered in (?P<ms>\d+) ms")
# per session, the plugin's log lines earlier runs already counted (the log grows run by run)
_OPENCODE_SEEN: dict[Path, int] = {}


CLIENT: dict[str, Any] = {
    "claude-code": ClaudeCode,
    "codex": Codex,
    "gemini-cli": GeminiCLI,
    "copilot-cli": CopilotCLI,
    "opencode": OpenCode,
}

# The clients driven by a test module of their own (not in HARNESSES, which the shared scenarios
# run over), each in a module of its own.
CLIENT[qwen_client.NAME], API_OF[qwen_client.NAME] = qwen_client.QwenCode, qwen_client.QwenCode.api


def which_node() -> str | None:
    return shutil.which("node")
