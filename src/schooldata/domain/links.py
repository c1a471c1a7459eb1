"""Links between establishments (GIAS links): predecessors, successors, merges."""

from __future__ import annotations

import datetime as dt

from attrs import frozen

from schooldata.domain.urn import Urn


@frozen
class EstablishmentLink:
    urn: Urn
    linked_urn: Urn
    linked_name: str | None
    link_type: str
    established: dt.date | None
