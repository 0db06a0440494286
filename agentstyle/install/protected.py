"""What self-protection guards on this machine: every place that could switch STYLE off.

Every file, folder and place that, changed by the agent, would switch STYLE off, weaken its
policy or hide what it did.

The list is computed at install (and sync, and the first hook's rebuild) from the install root,
the harnesses installed, the packages installed and the running STYLE itself, then turned into
the built-in rules (install/selfprotect.py). Each item says how its path is recognised in a
command or a file tool's path (`anchor`) and how much of it is guarded (`kind`):

- `file`: the file itself (`.claude/settings.json`);
- `folder`: the folder as a whole, not what else it holds: removing, moving, replacing or copying
  into `.claude/` is refused, writing `.claude/commands/x.md` is not;
- `tree`: the folder and everything in it (`.style/`, a package folder).

Anchors: `loose` names are distinctive enough to be recognised wherever they stand
(`.claude/settings.json` is refused in any folder: it is some harness's config either way);
`root` items are recognised relative to the project (`pkg/STYLE.yaml`, `./pkg/…`, `$PWD/pkg/…`,
the absolute path), `abs` ones by their absolute path and a short distinctive tail.
"""

from __future__ import annotations

import os
import shutil
import site
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.harnesses.install import system_path
from agentstyle.install.lockfile import HarnessInstall

# Categories, each one built-in rule (install/selfprotect.py has their messages).
HOOK_CONFIGS = "hook-configs"
POLICY = "policy"
STATE = "state"
CODE = "code"
CATEGORIES = (HOOK_CONFIGS, POLICY, STATE, CODE)


@dataclass(frozen=True, slots=True)
class Item:
    category: str
    kind: str  # file | folder | tree
    anchor: str  # loose | root | abs
    path: str  # loose: `/`-separated tail (`.claude/settings.json`); root: relative; abs: absolute

    @property
    def parts(self) -> list[str]:
        return [p for p in self.path.split("/") if p]


@dataclass(frozen=True, slots=True)
class Protected:
    """Everything guarded, and the folders that hold it (refused as a whole: `rm -rf .`)."""

    root: Path
    items: tuple[Item, ...]
    holders: tuple[str, ...]  # absolute folders: the project, the home folder, and above
    top_names: tuple[str, ...]  # names in the project folder that are guarded (`.claude`, …)

    def of(self, category: str) -> list[Item]:
        return [i for i in self.items if i.category == category]


def _forms(path: Path) -> list[str]:
    """A path as written and as it really is (a link on the way: `/tmp` on macOS)."""
    out = [path.absolute().as_posix()]
    try:
        real = path.resolve().as_posix()
    except OSError:
        real = out[0]
    if real not in out:
        out.append(real)
    return out


def _inside(path: str, folder: str) -> str | None:
    """`path` relative to `folder` when inside it."""
    if path == folder:
        return ""
    if folder != "/" and path.startswith(folder.rstrip("/") + "/"):
        return path[len(folder.rstrip("/")) + 1 :]
    return None


def _placed(category: str, kind: str, path: Path, root: Path) -> list[Item]:
    """An absolute path as items: relative to the project when inside it, else absolute."""
    out = []
    for form in _forms(path):
        for base in _forms(root):
            rel = _inside(form, base)
            if rel:
                out.append(Item(category, kind, "root", rel))
                break
        else:
            out.append(Item(category, kind, "abs", form))
    return out


def harness_items(harnesses: Iterable[str]) -> list[Item]:
    """A harness's files that can drop or disable STYLE's hooks, relative to the project and to
    the home folder, and its managed (system) settings (`HarnessSpec.config_folder`, …)."""
    out: list[Item] = []
    for name in sorted(harnesses):
        if name not in SUPPORTED:
            continue
        spec = spec_for(name)
        folder = spec.config_folder
        if folder is None:
            continue
        # The same names in the project and in the home folder (user scope): loose names.
        out.append(Item(HOOK_CONFIGS, "folder", "loose", folder))
        out += [
            Item(HOOK_CONFIGS, "file", "loose", f"{folder}/{f}") for f in spec.hook_config_files
        ]
        out += [Item(HOOK_CONFIGS, "file", "loose", f) for f in spec.other_hook_files]
        for path in spec.managed_configs:
            kind = "file" if Path(path).suffix else "tree"
            out.append(Item(HOOK_CONFIGS, kind, "abs", path))
            moved = system_path(path)  # STYLE_MANAGED_CONFIG_ROOT: where `--scope managed` wrote
            if moved != Path(path):
                out.append(Item(HOOK_CONFIGS, kind, "abs", moved.as_posix()))
    return out


def layer_items(root: Path) -> list[Item]:
    """The organisation's policy folder (its lock, its database) and the packages the other
    layers evaluated here install (docs/harnesses/index.md#layers)."""
    from agentstyle.folders import managed_root
    from agentstyle.install.layers import other_layers
    from agentstyle.install.library import ref_path

    out = _placed(POLICY, "tree", Path(managed_root()), root)
    try:
        found = other_layers(root)
    except Exception:  # an unreadable lock of another layer: its install reports it
        found = []
    for layer in found:
        out += package_items(root, [ref_path(layer.root, ref) for ref in layer.lock.packages])
    return out


def package_items(root: Path, packages: Sequence[str]) -> list[Item]:
    """The installed packages' sources. A package folder is guarded whole, unless it is the
    project itself (`style install .`): then its STYLE.yaml and rules/."""
    out: list[Item] = []
    roots = [Path(f) for f in _forms(root)]
    for package in packages:
        path = Path(package)
        if path.is_file() or path.suffix == ".md":  # a single-file package
            out += _placed(POLICY, "file", path, root)
            continue
        if any(p == r or p in r.parents for p in map(Path, _forms(path)) for r in roots):
            out += _placed(POLICY, "file", path / "STYLE.yaml", root)
            out += _placed(POLICY, "tree", path / "rules", root)
            continue
        out += _placed(POLICY, "tree", path, root)
    return out


def state_items(root: Path, home: Path) -> list[Item]:
    """`.style/`, the short socket folder and the session markers."""
    from agentstyle.runtime import client, tamper

    out = [Item(STATE, "tree", "loose", ".style")]
    if home != root / ".style":  # STYLE_HOME
        out += _placed(STATE, "tree", home, root)
    uid = os.getuid() if hasattr(os, "getuid") else 0
    out.append(Item(STATE, "tree", "loose", f"{client.RUNTIME_FOLDER}-{uid}"))
    out += _placed(STATE, "tree", tamper.state_folder().parent, root)
    out.append(Item(STATE, "tree", "loose", ".local/state/agentstyle"))
    return out


def _site_dirs() -> list[str]:
    """The site-packages folders this interpreter loads, and the one STYLE is installed in."""
    dirs = []
    for d in [*site.getsitepackages(), site.getusersitepackages()]:
        dirs += _forms(Path(d))
    import agentstyle

    parent = Path(agentstyle.__file__).parent.parent
    if parent.name in ("site-packages", "dist-packages"):
        dirs += _forms(parent)
    return list(dict.fromkeys(dirs))


def code_items(root: Path) -> list[Item]:
    """The running STYLE: its package folder, the site-packages entries that load it (and any
    `.pth` file or sitecustomize, which run code in every interpreter that starts), the
    `style` and `style-hook` scripts the hook configs run, and the interpreter."""
    import agentstyle

    out = _placed(CODE, "tree", Path(agentstyle.__file__).parent, root)
    for d in _site_dirs():
        if d == root.as_posix() or _inside(root.as_posix(), d) is not None:
            continue  # an editable install from this project: its folder is the package above
        # `agentstyle/`, `agentstyle-1.0.dist-info/`, `__editable__…agentstyle….pth`.
        out.append(Item(CODE, "tree", "abs", f"{d}/*agentstyle*"))
        out.append(Item(CODE, "file", "abs", f"{d}/*.pth"))
        out.append(Item(CODE, "file", "abs", f"{d}/*customize.py"))
    # Wherever they are: the entries of any site-packages folder, and a `style-hook` script
    # (one earlier on PATH would be what a committed hook config runs).
    out.append(Item(CODE, "tree", "loose", "site-packages/agentstyle"))
    out.append(Item(CODE, "file", "loose", "site-packages/*.pth"))
    out.append(Item(CODE, "file", "loose", "style-hook"))
    scripts = [shutil.which("style"), shutil.which("style-hook")]
    bindir = Path(sys.executable).parent
    scripts += [str(bindir / "style"), str(bindir / "style-hook")]
    for script in filter(None, scripts):
        out += _placed(CODE, "file", Path(script), root)
    out += _placed(CODE, "file", Path(sys.executable), root)
    return out


def holders(root: Path, home: Path) -> list[str]:
    """The project folder, the home folder and every folder above them (absolute)."""
    out: list[str] = []
    for start in (*_forms(root), *_forms(home)):
        p = Path(start)
        for folder in (p, *p.parents):
            if folder.as_posix() not in out:
                out.append(folder.as_posix())
    return out


def protected(
    root: Path,
    harnesses: Mapping[str, HarnessInstall],
    packages: Sequence[str],
    style_home: Path,
) -> Protected:
    items = [
        *harness_items(harnesses),
        Item(POLICY, "file", "loose", "style.lock.yaml"),
        *package_items(root, packages),
        *state_items(root, style_home),
        *code_items(root),
        *layer_items(root),
    ]
    home = Path(os.path.expanduser("~"))
    tops = []
    for item in items:
        if item.anchor in ("loose", "root") and len(item.parts) >= 1 and "*" not in item.path:
            first = item.parts[0]
            if item.anchor == "root" or (root / first).exists() or first.startswith("."):
                tops.append(first)
    return Protected(
        root=root,
        items=tuple(dict.fromkeys(items)),
        holders=tuple(holders(root, home)),
        top_names=tuple(dict.fromkeys(t for t in tops if t not in ("site-packages",))),
    )
