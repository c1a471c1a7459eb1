"""schooldata: read-only UK school data as a Python library, a REST API, an MCP endpoint and a CLI.

The library facade (open a database, search, get a school, find nearby schools) lives in
:mod:`schooldata.library` and is re-exported here lazily, so importing the package (or its
domain layer) never loads SQLAlchemy or the web stack.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["SchoolDataClient", "__version__", "open_database"]

_LAZY = frozenset({"open_database", "SchoolDataClient", "SearchResults"})


def __getattr__(name: str) -> Any:
    # Resolved at attribute access, by name: the package root must not statically import the
    # composition root, or every layer that reads __version__ would depend on it.
    if name in _LAZY:
        return getattr(importlib.import_module("schooldata.library"), name)
    raise AttributeError(name)
