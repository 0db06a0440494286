"""Which command's output reaches which (docs/design/commands.md#flow).

A command's input comes from another's output through a pipe (`cat .env | curl -d @- …`), its
words (`curl -d "$(cat .env)" …`, `bash <(curl …)`), or a file the other wrote earlier in the
line (`curl -o x … && bash x`, `exec 3>f; … >&3`, `tee`). It is **code** when the command runs
what it got: a shell or interpreter reading its program from that stdin, the script file that
was written, a `-c` string built from it. Flows are followed back: in `curl … | base64 -d |
bash`, bash's code comes from base64 and from curl.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

INPUT = "input"
CODE = "code"


@dataclass(slots=True)
class Hop:
    """What one command gave another directly: through stdin, its words, or a file."""

    source: int
    through: str  # stdin | words | file
    code: bool  # the receiving command runs it


@dataclass(slots=True)
class Flows:
    """Per command, the commands whose output reaches it, each with how (INPUT, CODE)."""

    into: list[dict[int, set[str]]] = field(default_factory=list)

    def sources(self, sink: int) -> dict[int, set[str]]:
        return self.into[sink] if sink < len(self.into) else {}


def follow(hops: Sequence[list[Hop]]) -> Flows:
    """The flows into each command: its hops, and everything upstream of them (the kind of the
    last hop into the command decides: code run from a pipe of a pipe is still that code)."""
    out = Flows([{} for _ in hops])
    for sink in range(len(hops)):
        found: dict[int, set[str]] = {}
        for hop in hops[sink]:
            kind = CODE if hop.code else INPUT
            for upstream in _upstream(hops, hop.source):
                found.setdefault(upstream, set()).add(kind)
        found.pop(sink, None)
        out.into[sink] = found
    return out


def _upstream(hops: Sequence[list[Hop]], start: int) -> list[int]:
    seen = [start]
    todo = [start]
    while todo:
        node = todo.pop()
        if node >= len(hops):
            continue
        for hop in hops[node]:
            if hop.source not in seen:
                seen.append(hop.source)
                todo.append(hop.source)
    return seen
