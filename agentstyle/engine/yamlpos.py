"""YAML with positions: every mapping key and value knows the span it was written at."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from agentstyle.source import Span


@dataclass(slots=True)
class YNode:
    """A YAML value with its span; `style` is the scalar style (None, '"', "'", '|', '>')."""

    value: Any
    span: Span
    style: str | None = None
    end: Span | None = None

    def plain(self) -> Any:
        return self.value

    def locate(self, offset: int) -> Span:
        """The file span of character `offset` inside this scalar's string value."""
        text = self.value if isinstance(self.value, str) else ""
        if self.style in ("|", ">"):
            # A block scalar's content starts on the line after the indicator; each content
            # line keeps its indentation, which we take from the first non-empty line.
            before = text[:offset]
            line_no = before.count("\n")
            col = offset - (before.rfind("\n") + 1)
            return Span(self.span.file, self.span.line + 1 + line_no, self._indent + 1 + col)
        quote = 1 if self.style in ('"', "'") else 0
        base = Span(self.span.file, self.span.line, self.span.column + quote)
        return base.shifted(text, offset)

    _indent: int = 0


@dataclass(slots=True)
class YMap(YNode):
    """A mapping; `items` keeps key nodes and value nodes in file order."""

    items: dict[str, tuple[YNode, YNode]] = field(default_factory=dict)

    def plain(self) -> dict[str, Any]:
        return {k: v.plain() for k, (_, v) in self.items.items()}

    def get(self, key: str) -> YNode | None:
        pair = self.items.get(key)
        return pair[1] if pair else None

    def key_span(self, key: str) -> Span:
        return self.items[key][0].span

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)

    def __contains__(self, key: object) -> bool:
        return key in self.items


@dataclass(slots=True)
class YSeq(YNode):
    nodes: list[YNode] = field(default_factory=list)

    def plain(self) -> list[Any]:
        return [n.plain() for n in self.nodes]


class YamlError(Exception):
    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


# libyaml's parser keeps the same marks and is ~10x faster: 10,000 rule files need it.
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[valid-type, misc]
    pass


def _span(file: str, mark: Any) -> Span:
    return Span(file, mark.line + 1, mark.column + 1)


def _build(node: yaml.Node, file: str, loader: _Loader, source_lines: list[str]) -> YNode:
    span = _span(file, node.start_mark)
    end = _span(file, node.end_mark)
    if isinstance(node, yaml.MappingNode):
        result = YMap(None, span, end=end)
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            key_y = YNode(key, _span(file, key_node.start_mark))
            value_y = _build(value_node, file, loader, source_lines)
            result.items[str(key) if not isinstance(key, str) else key] = (key_y, value_y)
        result.value = result.plain()
        return result
    if isinstance(node, yaml.SequenceNode):
        seq = YSeq(None, span, end=end)
        seq.nodes = [_build(n, file, loader, source_lines) for n in node.value]
        seq.value = seq.plain()
        return seq
    value = loader.construct_object(node, deep=True)
    scalar = YNode(value, span, getattr(node, "style", None), end)
    if scalar.style in ("|", ">"):
        first = node.start_mark.line + 1
        for line in source_lines[first : first + 200]:
            if line.strip():
                scalar._indent = len(line) - len(line.lstrip(" "))
                break
    return scalar


def load_yaml(text: str, file: str) -> YNode | None:
    """Parse one YAML document; None for an empty document. Raises YamlError with a span."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        return _build(root, file, loader, text.split("\n"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = _span(file, mark) if mark is not None else Span(file)
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise YamlError(f"invalid YAML: {problem}", span) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}", Span(file)) from None
    finally:
        loader.dispose()
