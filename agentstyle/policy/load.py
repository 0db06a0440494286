"""Load a package (directory or single file) into plain data, collecting every load diagnostic.

Here the rules (inline, from files, `from` entries) and native hooks; the manifest and the
fields of a rule are read by the part it is built on, `manifest.py`."""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic, StyleError, did_you_mean, suggestion
from agentstyle.globs import glob_to_regex
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.policy.files import MAX_RULE_FILES, list_rule_files
from agentstyle.policy.manifest import HARNESSES, INVALID, ManifestLoader, id_problem, quote_hint
from agentstyle.policy.model import FieldValue, NativeHook, Package, Rule
from agentstyle.policy.yamlpos import YMap, YNode, YSeq, text_node
from agentstyle.source import Span
from agentstyle.vocabulary import (
    DEFAULTABLE_FIELDS,
    EVENTS,
    INLINE_ONLY_FIELDS,
    PACKAGE_FIELDS,
    RULE_FIELDS,
)

NATIVE_HOOK_FIELDS = ("id", "event", "matcher", "command", "timeout", "harness")


@dataclass(slots=True)
class LoadResult:
    package: Package | None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def bad_id(node: YNode, problem: str) -> Diagnostic:
    shown = node.value if isinstance(node.value, str) else node.source_text() or node.value
    return Diagnostic.make(codes.BAD_ID, f"rule id `{shown}` {problem}", node.span).hinted(
        quote_hint(node)
    )


@functools.cache
def native_names() -> tuple[dict[str, str], dict[str, str]]:
    """Native event names → normalized event, native tool names → normalized tool, over every
    harness (the first harness's reading wins where two differ)."""
    events: dict[str, str] = {}
    tools: dict[str, str] = {}
    for harness in SUPPORTED:
        spec = spec_for(harness)
        for native in spec.native_events():
            point = spec.point_of(native)
            if point is not None:
                events.setdefault(native, point)
        for native, point in spec.extra_native_events.items():
            events.setdefault(native, point)
        for tool, names in spec.tool_names.items():
            for native in names:
                tools.setdefault(native, tool)
    return events, tools


def unknown_event(event: Any, span: Span, rule: str | None) -> Diagnostic:
    """`unknown-event` for a name that is not normalized, with the normalized name meant: a
    close one (`tool.per`), or the one a harness's native name stands for (`PreToolUse`)."""
    native = native_names()[0].get(event) if isinstance(event, str) else None
    if native is not None:
        message = f"`{event}` is a harness's native event name, not a normalized one"
        return Diagnostic.make(codes.UNKNOWN_EVENT, message, span, rule=rule).hinted(
            suggestion(native)
        )
    message = f"`{event}` is not a normalized event name"
    return Diagnostic.make(codes.UNKNOWN_EVENT, message, span, rule=rule).hinted(
        did_you_mean(event, EVENTS)
    )


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(front matter YAML padded to keep file line numbers, body, 1-based body line)."""
    if not (text.startswith("---\n") or text == "---"):
        return None, text, 1
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            fm = "\n".join(["", *lines[1:i]])
            body = "\n".join(lines[i + 1 :])
            # With nothing after the closing `---`, the body "starts" on that line.
            return fm, body, min(i + 2, len(lines))
    return None, text, 1


def trim_body(body: str, first_line: int) -> tuple[str, int]:
    """Leading blank lines and trailing whitespace removed; returns the new first line.

    An empty body keeps `first_line`, so that its diagnostic points inside the file.
    """
    lines = body.split("\n")
    skipped = 0
    while skipped < len(lines) and not lines[skipped].strip():
        skipped += 1
    text = "\n".join(lines[skipped:]).rstrip()
    return text, first_line + skipped if text else first_line


class _Loader(ManifestLoader):
    """One package load: its manifest (ManifestLoader), then its rules."""

    # -- rules -------------------------------------------------------------------------------

    def defaults(self, node: YNode | None) -> dict[str, FieldValue]:
        if node is None:
            return {}
        if not isinstance(node, YMap):
            self.emit(codes.INVALID_SCHEMA, "field `defaults` must be a mapping", node.span)
            return {}
        return self.rule_fields(
            node, "defaults", allowed=set(DEFAULTABLE_FIELDS), where="`defaults`", rule=None
        )

    def rules(self, node: YNode | None, pkg: Package, defaults: dict[str, FieldValue]) -> None:
        if node is None:
            return
        claimed: dict[str, Span] = {}
        inline_allowed = set(RULE_FIELDS) - {"from"}
        all_files: list[str] | None = None
        for item in self.entries(
            node,
            codes.INVALID_PACKAGE,
            "`rules` must be a list",
            "each item of `rules` must be a mapping",
        ):
            # Typos are read as meant before the entry's kind is known (`fom:` is a `from`).
            item = self.recover(item, list(RULE_FIELDS), "rule field", self.item_id(item))
            if "from" in item:
                if all_files is None:
                    all_files = list_rule_files(self.root)
                    if len(all_files) > MAX_RULE_FILES:
                        self.emit(
                            codes.INVALID_PACKAGE,
                            f"`rules/` holds {len(all_files)} rule "
                            f"files, over the limit of {MAX_RULE_FILES}",
                            node.span,
                        )
                        all_files = all_files[:MAX_RULE_FILES]
                self.from_entry(item, pkg, defaults, all_files, claimed)
            else:
                self.inline_rule(item, pkg, defaults, inline_allowed)

    @staticmethod
    def item_id(item: YMap) -> str | None:
        node = item.get("id")
        return node.value if node is not None and id_problem(node.value) is None else None

    def inline_rule(
        self, item: YMap, pkg: Package, defaults: dict[str, FieldValue], allowed: set[str]
    ) -> None:
        id_node = item.get("id")
        rule_id = id_node.value if id_node is not None and isinstance(id_node.value, str) else None
        if id_node is None:
            self.emit(codes.INLINE_MISSING_ID, "inline rule has no `id`", item.span)
        else:
            problem = id_problem(id_node.value)
            if problem:
                self.diags.append(bad_id(id_node, problem))
                rule_id = None
        label = f"rule `{rule_id}`" if rule_id else "a rule without a valid id"
        fields = self.rule_fields(
            item, "inline", allowed=allowed, where="an inline rule", rule=rule_id
        )
        has_file, has_text = "file" in item, "text" in item
        body: str | None = None
        body_node: YNode | None = None
        if has_file and has_text:
            self.emit(
                codes.FILE_AND_TEXT,
                f"{label} has both `file` and `text`",
                item.key_span("file"),
                rule_id,
            )
        elif not has_file and not has_text:
            self.emit(
                codes.INVALID_SCHEMA,
                f"{label} needs `text` or `file`",
                item.span,
                rule_id,
            )
        elif has_text and _is_valid(fields, "text"):
            body_node = fields["text"].node
            body = fields["text"].value
            # Leading blank lines are kept in the string so offsets still map to the file.
            self.body_checks(body, body_node, rule_id)
            body = body.rstrip()
        elif has_file and _is_valid(fields, "file"):
            body, body_node = self.file_body(fields["file"].node, rule_id)
        if id_node is None or rule_id is None:
            return
        fields.pop("text", None)
        fields.pop("file", None)
        fields.pop("id", None)
        if body is None or body_node is None:
            # The rule still counts for dup-id and later checks need its fields.
            body, body_node = "", text_node("", item.span)
        self.add_rule(
            pkg,
            Rule(
                rule_id,
                item.span,
                {**defaults, **fields},
                body,
                body_node,
                len(pkg.rules),
                item.span.file,
            ),
            id_node.span,
        )

    def add_rule(self, pkg: Package, rule: Rule, id_span: Span) -> None:
        self.id_spans[id(rule)] = id_span
        pkg.rules.append(rule)

    def file_body(self, node: YNode, rule: str | None) -> tuple[str | None, YNode | None]:
        rel = node.value
        norm = posixpath.normpath(rel.replace("\\", "/")) if rel else ""
        if norm == "rules" or norm.startswith("rules/"):
            self.emit(
                codes.FILE_INTO_RULES,
                f"`file: {rel}` points under `rules/`; use a `from` entry",
                node.span,
                rule,
            )
            return None, None
        pf = self.read(rel, node.span)
        if pf is None:
            return None, None
        if _under_rules(self.root, rel):
            # A body that is a symbolic link into rules/ is a rule file all the same.
            self.emit(
                codes.FILE_INTO_RULES,
                f"`file: {rel}` resolves to a file under `rules/`; use a `from` entry",
                node.span,
                rule,
            )
            return None, None
        fm, _, _ = split_front_matter(pf.text)
        if fm is not None:
            self.emit(
                codes.BODY_HAS_FRONTMATTER,
                f"`{rel}` starts with front matter; a `file` body is plain text",
                Span(pf.display, 1, 1),
                rule,
            )
            return None, None
        text, first = trim_body(pf.text, 1)
        body_node = text_node(text, Span(pf.display, first, 1))
        self.body_checks(text, body_node, rule)
        return text, body_node

    def from_entry(
        self,
        item: YMap,
        pkg: Package,
        defaults: dict[str, FieldValue],
        all_files: list[str],
        claimed: dict[str, Span],
    ) -> None:
        from_node = item.items["from"][1]
        pattern = from_node.value
        # These keys get their own codes; they are not also reported as invalid overrides.
        own_code = {
            "id": codes.FROM_AND_INLINE,
            "file": codes.FROM_AND_INLINE,
            "text": codes.FROM_AND_INLINE,
        }
        own_code["target"] = codes.OVERRIDE_TARGET
        for key, code in own_code.items():
            if key not in item:
                continue
            if code == codes.OVERRIDE_TARGET:
                message = "a `from` entry cannot override `target`; set it in each rule file"
            else:
                message = f"a `from` entry cannot declare `{key}`"
            self.emit(code, message, item.key_span(key))
        if not isinstance(pattern, str) or not pattern.strip():
            self.emit(codes.INVALID_PACKAGE, "`from` must be a non-empty glob", from_node.span)
            return
        norm = pattern.strip()
        while norm.startswith("./"):
            norm = norm[2:]
        if not norm.startswith("rules/") or not norm.endswith(".md") or ".." in norm.split("/"):
            self.emit(
                codes.INVALID_SCHEMA,
                f"`from: {pattern}` must name `.md` files under `rules/`",
                from_node.span,
            )
            return
        try:
            regex = re.compile(glob_to_regex(norm))
        except (ValueError, re.error) as exc:
            self.emit(codes.INVALID_SCHEMA, f"`from: {pattern}`: {exc}", from_node.span)
            return
        override_node = YMap(None, item.span)
        override_node.items = {k: v for k, v in item.items.items() if k not in own_code}
        del override_node.items["from"]
        overrides = self.rule_fields(
            override_node,
            "override",
            allowed=set(RULE_FIELDS) - INLINE_ONLY_FIELDS - {"target"},
            where="a `from` entry",
            rule=None,
        )
        matched = [f for f in all_files if regex.fullmatch(f)]
        if not matched:
            self.emit(
                codes.FILE_NOT_FOUND, f"`from: {pattern}` matches no rule file", from_node.span
            )
            return
        for rel in matched:
            if rel in claimed:
                first = claimed[rel]
                rule_id = rel[len("rules/") : -len(".md")]
                self.emit(
                    codes.DUP_ID,
                    f"rule `{rule_id}` is matched by two `from` globs (first at line {first.line})",
                    from_node.span,
                    rule_id,
                )
                continue
            claimed[rel] = from_node.span
            self.rule_file(rel, from_node.span, pkg, defaults, overrides)

    def rule_file(
        self,
        rel: str,
        at: Span,
        pkg: Package,
        defaults: dict[str, FieldValue],
        overrides: dict[str, FieldValue],
    ) -> None:
        rule_id = rel[len("rules/") : -len(".md")]
        pf = self.read(rel, at)
        if pf is None:
            return
        problem = id_problem(rule_id)
        if problem:
            self.emit(
                codes.BAD_ID,
                f"rule id `{rule_id}` (from its path) {problem}",
                Span(pf.display, 1, 1),
                rule_id,
            )
            return
        fm, body_raw, body_line = split_front_matter(pf.text)
        front: dict[str, FieldValue] = {}
        if fm is not None:
            fm_node = self.parse(fm, pf.display)
            if fm_node is not None and not isinstance(fm_node, YMap):
                self.emit(
                    codes.INVALID_SCHEMA, "front matter must be a mapping", fm_node.span, rule_id
                )
            elif isinstance(fm_node, YMap):
                pkg_only = set(PACKAGE_FIELDS) - set(RULE_FIELDS)
                for key in list(fm_node):
                    if key in pkg_only:
                        self.emit(
                            codes.RULE_FILE_PKG_FIELD,
                            f"rule file front matter cannot set package field `{key}`",
                            fm_node.key_span(key),
                            rule_id,
                        )
                        del fm_node.items[key]
                front = self.rule_fields(
                    fm_node,
                    "front-matter",
                    allowed=set(RULE_FIELDS) - INLINE_ONLY_FIELDS,
                    where="rule file front matter",
                    rule=rule_id,
                )
        body, first = trim_body(body_raw, body_line)
        body_node = text_node(body, Span(pf.display, first, 1))
        self.body_checks(body, body_node, rule_id)
        self.add_rule(
            pkg,
            Rule(
                rule_id,
                Span(pf.display, 1, 1),
                {**defaults, **front, **overrides},
                body,
                body_node,
                len(pkg.rules),
                pf.display,
                rule_file=rel,
            ),
            at,
        )

    def native_hooks(self, node: YNode | None, pkg: Package) -> None:
        for item in self.entries(
            node,
            codes.INVALID_PACKAGE,
            "`native_hooks` must be a list",
            "each native hook must be a mapping",
        ):
            item = self.recover(item, NATIVE_HOOK_FIELDS, "native hook field")
            values = item.plain()
            id_node = item.get("id")
            hook_id: str | None = None
            if id_node is None:
                self.emit(codes.INLINE_MISSING_ID, "native hook has no `id`", item.span)
            elif problem := id_problem(id_node.value):
                self.emit(codes.BAD_ID, f"native hook id `{id_node.value}` {problem}", id_node.span)
            else:
                hook_id = id_node.value
                self.hook_ids.append((hook_id, id_node.span))
            ok = hook_id is not None
            event = values.get("event")
            event_node = item.get("event")
            if event_node is None:
                self.emit(
                    codes.UNKNOWN_EVENT,
                    f"native hook `{hook_id}` needs an `event`",
                    item.span,
                    hook_id,
                )
                ok = False
            elif not isinstance(event, str) or event not in EVENTS:
                self.diags.append(unknown_event(event, event_node.span, hook_id))
                ok = False
            command = values.get("command")
            if not isinstance(command, str) or not command.strip():
                command_node = item.get("command")
                self.emit(
                    codes.INVALID_SCHEMA,
                    f"native hook `{hook_id}` needs a `command` string",
                    command_node.span if command_node is not None else item.span,
                    hook_id,
                )
                ok = False
            timeout = values.get("timeout")
            if timeout is not None and (
                isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1
            ):
                self.bad_hook_field(item, "timeout", "must be a positive integer", hook_id)
                timeout = None
            harness = values.get("harness")
            if harness is not None and (not isinstance(harness, str) or harness not in HARNESSES):
                self.diags.append(
                    Diagnostic.make(
                        codes.INVALID_SCHEMA,
                        f"unknown harness `{harness}` (expected one of: {', '.join(HARNESSES)})",
                        item.items["harness"][1].span,
                        rule=hook_id,
                    ).hinted(did_you_mean(harness, HARNESSES))
                )
                ok = False
            matcher = values.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                self.bad_hook_field(item, "matcher", "must be a string", hook_id)
                ok = False
            if ok and hook_id is not None:
                pkg.native_hooks.append(
                    NativeHook(
                        hook_id, str(event), str(command), matcher, timeout, harness, item.span
                    )
                )

    def bad_hook_field(self, item: YMap, key: str, must: str, hook_id: str | None) -> None:
        """A native hook field of the wrong type, said at its value (`must`: what it must be)."""
        self.emit(
            codes.INVALID_SCHEMA, f"native hook `{key}` {must}", item.items[key][1].span, hook_id
        )

    def dup_ids(self, pkg: Package) -> None:
        seen: dict[str, Span] = {}
        entries = [(r.id, self.id_spans.get(id(r), r.span)) for r in pkg.rules]
        entries += self.hook_ids
        for rule_id, span in entries:
            if rule_id in seen:
                first = seen[rule_id]
                where = f"line {first.line}" if first.file == span.file else str(first)
                self.emit(codes.DUP_ID, f"id `{rule_id}` is already used at {where}", span, rule_id)
            else:
                seen[rule_id] = span


def _is_valid(fields: dict[str, FieldValue], key: str) -> bool:
    fv = fields.get(key)
    return fv is not None and fv.origin != INVALID


def _under_rules(root: Path, rel: str) -> bool:
    """Whether `rel` resolves to a path inside the package's `rules/` folder."""
    try:
        return (root / rel).resolve().is_relative_to((root / "rules").resolve())
    except (OSError, RuntimeError):
        return False


def _display(path: Path) -> str:
    try:
        rel = path.resolve().relative_to(Path.cwd().resolve())
        return rel.as_posix() or "."
    except ValueError:
        return path.resolve().as_posix()


def load_package(path: str | Path) -> LoadResult:
    """Load a directory package or a single-file package. Missing paths raise StyleError."""
    p = Path(path)
    if not p.exists():
        raise StyleError(f"{path}: no such package (not a file or directory)")
    if p.is_dir():
        if not (p / "STYLE.yaml").exists():
            raise StyleError(f"{_display(p)}: not a STYLE package (no STYLE.yaml in this folder)")
        return _load_directory(p)
    if p.name == "STYLE.yaml":
        return _load_directory(p.parent)
    if p.suffix == ".md":
        return _load_single_file(p)
    raise StyleError(
        f"{_display(p)}: not a STYLE package (expected a folder with STYLE.yaml "
        "or a NAME.md single-file package)"
    )


def _load_directory(root: Path) -> LoadResult:
    display = _display(root)
    ld = _Loader(root, display)
    manifest_span = Span(f"{display}/STYLE.yaml" if display != "." else "STYLE.yaml")
    pf = ld.read("STYLE.yaml", manifest_span)
    if pf is None:
        return LoadResult(None, ld.diags)
    top = ld.parse(pf.text, pf.display)
    if top is None:
        if not ld.diags:
            ld.emit(codes.INVALID_PACKAGE, "`STYLE.yaml` is empty", manifest_span)
        return LoadResult(None, ld.diags)
    if not isinstance(top, YMap):
        ld.emit(codes.INVALID_PACKAGE, "`STYLE.yaml` must be a mapping of package fields", top.span)
        return LoadResult(None, ld.diags)
    top = ld.top_keys(top, single_file=False)
    pkg = ld.manifest(top, pf.display, single_file=False)
    if pkg is None:
        return LoadResult(None, ld.diags)
    defaults = ld.defaults(top.get("defaults"))
    ld.rules(top.get("rules"), pkg, defaults)
    ld.native_hooks(top.get("native_hooks"), pkg)
    ld.exceptions(top.get("exceptions"), pkg)
    rules_node, hooks_node = top.get("rules"), top.get("native_hooks")
    empty_rules = rules_node is None or (isinstance(rules_node, YSeq) and not rules_node.nodes)
    empty_hooks = hooks_node is None or (isinstance(hooks_node, YSeq) and not hooks_node.nodes)
    if empty_rules and empty_hooks and not pkg.exceptions:
        where = top.key_span("rules") if rules_node is not None else top.span
        ld.emit(codes.INVALID_PACKAGE, "the package has no `rules` and no `native_hooks`", where)
    ld.dup_ids(pkg)
    pkg.digest = ld.digest.hexdigest()
    return LoadResult(pkg, ld.diags)


def _load_single_file(path: Path) -> LoadResult:
    root = path.parent
    root_display = _display(root)
    ld = _Loader(root, root_display)
    pf = ld.read(path.name, Span(_display(path)))
    if pf is None:
        return LoadResult(None, ld.diags)
    fm, body_raw, body_line = split_front_matter(pf.text)
    if fm is None:
        ld.emit(
            codes.INVALID_PACKAGE,
            "a single-file package starts with `---` front matter",
            Span(pf.display, 1, 1),
        )
        return LoadResult(None, ld.diags)
    top = ld.parse(fm, pf.display)
    if not isinstance(top, YMap):
        ld.emit(
            codes.INVALID_PACKAGE,
            "front matter must be a mapping of package fields",
            top.span if top is not None else Span(pf.display, 1, 1),
        )
        return LoadResult(None, ld.diags)
    top = ld.top_keys(top, single_file=True)
    pkg = ld.manifest(top, pf.display, single_file=True)
    if pkg is None:
        return LoadResult(None, ld.diags)
    # `priority` is the package's; its one rule inherits it like any rule.
    rule_keys = YMap(None, top.span)
    rule_keys.items = {k: v for k, v in top.items.items() if k in RULE_FIELDS and k != "priority"}
    rule_id = pkg.name
    id_node = top.get("id")
    if id_node is not None:
        problem = id_problem(id_node.value)
        if problem:
            ld.diags.append(bad_id(id_node, problem))
        else:
            rule_id = id_node.value
    fields = ld.rule_fields(
        rule_keys,
        "front-matter",
        allowed=set(RULE_FIELDS) - {"from", "file", "text"},
        where="a single-file package",
        rule=rule_id,
    )
    fields.pop("id", None)
    body, first = trim_body(body_raw, body_line)
    body_node = text_node(body, Span(pf.display, first, 1))
    ld.body_checks(body, body_node, rule_id)
    pkg.rules.append(Rule(rule_id, Span(pf.display, 1, 1), fields, body, body_node, 0, pf.display))
    pkg.digest = ld.digest.hexdigest()
    return LoadResult(pkg, ld.diags)
