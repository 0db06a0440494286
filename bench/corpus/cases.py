"""The corpus format: categories, syntax forms, cases, the files that hold them and their floors."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"  # ours: tests/corpus/<category>.yaml
PEERS = CORPUS / "peers"  # taken from other guard projects' tests: peers/<category>.yaml
# taken from other projects' tests like peers/, whole sources kept apart: only ever measured,
# never fixed against case by case, and given no floor (heldout/README.md)
HELDOUT = CORPUS / "heldout"
FLOORS = CORPUS / "floors.yaml"
VERDICTS = ("block", "ask", "allow")
THRESHOLD = 0.97  # precision and recall, per category and per form, once a category is held
SETS = ("ours", "peers")  # the sets that keep floors; the held-out set is only reported
CORPORA = ("ours", "peers", "heldout")
# libyaml's parser where PyYAML has it: the same safe constructor, and the corpus (thousands of
# cases, read by every test process that collects the corpus tests) parses several times faster.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# The six categories the bundled guards claim come first; then the further families the guards
# are to learn (each a pack to come); then the ordinary commands every guard must let pass.
CLAIMED = (
    "recursive-delete",
    "destructive-git",
    "secrets",
    "one-way-doors",
    "identity",
    "database",
)
CATEGORIES: dict[str, str] = {
    "recursive-delete": "rm -r, find -delete/-exec rm, xargs/parallel rm outside the project",
    "destructive-git": "reset --hard, forced clean, discarding changes, force pushes",
    "secrets": ".env files and private keys: shell readers and file tools",
    "one-way-doors": "public deletions and publishing (ask)",
    "identity": "commits under the forbidden address",
    "database": "DROP/TRUNCATE through a database client",
    "disk-devices": "dd/mkfs/wipefs/shred/partitioning of disks and devices",
    "system": "permissions on / or ~, system files, killing init or the session",
    "git-exec": "code run through git config or environment (aliases, hooks, GIT_SSH)",
    "git-history": "history rewrites, reflog and ref deletion, forced git rm",
    "containers": "docker/podman/compose prune, volume and system removal",
    "kubernetes": "kubectl delete of namespaces and workloads, helm uninstall",
    "cloud": "aws/gcloud/az/… deletes of instances, databases, stacks",
    "infrastructure": "terraform/pulumi/cdk destroy, applies without approval",
    "remote-storage": "object storage deletes, rsync --delete to remotes",
    "registries": "mvn deploy, gradle publish, deprecate, dist-tag rm (ask)",
    "github": "gh repo archive, gist/issue/secret deletes, glab deletes (ask)",
    "dynamic-exec": "downloads piped into a shell, eval of unknown text (ask)",
    "download-run": "code fetched from the network (or decoded) and run here (ask)",
    "network-shell": "a shell handed to the network: bind and reverse shells",
    "exfiltration": "secrets or private data sent off the machine",
    "secret-stores": "keychains, secret managers, credential commands, non-dot-file stores",
    "runaway": "fork bombs and unbounded process spawning",
    "repo-metadata": "the repository's own .git metadata destroyed",
    "no-op": "dry runs, help and tests of dangerous programs: nothing happens (allow)",
    "everyday": "ordinary commands no guard should refuse",
}
# Categories whose cases are (nearly) all passes: no minimum of cases that must refuse.
PASSING = ("no-op", "everyday")
FORMS: dict[str, str] = {
    "plain": "the command alone",
    "compound": "`&&`, `||`, `;`, `|`, `&`, newlines",
    "substitution": "`$(…)`, backticks, `<(…)`",
    "subshell": "`( … )`, `{ …; }`, if/for/while/case bodies, functions",
    "wrapper": "sudo, env, timeout, nice, nohup, setsid, flock, busybox, …",
    "shell-c": "`sh -c`, `bash -c`, `eval`, `su -c`, ssh, container exec, nesting",
    "heredoc": "heredoc bodies fed to shells, interpreters and clients",
    "herestring": "`<<<` fed to shells, interpreters and clients",
    "xargs": "xargs, parallel, find -exec/-delete",
    "interpreter": "`python -c`, `node -e`, `perl -e`, `ruby -e`, …",
    "script": "local scripts the command runs",
    "variable": "assignments and variables, `export`, `d=/; rm -rf $d`",
    "redirection": "redirections in odd places, `< file`",
    "quoting": "quotes, escapes, ANSI-C strings, backslash-newline, `${IFS}`",
    "glob": "globs and brace expansion",
    "cwd": "`cd`/`pushd` before the command",
    "git-options": "git global options, abbreviated long options, aliases",
    "dynamic": "code built at run time: pipes into a shell, eval of a substitution",
    "incomplete": "text the analysis cannot take whole",
    "file-tool": "Read, Write, Edit, Grep, Glob, NotebookEdit",
}
_KEYS = frozenset(
    {"cmd", "tool", "input", "verdict", "form", "why", "files", "links", "issue", "rule", "src"}
)
_PATH_KEYS = ("file_path", "notebook_path", "path")


@dataclass(frozen=True, slots=True)
class Case:
    category: str
    index: int  # 1-based position in its file
    verdict: str
    form: str
    why: str
    cmd: str | None = None
    tool: str = "Bash"
    input: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    issue: str | None = None
    rule: str | None = None  # the rule expected to answer (checked when given)
    corpus: str = "ours"  # ours | peers | heldout
    src: str | None = None  # peers, heldout: the project and its test file the case comes from

    @property
    def name(self) -> str:
        prefix = "" if self.corpus == "ours" else f"{self.corpus}/"
        return f"{prefix}{self.category}-{self.index:03d}-{self.form}-{self.verdict}"

    @property
    def text(self) -> str:
        """The call in one line, for tables and failure messages."""
        if self.cmd is not None:
            return self.cmd
        return f"{self.tool} {json.dumps(self.input, ensure_ascii=False)}"

    @property
    def positive(self) -> bool:
        return self.verdict != "allow"

    @property
    def peer(self) -> str | None:
        """The project a peer case comes from (the first word of `src`)."""
        return self.src.split()[0] if self.src else None

    def payload(self, cwd: str) -> dict[str, Any]:
        tool_input: dict[str, Any]
        if self.cmd is not None:
            tool_input = {"command": self.cmd}
        else:
            # Claude Code sends absolute paths; the corpus writes them relative to the project.
            tool_input = dict(self.input)
            for key in _PATH_KEYS:
                value = tool_input.get(key)
                if (
                    isinstance(value, str)
                    and not os.path.isabs(value)
                    and not value.startswith("~")
                ):
                    tool_input[key] = os.path.normpath(os.path.join(cwd, value))
        return {
            "session_id": "corpus",
            "transcript_path": "",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": self.tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_corpus",
        }


class CorpusError(ValueError):
    pass


def load(folder: Path = CORPUS) -> list[Case]:
    """Our cases: every `<category>.yaml` of the folder, checked for shape."""
    return _load_once(folder, "ours")


def load_peers(folder: Path = PEERS) -> list[Case]:
    """The peer-derived cases: every `<category>.yaml` of the folder, each naming its `src`."""
    return _load_once(folder, "peers")


def load_heldout(folder: Path = HELDOUT) -> list[Case]:
    """The held-out cases: taken like the peers' from other projects' tests, whole sources
    kept apart to be measured only (heldout/README.md); each names its `src`."""
    return _load_once(folder, "heldout")


_LOADED: dict[tuple[Path, str, tuple[tuple[str, int, int], ...]], list[Case]] = {}


def _load_once(folder: Path, corpus: str) -> list[Case]:
    """`_load`, read again only when a file of the folder changed (by name, size and mtime):
    the test modules of one process each load the same corpus."""
    files = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
    stamp = tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    key = (folder.resolve(), corpus, stamp)
    if key not in _LOADED:
        _LOADED[key] = _load(folder, corpus)
    return list(_LOADED[key])


def _load(folder: Path, corpus: str) -> list[Case]:
    stray = sorted(
        p.name for p in folder.glob("*.yaml") if p.stem not in CATEGORIES and p != FLOORS
    )
    if stray:
        raise CorpusError(f"{folder.name}/{stray[0]}: not a category (see CATEGORIES)")
    cases: list[Case] = []
    for category in CATEGORIES:
        path = folder / f"{category}.yaml"
        if not path.exists():
            continue
        where = f"{folder.name}/{path.name}"
        try:
            doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f" line {mark.line + 1}" if mark is not None else ""
            raise CorpusError(f"{where}{line}: not valid YAML") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
            raise CorpusError(f"{where}: needs a `cases` list")
        for i, raw in enumerate(doc["cases"], start=1):
            cases.append(_case(where, category, i, raw, corpus))
    return cases


def _case(where: str, category: str, index: int, raw: Any, corpus: str) -> Case:
    where = f"{where} case {index}"
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: a case is a mapping")
    unknown = set(raw) - _KEYS
    if unknown:
        raise CorpusError(f"{where}: unknown keys {sorted(unknown)}")
    if raw.get("verdict") not in VERDICTS:
        raise CorpusError(f"{where}: verdict must be one of {VERDICTS}")
    if raw.get("form") not in FORMS:
        raise CorpusError(f"{where}: unknown form `{raw.get('form')}`")
    if not str(raw.get("why") or "").strip():
        raise CorpusError(f"{where}: every case says why")
    if ("cmd" in raw) == ("tool" in raw):
        raise CorpusError(f"{where}: give either `cmd` or `tool` + `input`")
    # a peer's (or held-out) case names where it comes from; ours never do, so the sets
    # cannot mix
    if corpus != "ours" and not str(raw.get("src") or "").strip():
        raise CorpusError(f"{where}: a peer case names its `src` (peer and test file)")
    if corpus == "ours" and "src" in raw:
        raise CorpusError(f"{where}: `src` marks a peer case; it belongs in peers/")
    return Case(
        category=category,
        index=index,
        verdict=str(raw["verdict"]),
        form=str(raw["form"]),
        why=str(raw["why"]),
        cmd=str(raw["cmd"]) if "cmd" in raw else None,
        tool=str(raw.get("tool", "Bash")),
        input=dict(raw.get("input") or {}),
        files={str(k): str(v) for k, v in (raw.get("files") or {}).items()},
        links={str(k): str(v) for k, v in (raw.get("links") or {}).items()},
        issue=str(raw["issue"]) if raw.get("issue") else None,
        rule=str(raw["rule"]) if raw.get("rule") else None,
        corpus=corpus,
        src=str(raw["src"]) if raw.get("src") else None,
    )


# ---------------------------------------------------------------------------------------------
# Floors: the precision and recall each category must keep, per set of cases.


@dataclass(frozen=True, slots=True)
class Floor:
    precision: float
    recall: float

    @property
    def held(self) -> bool:
        """A category at the threshold is held per syntax form as well."""
        return self.precision >= THRESHOLD and self.recall >= THRESHOLD


def load_floors(path: Path = FLOORS) -> dict[str, dict[str, Floor]]:
    """set (ours | peers) -> category -> floor, every category named once with both sets."""
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except yaml.YAMLError:
        raise CorpusError(f"{path.name}: not valid YAML") from None
    if not isinstance(doc, dict):
        raise CorpusError(f"{path.name}: a mapping of category -> {{ours, peers}}")
    unknown = sorted(set(doc) - set(CATEGORIES))
    if unknown:
        raise CorpusError(f"{path.name}: `{unknown[0]}` is not a category")
    missing = [c for c in CATEGORIES if c not in doc]
    if missing:
        raise CorpusError(f"{path.name}: no floor for `{missing[0]}`")
    floors: dict[str, dict[str, Floor]] = {s: {} for s in SETS}
    for category, row in doc.items():
        if not isinstance(row, dict) or set(row) != set(SETS):
            raise CorpusError(f"{path.name}: `{category}` needs `ours` and `peers`")
        for corpus, pair in row.items():
            ok = isinstance(pair, list) and len(pair) == 2
            if not ok or not all(isinstance(x, int | float) and 0 <= x <= 1 for x in pair):
                raise CorpusError(
                    f"{path.name}: `{category}.{corpus}` is [precision, recall] between 0 and 1"
                )
            floors[corpus][category] = Floor(float(pair[0]), float(pair[1]))
    return floors


def held_categories(floors: dict[str, dict[str, Floor]]) -> tuple[str, ...]:
    """The categories whose own cases are held at the threshold, per category and per form."""
    return tuple(c for c in CATEGORIES if floors["ours"][c].held)
