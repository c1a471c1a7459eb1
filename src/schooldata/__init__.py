"""schooldata: read-only UK school data as a Python library, a REST API, an MCP endpoint and a CLI.

The library facade (open a database, search, get a school, find nearby schools) lives in
:mod:`schooldata.library` and is re-exported here lazily so that importing the package stays
cheap and the domain layer stays free of the adapters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__"]

if TYPE_CHECKING:  # pragma: no cover
    pass


def __getattr__(name: str) -> Any:
    # Lazy re-export: `from schooldata import open_database` without importing SQLAlchemy
    # for callers who only want the domain types.
    if name in {"open_database", "SchoolDataClient"}:
        from schooldata import library

        return getattr(library, name)
    raise AttributeError(name)
