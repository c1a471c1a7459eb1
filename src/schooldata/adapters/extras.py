"""Optional dependencies. The embedded default (SQLite and the bundled demo) installs none of
them; a configuration that needs one that is missing fails with one line naming the extra to
install, never with an ImportError from inside a driver."""

from __future__ import annotations


class MissingExtra(ImportError):
    """`needs` (what the configuration asked for) needs the optional dependencies of `extra`."""

    def __init__(self, needs: str, extra: str) -> None:
        super().__init__(
            f"{needs} needs the optional dependencies of schooldata[{extra}], which are not "
            f"installed: pip install 'schooldata[{extra}]'"
        )
        self.extra = extra
