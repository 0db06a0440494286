"""Walk a shell syntax tree the way bash would run it; record what runs.

The walker keeps the state bash keeps while it runs a command line: variables (each with the
values it may hold), functions, aliases, the positional parameters, the working directory,
and what each command reads on stdin. With it, every simple command is expanded and recorded
(docs/design/shell.md#shell-commands documents the elements), wrappers are peeled (`wrappers`),
strings that are code are parsed in turn (`bash -c`, `eval`, `trap`, a pipe into `sh`, `os.system`
inside `python -c`), and the code interpreters run is collected.

The walker is one class in parts (`walkstate` → `builtins` → `scripts` → `dispatch` → this
module): here the text, its statements and its simple commands.
"""

from __future__ import annotations

import math
import re

from agentstyle.shell.dispatch import Dispatch
from agentstyle.shell.lex import MAX_SYNTAX_DEPTH
from agentstyle.shell.syntax import expansion_parts, parse
from agentstyle.shell.tree import (
    AndOr,
    ArithCmd,
    Assign,
    Case,
    Compound,
    Cond,
    Coproc,
    For,
    FuncDef,
    Group,
    If,
    Lit,
    Loop,
    Node,
    Opaque,
    Pipeline,
    Redir,
    Seq,
    Simple,
    Sub,
    Subshell,
    Word,
)
from agentstyle.shell.walkstate import MAX_ELEMENTS, MAX_VALUES, NO_STDIN, State, Stdin
from agentstyle.shell.words import (
    F_SUB,
    F_VAR,
    MAX_ALTERNATIVES,
    UNKNOWN,
    Symbolic,
    Value,
    arith_values,
    expand,
    expand_text,
)
from agentstyle.shell.wrappers import command_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_LEXICAL = 10_000  # more elements the lexical split of an unwalked rest may add

MAX_NESTING = 32  # strings parsed inside strings (`bash -c "eval '…'"`)

# `[[ A -eq B ]]` and its kin read A and B as arithmetic expressions
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})

MAX_STDIN_TEXTS = 8  # alternative texts of one heredoc or herestring (from multi-valued variables)


def _runs_program(argv: Sequence[str]) -> bool:
    """`exec cmd …` replaces the shell with cmd; `exec 3>f` and `exec -c 3>f` open descriptors."""
    return any(not w.startswith("-") for w in argv[1:])


class Walker(Dispatch):
    """Walks a command string: its statements, simple commands and the text they hold."""

    # -- text ----------------------------------------------------------------------------------

    def run_text(self, text: str, positional: list[str] | None = None) -> None:
        """Parse and walk `text`, a string the shell will run, one level deeper."""
        if self.full:
            self.lexical(text)
            return
        if (
            self.queue is not None
            or self.level >= MAX_NESTING
            or self.depth >= MAX_SYNTAX_DEPTH - 2
        ):
            self.issue("nesting-limit")
            self._fallback(text)
            return
        parsed = parse(text, self.deadline, self.depth + self.level)
        for what in parsed.issues:
            self.issue(what.split("@", 1)[0] if self.level else what)
        saved_positional = self.st.positional
        if positional is not None:
            self.st.positional = positional
        self.level += 1
        try:
            self.walk(parsed.tree, NO_STDIN)
        finally:
            self.level -= 1
            self.st.positional = saved_positional
        if self.full:
            self.lexical(text)  # stopped inside this text: what was not walked, split

    def prompt(self, text: str) -> str | None:
        """`text` expanded as a prompt string (`${x@P}`), one level deeper: what its `$(…)`
        run is recorded like any other substitution."""
        if self.full or self.level >= MAX_NESTING or self.depth >= MAX_SYNTAX_DEPTH - 2:
            self.issue("nesting-limit")
            return None
        parts = expansion_parts(text, self.deadline, self.depth + self.level)
        self.level += 1
        try:
            return expand_text(parts, self)[0]
        finally:
            self.level -= 1

    def lexical(self, text: str) -> None:
        """After a limit stopped the walk: the commands of `text` by the lexical split, recorded
        as they are (no walking: the limit holds), within a budget of text scanned."""
        if self.lexical_budget <= 0:
            return
        self.lexical_budget -= len(text)
        room = MAX_ELEMENTS + MAX_LEXICAL - len(self.commands)
        from agentstyle.shell.fallback import flat_commands  # only once a limit is hit

        commands, cut = flat_commands(text, max(room, 0))
        for argv in commands:
            self.commands.setdefault(" ".join(argv), None)
        if cut:
            self.issue("element-limit")

    def _fallback(self, text: str) -> None:
        """Text not parsed (too deep): its commands by the lexical split, each then run as any
        command is (wrappers peeled). A string such a command runs is split the same way, from
        a work list, so nesting of any depth costs no recursion."""
        if self.queue is not None:
            self.queue.append(text)
            return
        from agentstyle.shell.fallback import flat_commands  # only for text nested deep

        self.queue = [text]
        try:
            while self.queue and not self.full:
                commands, cut = flat_commands(self.queue.pop(), MAX_ELEMENTS)
                if cut:
                    self.issue("element-limit")
                for argv in commands:
                    if self.full:
                        break
                    self.run(argv, NO_STDIN, 0)
        finally:
            self.queue = None

    # -- statements ----------------------------------------------------------------------------

    def walk(self, node: Node, stdin: Stdin) -> Stdin | None:
        """Walk `node` fed `stdin`; return its stdout when known."""
        if self.full:
            return None
        if isinstance(node, Simple):
            return self._simple(node, stdin)
        if isinstance(node, Seq):
            return self._seq(node, stdin)
        if isinstance(node, AndOr):
            outs = []
            made_sure = False
            for k, item in enumerate(node.items):
                # what follows `&&` or `||` may not run: a variable it sets may keep its value
                before = self.st.copy() if k else None
                outs.append(self.walk(item, stdin))
                if before is not None and self.st.widen(before):
                    self.issue("values-limit")
                if k < len(node.ops) and node.ops[k] == "&&" and self.st.just_cd:
                    self.st.sure = made_sure = True  # `cd DIR && …` runs the rest in DIR
            if made_sure:
                self.st.sure = False  # after the list: the cd may have failed and ended it
            return _concat(outs) if all(op == "&&" for op in node.ops) else None
        if isinstance(node, Pipeline):
            return self._pipeline(node, stdin)
        assert isinstance(node, Compound)
        return self._compound(node, stdin)

    def _seq(self, node: Seq, stdin: Stdin, turn: bool = False) -> Stdin | None:
        """Statements in order. One ended by `&` runs in the background unless this shell waits
        for it (`_reaped`); `turn`: the list is a loop's body."""
        outs: list[Stdin | None] = []
        reaped = _reaped(node, turn)
        for item, background, waited in zip(node.items, node.background, reaped, strict=True):
            if background:
                saved = self.st
                self.st = saved.copy()
                left = 0 if waited else 1
                self.background += left
                try:
                    self.walk(item, stdin)
                finally:
                    self.st = saved
                    self.background -= left
                outs.append(None)
            else:
                outs.append(self.walk(item, stdin))
        return _concat(outs)

    def _pipeline(self, node: Pipeline, stdin: Stdin) -> Stdin | None:
        piped: Stdin = stdin
        out: Stdin | None = None
        many = len(node.cmds) > 1
        for k, cmd in enumerate(node.cmds):
            saved = self.st
            last = k == len(node.cmds) - 1 and saved.lastpipe
            if many and not last:
                self.st = saved.copy()  # every stage runs in a subshell (not, with lastpipe,
                # the last: `shopt -s lastpipe; printf rm | read T` sets T here)
            first = len(self.touched)
            try:
                out = self.walk(cmd, piped)
            finally:
                self.st = saved
            nxt = out.copy() if out is not None else Stdin()
            if out is None:
                nxt.unknown = True
            nxt.piped = True
            nxt.sources = nxt.sources | self._since(first)  # the stage's output
            if k + 1 < len(node.cmds):
                piped = nxt
        return out

    def _compound(self, node: Compound, stdin: Stdin) -> Stdin | None:
        if node.redirs:
            stdin = self._redirections(node.redirs, stdin)
            files = self._file_redirections(node.redirs)
            if files:
                self.emit(files)  # `while read l; do …; done < .env` reads .env
                self._opened(node.redirs, files)
        self.depth += 1
        try:
            return self._compound_body(node, stdin)
        finally:
            self.depth -= 1

    def _compound_body(self, node: Compound, stdin: Stdin) -> Stdin | None:
        if isinstance(node, Coproc):
            # `coproc NAME { …; }`: NAME[1] is a descriptor onto its stdin (`>&${NAME[1]}`);
            # bash numbers them from 63 down, any free number does here
            name = node.name or "COPROC"
            fd = str(63 - 2 * sum(1 for n in self.fds if int(n) >= 50))
            self.st.vars[name] = ((str(int(fd) - 1), fd),)
            self.fds[fd] = ("file", f"coproc:{name}")
            self.readers[f"coproc:{name}"] = node.body
        if isinstance(node, (Subshell, Coproc)):
            saved = self.st
            self.st = saved.copy()
            try:
                return self.walk(node.body, stdin)
            finally:
                self.st = saved
        if isinstance(node, Group):
            return self.walk(node.body, stdin)
        if isinstance(node, If):
            return self._if(node, stdin)
        if isinstance(node, Loop):
            self.walk(node.cond, stdin)
            before = self.st.copy()
            endless = _endless(node)
            self.repeating += endless
            try:
                self._seq(node.body, stdin, turn=True)
            finally:
                self.repeating -= endless
            self.walk(node.cond, stdin)
            self._absorb([before, self.st.copy()])  # the body may run no time at all
            return None
        if isinstance(node, For):
            return self._for(node, stdin)
        if isinstance(node, Case):
            return self._case(node, stdin)
        if isinstance(node, FuncDef):
            # A function runs only when called: its body is walked at the call.
            self.st.funcs[node.name] = node.body
            self.defined.setdefault(node.name, node.body)
            return None
        if isinstance(node, Cond):
            expanded = [expand(word, self, False) for word in node.words]
            words = [w for alts in expanded for alt in alts for w in alt]
            texts = [" ".join(alts[0]) if alts else "" for alts in expanded]  # `[[` splits none
            for k, text in enumerate(texts):
                if text in _ARITH_TESTS:  # `[[ $x -eq 0 ]]` evaluates both sides
                    for side in texts[max(k - 1, 0) : k] + texts[k + 1 : k + 2]:
                        arith_values(side, self)
            self.emit(" ".join(["[[", *words, "]]"]))
            return None
        if isinstance(node, ArithCmd):
            expand(Word([node.arith], "", 0, 0), self, False)
            return None
        if isinstance(node, Opaque):
            self._fallback(node.text)
            return None
        return None  # pragma: no cover - every compound is handled above

    def _absorb(self, branches: list[State]) -> None:
        if self.st.absorb(branches):
            self.issue("values-limit")

    def _branch(self, body: Seq, stdin: Stdin) -> State:
        """Walk `body` from a copy of the state; the state it ends in (the walk's is kept)."""
        saved = self.st
        self.st = saved.copy()
        try:
            self.walk(body, stdin)
            return self.st
        finally:
            self.st = saved

    def _if(self, node: If, stdin: Stdin) -> Stdin | None:
        branches: list[State] = []
        for cond, body in node.arms:
            self.walk(cond, stdin)
            branches.append(self._branch(body, stdin))
        if node.orelse is not None:
            branches.append(self._branch(node.orelse, stdin))
        else:
            branches.append(self.st.copy())
        self._absorb(branches)
        return None

    def _case(self, node: Case, stdin: Stdin) -> Stdin | None:
        if node.subject is not None:
            expand(node.subject, self, False)
        branches: list[State] = [self.st.copy()]
        for patterns, body in node.arms:
            for pattern in patterns:
                expand(pattern, self, False)
            branches.append(self._branch(body, stdin))
        self._absorb(branches)
        return None

    def _for(self, node: For, stdin: Stdin) -> Stdin | None:
        if node.arith is not None:
            expand(Word([node.arith], "", 0, 0), self, False)
            endless = 0 if _leaves(node.body) else _endless_arith(node.arith)
            self.repeating += endless
            try:
                self._seq(node.body, stdin, turn=True)
            finally:
                self.repeating -= endless
            return None
        values: list[Value] = []
        # a list of more turns than MANY_TURNS repeats its body like an endless loop
        many = 1 if node.items is not None and _turns(node.items) > MANY_TURNS else 0
        if node.items is None:
            args = self.st.positional
            values = list(args[1:]) if args is not None else [UNKNOWN]
        else:
            for word in node.items:
                for alt in expand(word, self):
                    values.extend(alt)
        if len(values) > MAX_VALUES:
            self.issue("loop-values-limit")
            values = values[:MAX_VALUES]
        before = self.st.copy()
        if node.name:
            unique = [
                Symbolic(v) if isinstance(v, str) and self.flags.get(v, 0) & (F_VAR | F_SUB) else v
                for v in dict.fromkeys(values)
            ]
            self.st.vars[node.name] = tuple(unique) if unique else (UNKNOWN,)
        many = 0 if _leaves(node.body) else many
        self.repeating += many
        try:
            self._seq(node.body, stdin, turn=True)
        finally:
            self.repeating -= many
        if values:
            self._absorb([before, self.st.copy()])
        else:
            self.st = before
        return None

    # -- simple commands -----------------------------------------------------------------------

    def _simple(self, node: Simple, stdin: Stdin) -> Stdin | None:
        assigns: list[list[str]] = []
        first = len(self.touched)
        for assign in node.assigns:
            assigns.append(self._assignment(assign))
        argvs = self._argvs(node.words) if node.words else []
        # the runs a `$(…)` or `<(…)` of its words ran: their output is in its words
        words_from = self._since(first)
        if node.redirs:
            stdin = self._redirections(node.redirs, stdin)
        if node.redirs and argvs and argvs[0][:1] == ["exec"] and not _runs_program(argvs[0]):
            self._exec_fds(node.redirs)  # `exec 3>/dev/tcp/h/p`: later commands write to fd 3
        elif node.redirs:
            self._exec_fds(node.redirs, named_only=True)  # `: {sock}>/dev/tcp/h/p` stays open
        if not node.words:
            for assign, texts in zip(node.assigns, assigns, strict=True):
                for text in texts:
                    self.emit(text)
                self._set(assign, texts)
            if node.redirs:
                # No command, yet the shell opens the files: `> .env` empties it, `X=1 < f`
                # reads it. Recorded as a compound command's redirections are.
                self._bare_redirections(node.redirs)
            return None
        env = [t for texts in assigns for t in texts]
        for text in env:
            self._setting_runs(text)
        files = self._file_redirections(node.redirs) if node.redirs else ""
        redirs = self._redirection_pairs(node.redirs) if node.redirs else ()
        out: Stdin | None = None
        for argv in argvs:
            if not argv:
                continue
            for text in env:
                self.emit(text)
            saved_env, self.command_env = self.command_env, env
            saved_redirs, self.command_redirs = self.command_redirs, redirs
            saved_from, self.args_from = self.args_from, self.args_from | words_from
            try:
                out = self.run(argv, stdin, 0)
            finally:
                self.command_env = saved_env
                self.command_redirs = saved_redirs
                self.args_from = saved_from
            if out is not None and out.texts and not out.unknown and node.redirs:
                self._writes(node.redirs, "".join(out.texts))
            if files:
                # The words stay in their positions above; the files the command reads and
                # writes are seen here: `< .env cat` is also `cat < .env`.
                self.emit(self._line(argv) + " " + files)
                for d in self.st.dirs:  # after a `cd`, the files where they really are
                    moved = self._file_redirections(node.redirs, d) if d != self.start else files
                    if moved != files:
                        self.emit(self._line(argv) + " " + moved)
        return out if len(argvs) == 1 else None

    def _argvs(self, words: Sequence[Word]) -> list[list[str]]:
        """Every argument vector the words may expand to (one per combination of values)."""
        combos: list[list[str]] = [[]]
        for word in words:
            alternatives = expand(word, self)
            if len(alternatives) == 1:
                for combo in combos:
                    combo.extend(alternatives[0])
                continue
            combos = [c + a for c in combos for a in alternatives][:MAX_ALTERNATIVES]
            if len(combos) >= MAX_ALTERNATIVES:
                self.issue("alternatives-limit")
        return combos

    def _assignment(self, assign: Assign) -> list[str]:
        """The `NAME=value` texts an assignment reads as (one per value it may hold)."""
        head = assign.name + ("[" + assign.index + "]" if assign.index else "")
        head += "+=" if assign.append else "="
        if assign.array is not None:
            items = [w for word in assign.array for alt in expand(word, self) for w in alt]
            return [head + "(" + " ".join(items) + ")"]
        if assign.value is None:
            return [head]
        values = expand_text(assign.value.parts, self)
        if len(values) > MAX_VALUES:
            self.issue("values-limit")
        return [head + v for v in values[:MAX_VALUES]]

    def _set(self, assign: Assign, texts: list[str]) -> None:
        head = len(assign.name) + (len(assign.index) + 2 if assign.index else 0)
        head += 2 if assign.append else 1
        name = self.referent(assign.name)  # `declare -n r=d; r=/` sets d
        if assign.array is not None:
            items = [w for word in assign.array for alt in expand(word, self) for w in alt]
            self.st.vars[name] = (tuple(items),)
            return
        values: list[Value] = []
        for text in texts:
            value = text[head:]
            flags = self.flags.get(value, 0)
            if flags & (F_VAR | F_SUB):
                values.append(Symbolic(value))  # `R=${HOME}` holds `$HOME`
            elif assign.append:
                old = self.st.vars.get(name, ("",))
                values.extend(o + value if isinstance(o, str) else UNKNOWN for o in old)
            else:
                values.append(value)
        if assign.index is not None and assign.index not in ("0",):
            self.st.vars.setdefault(name, (UNKNOWN,))
            return
        self.st.vars[name] = tuple(dict.fromkeys(values))[:MAX_VALUES] or ("",)
        if name == "PATH":
            self.st.hashed = {}  # bash forgets the names `hash` remembered
        if (name in self.st.exported or self.st.allexport) and texts:
            # an exported variable set again; after `set -a`, every variable set
            self.st.exported[name] = name + texts[0][len(assign.name) :]

    def _bare_redirections(self, redirs: Sequence[Redir]) -> None:
        files = self._file_redirections(redirs)
        pairs = self._redirection_pairs(redirs)
        if pairs:
            # a run with no words, for the command model: the files the shell opens
            saved, self.command_redirs = self.command_redirs, pairs
            try:
                self._record_run([], " ".join(o + " " + t for o, t in pairs))
            finally:
                self.command_redirs = saved
        if files:
            self.emit(files)
            for d in self.st.dirs:
                if d != self.start:
                    self.emit(self._file_redirections(redirs, d))
            self._opened(redirs, files)

    def _opened(self, redirs: Sequence[Redir], text: str) -> None:
        """A run with no words, for the command model: the files the shell opens for
        redirections no program owns (`> .env` alone, `while …; done < .env`)."""
        pairs = self._redirection_pairs(redirs)
        if pairs:
            saved, self.command_redirs = self.command_redirs, pairs
            try:
                self._record_run([], text)
            finally:
                self.command_redirs = saved

    def _file_redirections(self, redirs: Sequence[Redir], directory: str | None = None) -> str:
        """`< in > out` of the redirections that name files (not `2>&1`, not heredocs);
        relative ones resolved against `directory` when given (`cd .claude && echo > x`)."""
        out: list[str] = []
        for redir in redirs:
            if redir.heredoc is not None or redir.target is None or redir.op == "<<<":
                continue
            target = expand_text(redir.target.parts, self)[0]
            if redir.op in (">&", "<&") and (target.isdigit() or target in ("-", "")):
                continue  # `2>&1`, `>&-`: descriptors, not files
            if target == "/dev/null":
                continue
            if directory is not None and target and not target.startswith(("/", "~", "$")):
                target = self._render(directory, target)
            out.append((redir.fd or "") + redir.op + " " + target)
        return " ".join(out)

    def _redirection_pairs(self, redirs: Sequence[Redir]) -> tuple[tuple[str, str], ...]:
        """(operator, file) of the redirections that name files: `2>&1` and heredocs are not
        files; `/dev/null` is kept (a rule may read where output goes)."""
        out: list[tuple[str, str]] = []
        opened: dict[str, str] = {}  # this command's descriptors opened on files, so far
        for redir in redirs:
            if redir.heredoc is not None or redir.target is None or redir.op == "<<<":
                continue
            target = expand_text(redir.target.parts, self)[0]
            fd = redir.fd if redir.fd and redir.fd.isdigit() else None
            if redir.op in (">&", "<&"):
                source = target.rstrip("-")
                if source in opened or (source in self.fds and self.fds[source][0] == "file"):
                    # `0>&1` after `>& /dev/tcp/h/p`, `>&3` after `exec 3>/dev/tcp/h/p`: the
                    # descriptor goes where that one was opened (fd 0 is read from)
                    file = opened.get(source) or str(self.fds[source][1])
                    mine = fd or ("0" if redir.op == "<&" else "1")
                    op = ("" if mine in "01" else mine) + ("<" if mine == "0" else ">")
                    out.append((op, file))
                    opened[mine] = file
                    continue
                if target.isdigit() or target in ("-", ""):
                    continue
            out.append(((redir.fd or "") + redir.op, target))
            if redir.op in ("&>", ">&", "&>>"):
                opened["1"] = opened["2"] = target
            else:
                opened[fd or ("0" if redir.op.startswith("<") else "1")] = target
        return tuple(out)

    def _exec_fds(self, redirs: Sequence[Redir], *, named_only: bool = False) -> None:
        """`exec N>FILE`, `exec N<FILE`, `exec N<<<TEXT`, `exec N<<EOF…`, `exec N>&M`: what
        descriptor N is for the rest of the command line (`>&N`, `source /dev/fd/N`). A named
        descriptor (`{sock}>/dev/tcp/h/p`, on any command: bash keeps it open) gets a number
        of its own, from 10 as bash gives them, held in its variable (`>&$sock`)."""
        for redir in redirs:
            fd = redir.fd
            closing = (
                redir.op in (">&", "<&")
                and redir.target is not None
                and (expand_text(redir.target.parts, self)[0] == "-")
            )
            if fd and fd.startswith("{") and fd.endswith("}") and fd[1:-1].isidentifier():
                name = fd[1:-1]
                known = self.st.vars.get(name, ())
                if closing and len(known) == 1 and str(known[0]) in self.fds:
                    fd = str(known[0])  # `exec {sock}>&-` closes the one it names
                else:
                    fd = str(10 + sum(1 for n in self.fds if int(n) >= 10))
                    self.st.vars[name] = (fd,)
            elif named_only or not fd or not fd.isdigit():
                continue
            if closing:
                self.fds.pop(fd, None)  # `exec 3>&-`: a later `>&3` writes nowhere
                continue
            if redir.op in (">&", "<&") and redir.target is not None:
                source = expand_text(redir.target.parts, self)[0].rstrip("-")
                if source in self.fds:  # `exec 3>&4-`, `exec {copy}>&$sock`: the same file
                    self.fds[fd] = self.fds[source]
                continue
            if redir.heredoc is not None:
                doc = redir.heredoc
                body = expand_text(doc.parts, self)[0] if not doc.quoted else doc.body
                self.fds[fd] = ("text", body)
            elif redir.target is not None and redir.op == "<<<":
                self.fds[fd] = ("text", expand_text(redir.target.parts, self)[0] + "\n")
            elif redir.target is not None and redir.op in (">", ">>", "<", "<>", ">|"):
                self.fds[fd] = ("file", expand_text(redir.target.parts, self)[0])

    def _redirections(self, redirs: Sequence[Redir], stdin: Stdin) -> Stdin:
        new = stdin.copy()
        replaced = False
        for redir in redirs:
            op = redir.op
            doc = redir.heredoc
            if doc is not None:
                texts = expand_text(doc.parts, self) if not doc.quoted else [doc.body]
                if not replaced:
                    new = Stdin()
                    replaced = True
                if len(texts) > MAX_STDIN_TEXTS:
                    self.issue("values-limit")
                new.texts.extend(texts[:MAX_STDIN_TEXTS])
                continue
            if redir.target is None:
                continue
            # A redirection's word is expanded but never split (a herestring, a file name).
            targets = expand_text(redir.target.parts, self)[:MAX_STDIN_TEXTS]
            if op == "<<<":
                if not replaced:
                    new = Stdin()
                    replaced = True
                new.texts.extend(t + "\n" for t in targets)
            elif op in ("<", "<&") and (redir.fd in (None, "0")):
                if op == "<&":  # `bash <&$fd` after `exec {fd}< <(curl …)`
                    found = [self.fds.get(t.rstrip("-")) for t in targets]
                    targets = [str(f[1]) for f in found if f is not None and f[0] == "file"]
                    texts = [str(f[1]) for f in found if f is not None and f[0] == "text"]
                    if texts:  # `exec 4<<<'…'; bash <&4`: the text it was opened on
                        new = Stdin() if not replaced else new
                        replaced = True
                        new.texts.extend(texts)
                    if not targets:
                        continue
                if not replaced:
                    new = Stdin()
                    replaced = True
                for target in targets:
                    sub = self.procsubs.get(target)
                    if sub is not None:
                        new.texts.extend(sub.texts)
                        new.files.extend(sub.files)
                        new.unknown = new.unknown or sub.unknown
                        new.origins |= sub.origins
                        new.sources = new.sources | sub.sources
                        new.piped = True
                    else:
                        new.files.append(target)
        return new


def _endless(loop: Loop) -> int:
    """1 for a loop its condition never ends (`while true`, `while :`, `while /bin/true`,
    `while [ 1 ]`, `while [[ x ]]`, `while ((1))`, `until false`), unless its body leaves it
    on the first turn; else 0."""
    if not loop.cond.items or _leaves(loop.body):
        return 0
    return int(_constant(loop.cond.items[-1]) is (not loop.until))


def _constant(node: Node) -> bool | None:
    """The exit status a loop condition always has (True: it succeeds), None when it
    depends on anything: `true`, `:` and `false` by any path, a test of one literal word (`[ x
    ]`, `test x`, `[[ x ]]`: true when the word is not empty), `((N))` of a literal number."""
    if isinstance(node, Cond):
        tested = [_literal(w) for w in node.words]
        if len(tested) == 1 and tested[0] is not None:
            return bool(tested[0])
        return None
    if isinstance(node, ArithCmd):
        raw = node.arith.raw.strip("()$ ")
        return int(raw) != 0 if raw.isdigit() else None
    words = [p.text for p in _words_of(node)]
    if not words:
        return None
    name = command_name(words[0])
    if len(words) == 1 and name in ("true", ":", "false"):
        return name != "false"
    if name == "[" and len(words) == 3 and words[2] == "]":
        return bool(words[1])
    if name == "test" and len(words) == 2:
        return bool(words[1])
    return None


def _literal(word: Word) -> str | None:
    """The text of a word with nothing to expand, else None."""
    if all(isinstance(p, Lit) for p in word.parts):
        return "".join(p.text for p in word.parts if isinstance(p, Lit))
    return None


def _leaves(body: Seq) -> bool:
    """A loop body that leaves on its first turn: `break`, `exit` or `return` as one of its own
    statements (not under a condition, not in the background)."""
    for item, background in zip(body.items, body.background, strict=True):
        words = _words_of(item)
        if not background and words and words[0].text in ("break", "exit", "return"):
            return True
    return False


def _reaped(seq: Seq, turn: bool) -> list[bool]:
    """For each statement of `seq`: started in the background (`&`) and waited for by this same
    shell, so it does not outlive the list: a `wait` statement of the list comes after it (`job
    & wait`, `wait -n`, `wait $!`), or the list is a loop's body that starts with `wait` (the
    next turn reaps it). A `disown` before that wait takes the job off the shell's list."""
    names = [
        None if bg else _first_word(item)
        for item, bg in zip(seq.items, seq.background, strict=True)
    ]
    leading = turn and bool(names) and names[0] == "wait"
    out = [False] * len(names)
    after: str | None = None  # the first `wait` or `disown` after the statement
    for k in range(len(names) - 1, -1, -1):
        if seq.background[k]:
            out[k] = after == "wait" or (after is None and leading)
        elif names[k] in ("wait", "disown"):
            after = names[k]
    return out


def _first_word(node: Node) -> str | None:
    """The command word of a simple command when it is literal text."""
    if isinstance(node, Simple) and node.words:
        parts = node.words[0].parts
        if parts and all(isinstance(p, Lit) for p in parts):
            return "".join(p.text for p in parts if isinstance(p, Lit))
    return None


def _words_of(node: Node) -> list[Lit]:
    if isinstance(node, Simple) and not node.assigns and not node.redirs:
        parts = [w.parts[0] for w in node.words if len(w.parts) == 1]
        if len(parts) == len(node.words) and all(isinstance(p, Lit) for p in parts):
            return [p for p in parts if isinstance(p, Lit)]
    return []


MANY_TURNS = 1000  # a `for` list longer than this repeats its body like an endless loop


_RANGE = re.compile(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?\}")


def _turns(items: list[Word]) -> float:
    """How many turns a `for` list gives, as far as its words say: a brace range counts its
    numbers (`{1..100000}`), `$(seq …)` of literal numbers what seq prints (`seq inf` never
    ends), every other word one."""
    total = 0.0
    for word in items:
        count = 1.0
        part = word.parts[0] if len(word.parts) == 1 else None
        if isinstance(part, Sub) and not part.quoted:
            count = _seq_count(part)
        elif all(isinstance(p, Lit) and not p.quoted for p in word.parts):
            text = "".join(p.text for p in word.parts if isinstance(p, Lit))
            for m in _RANGE.finditer(text):
                first, last, step = int(m[1]), int(m[2]), abs(int(m[3] or 1)) or 1
                count *= abs(last - first) // step + 1
        total += count
    return total


def _seq_count(sub: Sub) -> float:
    """The lines `$(seq [FIRST [STEP]] LAST)` prints (1 for any other substitution)."""
    body = sub.body
    if body is None or len(body.items) != 1:
        return 1.0
    words = [p.text for p in _words_of(body.items[0])]
    if not words or command_name(words[0]) != "seq":
        return 1.0
    numbers: list[float] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        try:
            numbers.append(float(word))
        except ValueError:
            if word in ("-f", "-s"):
                skip = True  # the format or separator
            elif not word.startswith("-"):
                return 1.0
    if not 1 <= len(numbers) <= 3:
        return 1.0
    first, step, last = (
        (1.0, 1.0, numbers[0])
        if len(numbers) == 1
        else (numbers[0], 1.0, numbers[1])
        if len(numbers) == 2
        else (numbers[0], numbers[1], numbers[2])
    )
    if step == 0 or math.isnan(first + step + last) or (last - first) * step < 0:
        return 1.0
    return math.inf if math.isinf(last) else math.floor((last - first) / step) + 1


def _endless_arith(arith: object) -> int:
    """1 for `for ((;;))` and `for ((i=0;;i++))` (no condition), else 0."""
    raw = getattr(arith, "raw", None)
    if not isinstance(raw, str):
        return 0
    parts = raw.strip("()$ ").split(";")
    return int(len(parts) == 3 and not parts[1].strip())


def _concat(outs: Sequence[Stdin | None]) -> Stdin | None:
    """The output of statements run one after another, when every one is known."""
    known = [o for o in outs if o is not None]
    if not known:
        return None
    if len(known) == 1 and len(outs) == 1:
        return known[0]
    if any(o is None for o in outs) or any(o.unknown or o.files for o in known):
        out = Stdin()
        out.unknown = True
        for o in known:
            out.origins |= o.origins
        return out
    out = Stdin()
    for o in known:
        out.texts.extend(o.texts)
        out.origins |= o.origins
    return out
