"""Where a path word lands (docs/design/commands.md#paths).

A word the program treats as a file is resolved the way the kernel would: against the working
directory the shell analysis tracked, with `~`, `$HOME`, `$PWD`, `$TMPDIR` filled in, through
symbolic links that exist on disk and those the same command line creates, and `..` taken after
them. Its places say where it lands: for each place (the project, its `.git`, home, temp, the
root, a system folder, another machine) `is:P` (the folder itself) or `inside:P` (under it);
`outside P` is neither. A path only known when the command runs is `is:unknown` and inside no
place, so a rule about paths outside the project counts it as outside.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

PLACES = ("project", "git", "home", "tmp", "root", "system", "remote", "unknown")

# Folders of the operating system: what they hold is the machine's, not the project's.
SYSTEM_FOLDERS = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/media",
    "/mnt",
    "/nix",
    "/opt",
    "/proc",
    "/run",
    "/sbin",
    "/snap",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/Applications",
    "/Library",
    "/System",
    "/Volumes",
    "/private",
    "/cores",
)
# Folders whose entries are people's home folders (the root user's is /root).
HOME_PARENTS = ("/home", "/Users")
TMP_FOLDERS = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm")

# Names a glob may match when the shell expands it at run time, which STYLE cannot list: the
# files and folders guards care about that most projects and home folders hold. A glob word
# whose last part matches some of them lands on each (`cat .e*` is `cat .env`, `.env.local`…;
# `head ~/.ssh/id_*` is `~/.ssh/id_rsa`…), and only on them: `cat .env.ex*` is the template.
WELL_KNOWN = (
    ".git",
    ".env",
    ".env.local",
    ".env.development",
    ".env.development.local",
    ".env.production",
    ".env.production.local",
    ".env.test",
    ".env.staging",
    ".env.example",
    ".env.sample",
    ".env.template",
    ".envrc",
    ".netrc",
    ".npmrc",
    ".pgpass",
    ".pypirc",
    ".git-credentials",
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".docker",
    "config",
    "credentials",
    "id_rsa",
    "id_rsa.pub",
    "id_ecdsa",
    "id_ecdsa.pub",
    "id_ed25519",
    "id_ed25519.pub",
    "id_dsa",
    "id_dsa.pub",
)
# What a home folder holds that a recursive read of it reads, whether or not a bounded listing
# reaches it: a copy or an archive of a whole home (`tar czf - /home/dev`, `rsync -a /home/ h:`)
# carries the keys in it (not a project's `.git` or `.env*`, which the listing finds if any).
HOME_HELD = tuple(
    n for n in WELL_KNOWN if n.startswith(".") and n != ".git" and not n.startswith(".env")
)
_GLOB = frozenset("*?[")
_EXTGLOB = re.compile(r"[@!+*?]\(")

# A last path component that names every entry of its folder (`*`, `.*`, `.[!.]*`, `{*,.*}`).
_EVERY = re.compile(r"^\.?[*?\[\]!^{},.]*$")
# A path on another machine as rsync, scp and rclone write it: `[user@]host:path` (a colon
# before any slash; rclone's `:backend:path` names no host), `host::module/path` (an rsync
# daemon), `scheme://host/path`.
_HOST_PATH = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|[^/:]+::|[^/:]*:(?P<path>.*)$)", re.S)
_VAR = re.compile(r"^\$(?:\{(?P<b>[A-Za-z_][A-Za-z0-9_]*)\}|(?P<n>[A-Za-z_][A-Za-z0-9_]*))")


@dataclass(frozen=True, slots=True)
class Where:
    """What path resolution needs to know of the machine and the command line."""

    root: str | None  # the project folder (real path), when known
    home: str  # this user's home folder
    tmpdir: str | None  # $TMPDIR's real path, when set
    links: dict[str, str]  # links the command line made before this command: link → target
    dotglob: bool = False  # the command's globs match dot-files (`shopt -s dotglob`)


@dataclass(frozen=True, slots=True)
class Place:
    """One path as a rule sees it: its text, the forms a glob is matched against, its places."""

    text: str
    forms: tuple[str, ...]
    tags: frozenset[str]


def machine(root: str | None) -> Where:
    home = os.path.expanduser("~")
    tmp = os.environ.get("TMPDIR")
    return Where(
        root=root,
        home=posixpath.normpath(home) if home.startswith("/") else "/",
        tmpdir=real_path(tmp.rstrip("/") or "/") if tmp and tmp.startswith("/") else None,
        links={},
    )


def place(
    word: str, directory: str, where: Where, *, remote: bool = False, link_itself: bool = False
) -> tuple[Place, ...]:
    """Where `word` lands for a command run in `directory` (the shell analysis's form: an
    absolute folder, "" for the project, `~/…` or `$VAR/…`): the path as written, and where a
    symbolic link on the way really leads when that is elsewhere (both are the command's).
    `link_itself`: a last component that is a link is the link, not where it leads (`rm -rf
    link` removes the link; `rm -rf link/` what it leads to)."""
    if remote:
        return (_remote(word),)
    # Every entry of a folder (`/tmp/*`, `~/.*`) lands where the folder does: deleting all it
    # holds is deleting the folder's content.
    every = _names_every_entry(word)
    target = (posixpath.dirname(word.rstrip("/")) or ".") if every else word
    absolute = _absolute(target, directory, where)
    if absolute is None:
        return (Place(word, (word,), frozenset({"is:unknown"})),)
    normal = posixpath.normpath(absolute)
    lexical = _through_links(normal, where.links)
    # The kernel takes `..` after a symbolic link from where the link leads (`cd linked && rm
    # -rf ../x` leaves the link's target, not its folder): the real path is resolved as
    # written, before `..` is taken as text.
    real = real_path(lexical if lexical != normal else absolute)
    head, tail = posixpath.split(absolute.rstrip("/"))
    if link_itself and not every and not word.endswith("/") and tail not in ("", ".", ".."):
        lexical = posixpath.join(_through_links(posixpath.normpath(head), where.links), tail)
        real = posixpath.join(real_path(head), tail)
    found = [_placed(lexical, word if every else None, where)]
    if real != lexical:
        found.append(_placed(real, word if every else None, where))
    names = well_known(word, dots=where.dotglob)
    if names:
        # where it may land when it runs; a folder's every entry still lands on the folder
        known = [p for name in names for p in place(name, directory, where)]
        found = found + known if every else known
    # what the shell expands it to, where the folder is there to look in (`cat certs/*`)
    found += [
        p for name in _expanded(word, directory, where) for p in place(name, directory, where)
    ]
    return tuple(found)


def _expanded(word: str, directory: str, where: Where) -> list[str]:
    """The paths a glob word's last part expands to on this machine, as the shell would."""
    from agentstyle.commands.listing import entries_matching

    folder, slash, last = word.rstrip("/").rpartition("/")
    if not (_GLOB & set(last) or _EXTGLOB.search(last)):
        return []
    at = _absolute(folder + slash if slash else ".", directory, where)
    if at is None:
        return []
    found = entries_matching(real_path(at), last, dots=where.dotglob)
    return [folder + slash + name for name in found]


def homes_within(folder: str, where: Where) -> list[str]:
    """The home folders under `folder` (absolute) that a recursive read of it walks into: this
    user's when `folder` holds it, `folder` itself when it is a home, `/root` under `/`, and
    any user's (`/home/*`, written so) under a folder of homes."""
    folder = posixpath.normpath(folder)
    homes = [where.home] if _under(where.home, folder) else []
    if folder == "/":
        homes += ["/root", *(p + "/*" for p in HOME_PARENTS)]
    elif folder in HOME_PARENTS:
        homes.append(folder + "/*")
    elif folder == "/root" or posixpath.dirname(folder) in HOME_PARENTS:
        homes.append(folder)
    return list(dict.fromkeys(homes))


def host_place(word: str) -> Place | None:
    """Where a path on another machine lands (`deploy@web1:/srv/app`, `backup::data`,
    `rsync://host/module`), for a program whose grammar takes such paths (`hostpaths`); None
    for a local path. A `host:path` is read on that machine (relative to its user's home)."""
    m = _HOST_PATH.match(word)
    if m is None:
        return None
    path = m.group("path")
    if path is None:  # a daemon module or a URL: a name the server resolves
        return Place(word, (word,), frozenset({"inside:remote"}))
    there = _remote(path or ".")
    return Place(word, (word, *there.forms), there.tags)


def well_known(word: str, *, dots: bool = False) -> list[str]:
    """`word` with its last part, a glob, replaced by each WELL_KNOWN name it matches (as bash
    matches: a leading `.` only by a `.`); [] for a word that is no such glob, or a glob of
    wildcards alone (`*`, `?*`: every name, which says nothing of any). With `dots` (bash's
    dotglob) a wildcard matches a leading `.` too, so `*` alone names every dot-file there."""
    folder, slash, last = word.rstrip("/").rpartition("/")
    if not _GLOB & set(last):
        return []
    wild = not set(last) - _GLOB - set("]!^")
    if wild and not dots:
        return []
    pattern = last.replace("[^", "[!")
    return [
        folder + slash + name
        for name in WELL_KNOWN
        if (dots or last.startswith(".") or not name.startswith("."))
        and (not wild or name.startswith("."))  # `*`: the dot-files only dotglob adds
        and fnmatchcase(name, pattern)
    ]


def glob_names(glob: str) -> list[str]:
    """What a file glob (a content search's `glob`) names, as paths a rule can test: each brace
    alternative, a glob by the WELL_KNOWN names it matches, else as written (`*.pem`, which a
    rule's `**/*.pem` matches as it matches a file)."""
    out: list[str] = []
    for part in expand_braces(glob):
        out += well_known(part) or [part]
    return list(dict.fromkeys(out))


def expand_braces(text: str) -> list[str]:
    """`text` with its brace alternatives expanded, as the shell expands them (`{.env,*.md}`
    is `.env` and `*.md`); a brace without a comma stays."""
    depth, start = 0, -1
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                parts, level, last = [], 0, start + 1
                for k in range(start + 1, i):
                    level += {"{": 1, "}": -1}.get(text[k], 0)
                    if text[k] == "," and level == 0:
                        parts.append(text[last:k])
                        last = k + 1
                if not parts:
                    continue
                parts.append(text[last:i])
                rest = expand_braces(text[i + 1 :])
                return [
                    text[:start] + p + r
                    for part in parts
                    for p in expand_braces(part)
                    for r in rest
                ]
    return [text]


def _placed(path: str, every: str | None, where: Where) -> Place:
    text = _join(path, every) if every else path
    return Place(text, _forms(text, where), frozenset(_tags(path, where)))


def _join(folder: str, word: str) -> str:
    return posixpath.join(folder, posixpath.basename(word.rstrip("/")) or word)


def _names_every_entry(word: str) -> bool:
    last = posixpath.basename(word.rstrip("/")) if "/" in word.rstrip("/") else word
    return bool(last) and any(c in last for c in "*?[") and bool(_EVERY.match(last))


def _absolute(word: str, directory: str, where: Where) -> str | None:
    """The word as an absolute path, or None when it is only known at run time."""
    if "$(" in word or "`" in word or "<(" in word:
        return None
    if word.startswith("~"):
        head, _, tail = word.partition("/")
        base = where.home if head == "~" else _user_home(head[1:])
        return posixpath.join(base, tail) if tail else base
    if word.startswith("$"):
        m = _VAR.match(word)
        if m is None:
            return None
        name = m.group("b") or m.group("n")
        value = _variable(name, directory, where)
        if value is None:
            return None
        rest = word[m.end() :]
        return value + rest if rest.startswith("/") or not rest else None
    if word.startswith("/"):
        return word
    folder = _folder(directory, where)
    if folder is None:
        return None
    return posixpath.join(folder, word)


def _variable(name: str, directory: str, where: Where) -> str | None:
    if name == "HOME":
        return where.home
    if name == "PWD":
        return _folder(directory, where)
    if name == "TMPDIR":
        return where.tmpdir or "/tmp"
    return None


def _folder(directory: str, where: Where) -> str | None:
    """The absolute folder of the analysis's directory form."""
    if not directory:
        return where.root
    if directory.startswith("/"):
        return directory
    if directory.startswith("~") or directory.startswith("$"):
        return _absolute(directory, "", where)
    return posixpath.join(where.root, directory) if where.root else None


def _user_home(user: str) -> str:
    found = os.path.expanduser("~" + user) if user else "~"
    return found if found.startswith("/") else "/home/" + user


def _through_links(path: str, links: dict[str, str]) -> str:
    """A path through a link the command line made (`ln -s / r && rm -rf r/`)."""
    for _ in range(8):
        for link, target in links.items():
            if path == link or path.startswith(link.rstrip("/") + "/"):
                path = posixpath.normpath(target + path[len(link) :])
                break
        else:
            return path
    return path


def real_path(path: str) -> str:
    """`path` with its links resolved; as given where it cannot be (a loop, a NUL byte)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _under(path: str, folder: str) -> str | None:
    """ "is" or "inside" when `path` is `folder` or under it."""
    if path == folder:
        return "is"
    if path.startswith(folder.rstrip("/") + "/"):
        return "inside"
    return None


def _glob_under(path: str, folder: str) -> str | None:
    """ "is" or "inside" when a glob in `path` matches `folder` (`.g?t`, `.gi[t]/objects`): the
    shell expands it there when the folder exists. A leading dot is matched only by a dot, as
    bash does."""
    if not any(c in path for c in "*?["):
        return None
    have, want = path.split("/"), folder.split("/")
    if len(have) < len(want):
        return None
    for got, name in zip(have, want, strict=False):
        if got != name and not (
            got.startswith(".") == name.startswith(".") and fnmatch.fnmatchcase(name, got)
        ):
            return None
    return "is" if len(have) == len(want) else "inside"


def _tags(path: str, where: Where) -> set[str]:
    tags: set[str] = set()
    if not path.startswith("/"):
        return {"is:unknown"}
    if path == "/":
        tags.add("is:root")
    root = where.root
    if root:
        rel = _under(path, root)
        if rel:
            tags.add(f"{rel}:project")
        git = posixpath.join(root, ".git")
        rel = _under(path, git) or _glob_under(path, git)
        if rel:
            tags.add(f"{rel}:git")
    rel = _under(path, where.home)
    if rel:
        tags.add(f"{rel}:home")
    for parent in HOME_PARENTS:
        if path.startswith(parent + "/"):
            depth = path[len(parent) + 1 :].count("/")
            tags.add("is:home" if depth == 0 else "inside:home")
    if path == "/root" or path.startswith("/root/"):
        tags.add("is:home" if path == "/root" else "inside:home")
    tmp = [*TMP_FOLDERS, where.tmpdir] if where.tmpdir else TMP_FOLDERS
    in_tmp = None
    for folder in tmp:
        rel = _under(path, folder)
        if rel and (in_tmp is None or rel == "inside"):
            in_tmp = rel
    if in_tmp and root and _holds_project(path, root, tmp):
        in_tmp = None
    if in_tmp:
        tags.add(f"{in_tmp}:tmp")
    elif not any(t.endswith(":home") for t in tags) and not (root and _under(path, root)):
        for folder in SYSTEM_FOLDERS:
            rel = _under(path, folder)
            if rel:
                tags.add(f"{rel}:system")
                break
    return tags


def _holds_project(path: str, root: str, tmp: Sequence[str]) -> bool:
    """A project under a temp folder keeps its neighbours: a folder that holds it, and anything
    in the entry of the temp folder that holds it (`/tmp/work` for a project in
    `/tmp/work/a/app`, so `/tmp/work/b` too), is no scratch space; a project that is itself
    such an entry (`/tmp/app`) leaves the other entries (`/tmp/x`) to scratch."""
    if _under(root, path):
        return True
    for folder in tmp:
        if _under(root, folder) == "inside":
            entry = posixpath.join(folder, root[len(folder.rstrip("/")) + 1 :].split("/")[0])
            if entry != root and _under(path, entry) is not None:
                return True
    return False


def _forms(path: str, where: Where) -> tuple[str, ...]:
    """The path as a glob may be written: absolute, relative to the project when inside it,
    `~/…` when under home."""
    forms = [path]
    root = where.root
    if root and _under(path, root):
        forms.append(posixpath.relpath(path, root))
    if _under(path, where.home):
        rel = posixpath.relpath(path, where.home)
        forms.append("~" if rel == "." else "~/" + rel)
    # a case-insensitive file system (macOS, Windows) opens `.env` for `.ENV`
    forms += [f.lower() for f in forms if f.lower() != f]
    return tuple(dict.fromkeys(forms))


def _remote(word: str) -> Place:
    """A path on another machine or in a container: no project there; `~` is its home."""
    tags = {"inside:remote"}
    if word.startswith("~"):
        tail = word.partition("/")[2]
        tags.add("inside:home" if tail.strip("/.") else "is:home")
        return Place(word, (word,), frozenset(tags))
    if word.startswith("/"):
        path = posixpath.normpath(word)
        local = _tags(path, Where(root=None, home="/nonexistent-home", tmpdir=None, links={}))
        return Place(path, (path,), frozenset(tags | local))
    if word.startswith("$"):
        return Place(word, (word,), frozenset(tags | {"is:unknown"}))
    # relative: from the remote user's home folder
    path = posixpath.normpath(word)
    if path.startswith(".."):
        tags.add("is:unknown")
    else:
        tags.add("inside:home" if path != "." else "is:home")
    return Place("~/" + path if path != "." else "~", ("~/" + path,), frozenset(tags))
