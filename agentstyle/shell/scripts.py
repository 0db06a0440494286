"""The walker's interpreters and scripts: the code a command line hands to another program.

Code given to `python -c`, a pipe into `sh`, a local script read and walked in turn, and the
shell commands inside interpreter code."""

from __future__ import annotations

import os
import re

from agentstyle.shell.builtins import PIPE_TO_SHELL, SOURCE_SUBSTITUTION, STDIN_PATHS, Builtins
from agentstyle.shell.programs import Lang, lang, program
from agentstyle.shell.runs import FD_PATHS
from agentstyle.shell.walkstate import NO_STDIN, State, Stdin
from agentstyle.shell.words import F_PROCSUB
from agentstyle.shell.wrappers import command_name, shell_reads_script

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_SCRIPTS = 32  # distinct local scripts read for one command

MAX_CODE_SCANNED = 4 << 20  # characters of interpreter code tokenized for shell commands

PIPE_TO_INTERPRETER = "pipe-to-interpreter"

INLINE_CODE_SUBSTITUTION = "inline-code-substitution"

INLINE_CODE_VARIABLE = "inline-code-variable"

CODE_SHELL_VARIABLE = "code-shell-variable"

_SCRIPT_LANGS = {
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "zsh",
    ".ksh": "ksh",
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".ts": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".php": "php",
    ".lua": "lua",
    ".awk": "awk",
    ".r": "Rscript",
    ".R": "Rscript",
    ".sql": "psql",
}

_SHEBANG = re.compile(r"#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?")


class Scripts(Builtins):
    """The walker with interpreters and local scripts."""

    # -- interpreters and scripts --------------------------------------------------------------

    def _interpreter(self, name: str, interp: Lang, argv: list[str], stdin: Stdin) -> None:
        if interp.family == "shell":
            script, reads_stdin, noexec = shell_reads_script(argv)
            if noexec:
                return  # `bash -n x.sh` only checks the syntax
            if script is not None:
                self._shell_script(script, argv, stdin)
            elif reads_stdin:
                self._shell_stdin(stdin, positional=None)
            return
        prog = program(interp, argv)
        for text in prog.inline:
            self.add_code(text)
            self.add_unknown_parts(text, INLINE_CODE_SUBSTITUTION, INLINE_CODE_VARIABLE)
            self._scan_code(interp.family, text)
        if prog.script is not None:
            flags = self.flags.get(prog.script, 0)
            if flags & F_PROCSUB:
                self.add_dynamic(SOURCE_SUBSTITUTION)
                sub = self.procsubs.get(prog.script)
                if sub is not None:
                    self._code_origins(sub.origins)
                    for text in sub.texts:
                        self.add_code(text)
                        self._scan_code(interp.family, text)
            elif prog.script in STDIN_PATHS:
                self._interpreter_stdin(interp, stdin)
            else:
                self._record_run([prog.script, *prog.args], " ".join([prog.script, *prog.args]))
                if not self.remote:
                    self._script(prog.script, name, prog.args, NO_STDIN)
        if prog.reads_stdin:
            self._interpreter_stdin(interp, stdin)

    def _interpreter_stdin(self, interp: Lang, stdin: Stdin) -> None:
        if stdin.piped:
            self.add_dynamic(PIPE_TO_INTERPRETER)
            self._code_origins(stdin.origins)
        for text in stdin.texts:
            self.add_code(text)
            self._scan_code(interp.family, text)
        for path in stdin.files:
            if not self.remote:
                self._script(path, None, [], NO_STDIN, family=interp.family)

    def _fd_of(self, path: str) -> tuple[str, str | None] | None:
        """What descriptor N was opened on, for `/dev/fd/N` (or `/proc/self/fd/N`): ("text",
        TEXT) after `exec N<<<TEXT`, ("file", FILE) after `exec N<FILE`."""
        for prefix in FD_PATHS:
            if path.startswith(prefix):
                return self.fds.get(path[len(prefix) :])
        return None

    def _fd_text(self, path: str) -> str | None:
        found = self._fd_of(path)
        return found[1] if found is not None and found[0] == "text" else None

    def _shell_script(self, script: str, argv: list[str], stdin: Stdin) -> None:
        text = self._fd_text(script)
        if text is not None:
            self.run_text(text)  # `bash /dev/fd/3` after `exec 3<<<'…'`
            return
        opened = self._fd_of(script)
        if opened is not None and opened[1] in self.procsubs:
            script = str(opened[1])  # `bash /dev/fd/$fd` after `exec {fd}< <(curl …)`
        flags = self.flags.get(script, 0) | (F_PROCSUB if script in self.procsubs else 0)
        if flags & F_PROCSUB:
            self.add_dynamic(SOURCE_SUBSTITUTION)  # `bash <(curl …)`
            sub = self.procsubs.get(script)
            if sub is not None:
                self._code_origins(sub.origins)
                self._shell_stdin(sub, positional=None, dynamic=False)
            return
        if script in STDIN_PATHS:
            self._shell_stdin(stdin, positional=None)
            return
        k = argv.index(script) if script in argv else len(argv)
        # `bash deploy.sh prod` runs deploy.sh with `prod`: a command of the script's own for
        # the command model (docs/design/commands.md#runs)
        self._record_run([script, *argv[k + 1 :]], " ".join([script, *argv[k + 1 :]]))
        if not self.remote:
            self._script(script, "bash", argv[k + 1 :], NO_STDIN)

    def _shell_stdin(
        self, stdin: Stdin, positional: list[str] | None, dynamic: bool = True
    ) -> None:
        """A shell reading its commands from stdin: what it reads becomes commands."""
        if stdin.piped and dynamic:
            self.add_dynamic(PIPE_TO_SHELL)
            self._code_origins(stdin.origins)
        for text in stdin.texts:
            self.add_code(text)
            self.run_text(text, positional)
        for path in stdin.files:
            if not self.remote:
                self._script(path, "bash", [], NO_STDIN)

    def _scan_code(self, family: str, text: str) -> None:
        """Shell commands inside interpreter code (`os.system("…")`) become commands too."""
        if self.code_scanned >= MAX_CODE_SCANNED:
            self.issue("code-scan-limit")
            return
        # Imported on the first interpreter code: most commands run none, and its patterns
        # are the largest to compile.
        from agentstyle.shell.embedded import shell_calls

        found = shell_calls(family, text)
        self.code_scanned += found.scanned
        if found.dynamic:
            self.add_dynamic(CODE_SHELL_VARIABLE)
        for kind, value in found.calls:
            if self.full:
                return
            if kind == "sh":
                assert isinstance(value, str)
                self.run_text(value)
            else:
                assert isinstance(value, list)
                self.run(value, NO_STDIN, 0)

    def _script(
        self,
        word: str,
        runner: str | None,
        args: Sequence[str],
        stdin: Stdin,
        source: bool = False,
        family: str | None = None,
    ) -> None:
        """Read the local script `word` into code; walk it when it is shell code."""
        if self.remote:
            return
        key = self._file_key(word) if self.written else None
        if key is not None and key not in self.written and self.written_overflow:
            self.issue("script-limit")  # it may be one of the files not remembered
        if key is not None and key in self.written and key not in self.scripts:
            # Written earlier in this command line: its text is known without reading it.
            self.scripts.add(key)
            self.running.append((word, key, key))
            try:
                self._script_text(self.written[key], word, runner, args, source, family)
            finally:
                self.running.pop()
            return
        if self.root is None:
            return
        if len(self.scripts) >= MAX_SCRIPTS:
            self.issue("script-limit")
            return
        if any(ch in word for ch in "$`*?[") or not word:
            return  # the path is only known at run time
        path = os.path.expanduser(word)
        if not os.path.isabs(path):
            base = self.st.dirs[0] if len(self.st.dirs) == 1 else None
            if base is None or base.startswith(("~", "$")):
                return
            path = os.path.join(base or self.root, path)
        from agentstyle.shell.files import LARGE, OK, read_project_file

        status, real, text = read_project_file(path, self.root)
        if status == LARGE:
            self.issue("script-too-large")
            return
        if status != OK or real in self.scripts:
            return
        self.scripts.add(real)
        self.running.append((word, self._file_key(word), real))
        try:
            self._script_text(text, word, runner, args, source, family)
        finally:
            self.running.pop()

    def _runs_itself(self, word: str) -> bool:
        """A script being walked starts itself again: by the word it was called by (`$0`), or
        by its path (`./spawn.sh` in spawn.sh)."""
        key = self._file_key(word)
        for called, called_key, path in self.running:
            if word == called or (key is not None and key == called_key):
                return True
            root = self.root
            if key is not None and root is not None and _real(root, key) == path:
                return True
        return False

    def _script_text(
        self,
        text: str,
        word: str,
        runner: str | None,
        args: Sequence[str],
        source: bool,
        family: str | None,
    ) -> None:
        self.add_code(text)
        kind = family or _script_family(runner, word, text)
        if kind == "shell":
            if source:  # `source x.sh` runs in this shell: its functions and variables stay
                self.run_text(text, None)
                return
            # A script is a shell of its own: its functions are only its own to call.
            saved = (self.st, self.defined, self.called, self.saw_dynamic_command)
            self.st = _fresh(saved[0])
            self.defined, self.called, self.saw_dynamic_command = {}, set(), False
            try:
                self.run_text(text, [word, *args])
                self.finish()
            finally:
                self.st, self.defined, self.called, self.saw_dynamic_command = saved
        elif kind is not None:
            self._scan_code(kind, text)


def _real(root: str, path: str) -> str:
    return os.path.realpath(os.path.join(root, path))


def _script_family(runner: str | None, word: str, text: str) -> str | None:
    """The language of a local script: its runner, else its `#!` line, else its extension."""
    name = runner
    if name is None:
        m = _SHEBANG.match(text)
        if m:
            interp = command_name(m.group(1))
            name = command_name(m.group(2)) if interp == "env" and m.group(2) else interp
    if name is None:
        ext = os.path.splitext(word)[1]
        name = _SCRIPT_LANGS.get(ext, "bash" if not ext else None)
    if name is None:
        return None
    found = lang(name)
    return found.family if found is not None else None


def _fresh(state: State) -> State:
    """The state a script starts with: the directory, nothing else of the calling shell."""
    new = State()
    new.dirs = state.dirs
    new.exported = dict(state.exported)  # a child process inherits what was exported
    for name, text in new.exported.items():
        new.vars[name] = (text.partition("=")[2],)
    return new
