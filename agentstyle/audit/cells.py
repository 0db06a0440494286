"""How a report cell shows a number, the same in the text and the html report."""

from __future__ import annotations


def scalar_text(column: str, value: bool | float) -> str:
    """A yes/no or a float as every report shows it (text and html): rates as percentages,
    milliseconds to two places, other floats to three without trailing zeros."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column.endswith("_rate"):
        return f"{value * 100:.1f}%"
    if column.endswith("_ms"):
        return f"{value:.2f}"
    return f"{value:.3f}".rstrip("0").rstrip(".")
