"""Driven port: one refresh at a time per database."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol


class RefreshLock(Protocol):
    def hold(self) -> AbstractContextManager[bool]:
        """Take the lock without waiting: True inside the block while this refresh holds it,
        False when another refresh (any process, any machine sharing the database) does."""
        ...
