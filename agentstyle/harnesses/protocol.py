"""The harness adapter interface: what every adapter offers, the optional parts with defaults.

An adapter is one subclass of `HarnessAdapter` per harness (`claude_code.ClaudeCode`, …);
`agentstyle.harnesses.adapter_for(name)` returns its one instance. A subclass sets the class
attributes and writes the abstract methods; every other method is a default a harness
overrides only where it differs (Cursor's flat config, Gemini CLI's enable flag, …). Standard
library only at import: the hook path loads an adapter for every event.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.harnesses import install
from agentstyle.harnesses.answer import json_problem, merge_notice, notice_on_stderr
from agentstyle.harnesses.facts import HarnessSpec
from agentstyle.harnesses.payload import TOOL_POINTS, ClaudeShape, claude_shaped_event

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonedit import IsOurs
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.evaluator.event import Event
    from agentstyle.evaluator.fixes import Fixing
    from agentstyle.harnesses.extension import PluginInstall
    from agentstyle.harnesses.install import Groups, Key
    from agentstyle.harnesses.transcripts import TranscriptFormat


class HarnessAdapter(ABC):
    """One harness: read its payloads, write its answers, install its config, check both."""

    name: ClassVar[str]
    spec: ClassVar[HarnessSpec]

    # -- reading -------------------------------------------------------------------------------

    def normalize(self, payload: dict[str, Any], native_event: str) -> Event:
        """A payload as a normalized event; `native_event` is from the hook's command line: what
        every event carries (`read_event`), then at a tool point the call (`read_tool_call`)."""
        ev = self.read_event(payload, native_event)
        if ev.point in TOOL_POINTS:
            self.read_tool_call(ev, payload)
        return ev

    @abstractmethod
    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        """The event's identity (harness, session, folder, turn, model) and what its point
        carries besides a tool call: the session's source, the prompt, the stop's last
        message."""

    @abstractmethod
    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        """A tool point's call added to `ev`: the normalized tool and its input and output."""

    def can_refuse(self, native_event: str) -> bool:
        """Whether a refusal is possible at this event (`fail: closed`, `--fail-closed`)."""
        return native_event in self.spec.gate_events

    def looks_like(self, payload: dict[str, Any]) -> bool:
        """Whether a payload is this harness's own, whichever harness's config ran the hook
        (Cursor runs the hooks of a Claude Code config too)."""
        return False

    def native_event_of(self, payload: dict[str, Any], given: str) -> str:
        """This harness's event for a payload of its own that arrived through another
        harness's config, where the command line names the other harness's event."""
        return given

    def duplicate(self, payload: dict[str, Any], native_event: str) -> bool:
        """Whether another gate STYLE installed for this harness evaluates this call (then
        evaluating it here too would apply the same rules twice), or the client fired the event
        for nothing of its own kind (Qwen Code's UserPromptSubmit for its continuations): either
        way it is answered "no opinion" unevaluated."""
        return False

    def with_command(
        self, payload: dict[str, Any], native_event: str, command: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The payload of the same shell call with another command, and its tool input (what
        an answer that rewrites the call carries)."""
        tool_input = payload.get("tool_input")
        changed = {**(tool_input if isinstance(tool_input, dict) else {}), "command": command}
        return {**payload, "tool_input": changed}, changed

    def fixing(self, payload: dict[str, Any], native_event: str, event: Event) -> Fixing | None:
        """What a rule's fix needs to rewrite this call (a shell call before it runs), or None:
        the call rebuilt with another command, as normalized as `event`, and whether this
        harness runs a rewritten call."""
        if event.tool != "shell" or event.point != "tool.pre":
            return None
        from agentstyle.evaluator.fixes import Fixing

        harness = event.harness

        def rebuild(command: str) -> tuple[Event, dict[str, Any]]:
            changed, tool_input = self.with_command(payload, native_event, command)
            rebuilt = self.normalize(changed, native_event)
            rebuilt.harness = harness  # the config that ran the hook, as for `event`
            return rebuilt, tool_input

        return Fixing(rebuild, native_event in self.spec.rewrite_events)

    def installed_here(self, root: Path) -> bool:
        """Whether STYLE's handlers for this harness are in the project's or the user's
        config (then its payload arriving through another harness's config is a copy)."""
        from agentstyle.folders import read_regular

        for scope in self.scopes:
            raw = read_regular(str(self.config_path(root, scope)), 1 << 20)
            if raw is None:  # missing, unreadable, or no regular file (a FIFO never blocks)
                continue
            text = raw.decode("utf-8", "replace")
            if install.is_style_command(text) and f"--harness {self.name}" in text:
                return True
        return False

    # -- answering -----------------------------------------------------------------------------

    @property
    def fail_closed_exit(self) -> int:
        """The exit code of a `--fail-closed` refusal beside the deny answer, from the one fact
        of the harness's refusal exit (`HookFacts.refusal_exit`): exit 2 makes a client drop
        the JSON, so the answer that carries the refusal exits 0; a client that refuses
        another failing exit (Claude Code's 1 under `onFailure: block`) gets that exit with
        the answer too, and refuses even if the JSON could not be read
        (docs/design/runtime.md#fail-modes)."""
        code = self.spec.hook.refusal_exit
        return 0 if code == 2 else code

    # Where a notice for the person goes (`with_notice`): this field of the answer, on these
    # events; elsewhere stderr.
    notice_field: ClassVar[str] = "systemMessage"
    notice_events: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout and exit code the harness reads for a decision."""

    def deny_answer(self, native_event: str, reason: str) -> Wire:
        """A refusal for a handler error under `fail: closed`
        (docs/design/runtime.md#fail-modes)."""
        return self.answer(Decision(verdict="block", reasons=[reason]), native_event)

    def error_refuses(self, native_event: str) -> bool:
        """Whether the client refuses the call when the hook exits with an error at this event
        (Copilot CLI's PreToolUse): then no answer may exit so by accident."""
        return False

    def no_opinion(self, native_event: str) -> Wire:
        """The answer that lets the event go on as if STYLE were not installed."""
        return Wire("")

    def with_notice(self, wire: Wire, native_event: str, text: str) -> Wire:
        """`wire` with a notice for the person (a fail-open, a first-use build, …) merged into
        the answer's `notice_field`; on an event that shows none, on stderr."""
        if native_event in self.notice_events:
            merged = merge_notice(wire.stdout, self.notice_field, text)
            if merged is not None:
                return Wire(merged, wire.exit_code, wire.stderr)
        return notice_on_stderr(wire, text)

    # -- installing ----------------------------------------------------------------------------

    scopes: ClassVar[tuple[str, ...]] = ("project", "user")
    flat: ClassVar[bool] = False  # event → handler list (else event → matcher group → handlers)
    # the hook config file, relative to the project (to the home folder for `user`)
    config_file: ClassVar[str]
    # the client's system-wide config no user setting switches off, for `--scope managed`
    # (docs/harnesses/index.md#managed-scope); None: the harness has none STYLE writes
    managed_file: ClassVar[str | None] = None
    # the client's own variable that moves that file (where it has one): STYLE writes there too
    managed_env: ClassVar[str | None] = None
    # the user-scope instruction file, relative to the home folder (None: none is placed)
    user_instruction_file: ClassVar[str | None] = None
    # the client that reports its version (`requires.harnesses`, `--fail-closed` checks)
    version_command: ClassVar[tuple[str, ...]]
    # what the person must do before the harness runs new handlers (None: nothing)
    trust_note: ClassVar[str | None] = None
    # the config key that turns the hooks system on (None: it is always on)
    enable_flag: ClassVar[tuple[str, ...] | None] = None

    def config_path(self, root: Path, scope: str) -> Path:
        if scope == "user":
            return install.home_path(self.config_file)
        if scope == "managed" and self.managed_file is not None:
            moved = os.environ.get(self.managed_env) if self.managed_env else None
            return Path(moved) if moved else install.system_path(self.managed_file)
        return root / self.config_file

    @abstractmethod
    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler entry running `command`; `gate`: the harness should block on failure."""

    def background_handler(self, command: str, seconds: float) -> dict[str, Any]:
        """A handler the client runs in the background, whose exit 2 wakes the model with its
        stderr (`HarnessSpec.background_hooks`: docs/observers.md#delivery); `seconds` the
        longest it may take."""
        raise NotImplementedError(f"{self.spec.title} runs no hook in the background")

    def prompt_handler(self, prompt: str, seconds: float) -> dict[str, Any]:
        """A handler the client's own model answers (`HarnessSpec.prompt_hook_events`)."""
        raise NotImplementedError(f"{self.spec.title} has no prompt hooks")

    def group(self, one: dict[str, Any], matcher: str | None) -> dict[str, Any]:
        """A handler in its matcher group."""
        out: dict[str, Any] = {"matcher": matcher} if matcher else {}
        out["hooks"] = [one]
        return out

    @abstractmethod
    def config_dialect(self) -> Dialect:
        """How the harness reads its config file (comments, trailing commas, a byte order mark)."""

    def config_keys(self, text: str) -> list[Key]:
        """The keys the config needs beside STYLE's handlers (`text`: with them in)."""
        return []

    def write_config(
        self, before: str | None, groups: Groups, is_ours: IsOurs, name: str, markers: list[str]
    ) -> tuple[str, list[str]]:
        """The config with STYLE's handlers (and keys) replaced, and the markers of the keys set."""
        return install.write_config(
            before,
            groups,
            is_ours,
            name,
            markers,
            flat=self.flat,
            dialect=self.config_dialect(),
            keys=self.config_keys,
        )

    def strip_config(self, text: str, is_ours: IsOurs, markers: list[str], name: str) -> str:
        return install.strip_config(
            text, is_ours, markers, name, flat=self.flat, dialect=self.config_dialect()
        )

    def installed_handlers(self, text: str, is_ours: IsOurs, name: str) -> Groups:
        """STYLE's handlers per native event, as the client reads the config text (JsonEditError
        where it cannot be read): `style doctor`, `style audit coverage`."""
        from agentstyle.configfiles.hookconfig import installed

        return installed(
            text, is_ours=is_ours, flat=self.flat, name=name, dialect=self.config_dialect()
        )

    def config_problems(self, text: str) -> list[str]:
        """What else in the config keeps STYLE's handlers from running as installed (doctor):
        the hooks system's switch off (`enable_flag`)."""
        if self.enable_flag is not None and not self.enabled(text):
            return [f"the hooks system is off ({'.'.join(self.enable_flag)} is not true)"]
        return []

    def enabled(self, text: str) -> bool:
        """Whether the hooks system is on in this config text (`enable_flag`)."""
        if self.enable_flag is None:
            return True
        from agentstyle.configfiles.jsonspans import JsonEditError, parse_with_spans

        try:
            doc = parse_with_spans(text, dialect=self.config_dialect()).value
        except JsonEditError:
            return False
        node: Any = doc
        for key in self.enable_flag:
            node = node.get(key) if isinstance(node, dict) else None
        return node is True

    def static_path(self, root: Path, scope: str) -> Path | None:
        """The instruction file static rules are placed in (None: none at this scope)."""
        if scope == "managed":
            return None  # no client reads a system-wide instruction file STYLE could write
        if scope == "user":
            user = self.user_instruction_file
            return install.home_path(user) if user else None
        return root / self.spec.instruction_file if self.spec.instruction_file else None

    def place_static(self, before: str | None, blocks: dict[str, str], name: str) -> str:
        return install.place_static(before, blocks, name)

    def strip_static(self, before: str, name: str) -> str:
        return install.strip_static(before, name)

    def install_notes(self, fail_closed: bool) -> list[str]:
        """What the person should know after an install (what `--fail-closed` cannot do)."""
        if self.spec.fail_closed_switch:
            return []
        return install.no_fail_closed_notes(self.spec.title, fail_closed)

    def fail_closed_check(self, version: tuple[int, ...] | None) -> str | None:
        """What a `--fail-closed` install notes of the client's version (`version_command`'s
        answer; None: no client answered), where the switch needs a newer client than the
        hooks (`spec.fail_closed_since`): a note, None, or StyleError for a client too old."""
        return None

    # -- its own extension (docs/harnesses/index.md#plugins-and-extensions) -------------------

    # what the client calls STYLE installed as its own extension (`plugin`, `extension`);
    # None: the client takes none from STYLE's repository
    extension_kind: ClassVar[str | None] = None
    # the extension's hooks file, relative to the repository root
    extension_hooks_file: ClassVar[str | None] = None

    def extension_files(self) -> dict[str, dict[str, Any]]:
        """The repository's files the extension needs beside its hooks file (manifests, a
        marketplace): path relative to the repository root → JSON document."""
        return {}

    def extension_command(self, command: str) -> str:
        """A hook command as the extension's hooks file runs it."""
        return command

    def extension(self, root: Path) -> PluginInstall | None:
        """STYLE's extension where the client runs it for `root`, read from the files the
        client itself writes (None: none is enabled, or the client has none)."""
        return None

    def settings_files(self, root: Path) -> list[Path]:
        """The hook configs that apply to `root` where a settings install of STYLE would be,
        the most specific first (beside an extension, STYLE would run twice)."""
        project, user = root / self.config_file, self.config_path(root, "user")
        return [project] if project.resolve() == user.resolve() else [project, user]

    # -- its transcripts (`style audit coverage`, `style replay`: docs/audit.md) ---------------

    def transcripts(self) -> TranscriptFormat | None:
        """How the client keeps its transcripts (harnesses/transcripts/; None: it keeps none
        STYLE reads)."""
        return None

    # -- checking (`style doctor`) -------------------------------------------------------------

    @abstractmethod
    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        """A harmless event of this native kind, as the harness would send it."""

    # what the harness makes of a hook's exit code other than 0 and 2 (`wire_problem`)
    bad_exit: ClassVar[str]

    def wire_problem(self, native_event: str, stdout: str, code: int) -> str | None:
        """Why an answer is not one the harness reads as intended (None: it is)."""
        obj, problem = json_problem(stdout)
        if problem:
            return problem
        if code not in (0, 2):
            return f"exit code {code}{self.bad_exit}"
        return self.check_answer(native_event, obj, code)

    @abstractmethod
    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        """`wire_problem` for an answer that is at most one JSON object (`obj`, None: empty)
        with exit code 0 or 2."""


class ClaudeShapedAdapter(HarnessAdapter):
    """An adapter whose payloads have Claude Code's shape (Claude Code, Codex, Copilot CLI,
    Qwen Code): `payload_shape` names what differs between them."""

    payload_shape: ClassVar[ClaudeShape]

    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        return claude_shaped_event(self.spec, native_event, payload, self.payload_shape)
