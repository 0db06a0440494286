"""DuckDB's engine, loaded without the Python package around it.

`import duckdb` costs a fresh interpreter ~105 ms of CPU: the package reads its own version
through importlib.metadata and builds its relational API's Python layer at import. The engine
that package re-exports, the `_duckdb` extension module (with type stubs of its own), loads in
~24 ms and is the same classes, functions and exceptions: a direct hook answers in ~60 ms less
CPU. Every module of STYLE takes DuckDB from here (docs/performance.md#what-a-direct-hook-costs).
A DuckDB release that keeps its engine inside the package instead has no `_duckdb`: then the
package is loaded.
"""

from __future__ import annotations

try:
    import _duckdb as duckdb
except ImportError:  # pragma: no cover - an older DuckDB layout
    import duckdb  # type: ignore[no-redef]

__all__ = ["duckdb"]
