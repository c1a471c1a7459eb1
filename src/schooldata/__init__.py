"""schooldata: read-only UK school data as a Python library, a REST API, an MCP endpoint and a CLI.

The library facade (open a database, search, get a school, find nearby schools) lives in
:mod:`schooldata.library` and is re-exported here lazily, so importing the package (or its
domain layer) never loads SQLAlchemy or the web stack.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = [
    "SchoolDataClient",
    "__version__",
    "call",
    "export",
    "get_school",
    "nearby",
    "open_database",
    "search",
]

_LAZY = {
    "open_database": "schooldata.library",
    "SchoolDataClient": "schooldata.library",
    "SearchResults": "schooldata.library",
    # One client over the configured database, opened on first use (library/default.py).
    "search": "schooldata.library.default",
    "nearby": "schooldata.library.default",
    "get_school": "schooldata.library.default",
    "call": "schooldata.library.default",
    "export": "schooldata.library.default",
}


def __getattr__(name: str) -> Any:
    # Resolved at attribute access, by name: the package root must not statically import the
    # composition root, or every layer that reads __version__ would depend on it.
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    raise AttributeError(name)
