"""Plain slotted records for the modules the hook's fast path loads.

A class made with the `Slotted` metaclass names its fields as annotations, each with its default
if it has one, and gets `__slots__` and an `__init__` that sets them from its arguments, as a
dataclass does. `dataclasses` and `typing` cost those modules most of their import time (every
hook imports `harnesses` and `runtime.hookcall`, every shell event `shell`), so each of them
wrote the same constructor by hand instead. Nothing else is made: no `__eq__`, `__repr__` or
`__hash__` (a record is equal to itself alone unless it says otherwise), no frozen fields (the
type checker holds `Final` ones).

The type checker reads a `Slotted` class as a dataclass (`dataclass_transform`): it checks
each construction against the fields. `_: KW_ONLY` (an annotation alone: `KW_ONLY` is imported
for the type checker only) makes the fields after it keyword-only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads this name as typing's (`typing` costs the fast path)
if TYPE_CHECKING:
    from typing import Any, dataclass_transform
else:

    def dataclass_transform():  # the type checker's alone
        return lambda cls: cls


_KW_ONLY = "KW_ONLY"  # the annotation that makes the fields after it keyword-only


@dataclass_transform()
class Slotted(type):
    """The metaclass of a record: `class Point(metaclass=Slotted): x: int; y: int = 0`."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Slotted:
        if bases:
            raise TypeError(f"{name}: a record has no bases")
        fields: list[str] = []
        positional = -1  # how many fields may be given by position (-1: all)
        defaults: dict[str, object] = {}
        for field, annotation in namespace.get("__annotations__", {}).items():
            if annotation == _KW_ONLY:
                positional = len(fields)
                continue
            fields.append(field)
            if field in namespace:  # a default: as a class attribute it would clash with the slot
                defaults[field] = namespace.pop(field)
        namespace["__slots__"] = tuple(fields)
        namespace["_fields"] = tuple(fields)
        namespace["_defaults"] = defaults
        namespace["_positional"] = len(fields) if positional < 0 else positional
        namespace.setdefault("__init__", _init)
        return super().__new__(mcls, name, bases, namespace)


def _init(self: Any, *args: object, **kwargs: object) -> None:
    """Sets each field from its argument (by position, then by name) or its default."""
    cls = type(self)
    fields: tuple[str, ...] = cls._fields
    if len(args) > cls._positional:
        raise TypeError(f"{cls.__name__}() takes {cls._positional} positional arguments")
    for field, value in zip(fields, args, strict=False):
        setattr(self, field, value)
    defaults: dict[str, object] = cls._defaults
    for field in fields[len(args) :]:
        if field in kwargs:
            setattr(self, field, kwargs.pop(field))
        elif field in defaults:
            setattr(self, field, defaults[field])
        else:
            raise TypeError(f"{cls.__name__}() missing argument {field!r}")
    if kwargs:
        raise TypeError(f"{cls.__name__}() got unexpected arguments {sorted(kwargs)}")
