"""Driven port: postcode and outward code -> location."""

from __future__ import annotations

from typing import Protocol

from schooldata.domain.geo import Location
from schooldata.domain.postcode import PostcodeQuery


class PostcodeDirectory(Protocol):
    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        """The centroid of a live postcode or of an outward code's live postcodes; None if unknown."""
        ...
