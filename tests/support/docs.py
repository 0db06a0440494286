"""The documentation as the site renders it, for the tests that check what the docs say."""

from __future__ import annotations

import importlib.util
from functools import cache

from tests.support.environment import REPO

DOCS = REPO / "docs"


@cache
def rendered_docs() -> dict[str, str]:
    """The pages of docs/ as the site renders them (their generated parts expanded), by path
    under docs/."""
    spec = importlib.util.spec_from_file_location("docsgen", DOCS / "hooks" / "docsgen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pages: dict[str, str] = module.rendered_pages()
    return pages
