"""The hook path's records (agentstyle/slotted.py) construct as the hand-written classes they
replaced did: by position then by name, defaults filled in, keyword-only fields after `KW_ONLY`,
slots and no instance dict, and a TypeError for a wrong call."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agentstyle.harnesses import HARNESSES, HookFacts, written
from agentstyle.limits import WATCHDOG_AFTER_S
from agentstyle.runtime.hookcall import HookCall
from agentstyle.slotted import Slotted

if TYPE_CHECKING:
    from dataclasses import KW_ONLY


class Point(metaclass=Slotted):
    x: int
    y: int = 0
    _: KW_ONLY
    label: str = "p"

    def moved(self) -> tuple[int, int]:
        return self.x + 1, self.y + 1


def test_fields_by_position_by_name_and_by_default() -> None:
    assert vars(Point)["__slots__"] == ("x", "y", "label")
    p = Point(1)
    assert (p.x, p.y, p.label) == (1, 0, "p")
    q = Point(2, 3, label="q")
    assert (q.x, q.y, q.label, q.moved()) == (2, 3, "q", (3, 4))
    assert (Point(y=5, x=4).x, Point(y=5, x=4).y) == (4, 5)
    assert not hasattr(p, "__dict__")
    with pytest.raises(AttributeError):
        p.z = 1  # type: ignore[attr-defined]


def test_a_wrong_call_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="missing argument 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        Point(1, 2, "q")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected"):
        Point(1, z=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected"):
        Point(1, x=2)  # type: ignore[misc]


def test_a_default_is_shared_not_a_class_attribute_per_instance() -> None:
    a, b = Point(1), Point(2)
    a.y = 7
    assert b.y == 0 and Point(3).y == 0


def test_the_hook_records_keep_their_defaults() -> None:
    facts = HookFacts("x")
    assert (facts.session_key, facts.per_second, facts.refusal_exit, facts.roots_key) == (
        "session_id",
        1,
        2,
        None,
    )
    assert written("codex", "SessionEnd") == 3 and written("codex", "Stop") == 4
    assert written("gemini-cli", "BeforeTool") == 4000
    assert HARNESSES["cursor"].runs_other_configs
    call = HookCall.served("codex", "Stop", False, 2.0, "/e/.style")
    assert (call.project_dirs, call.cwd, call.via_plugin) == ((), None, False)
    assert call.watchdog_at == call.deadline + call.grace + WATCHDOG_AFTER_S
