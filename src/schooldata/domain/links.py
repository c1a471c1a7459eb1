"""Links between establishments (GIAS links): predecessors, successors, merges; what the
register says of an establishment whether or not it is served; and a school's predecessors.

- A link names the establishment it leads to as the register lists it (`linked`: name,
  status, opening and closing dates), closed ones included; None where the register file
  imported does not list it (then only the links file's name is known).
- Predecessors are followed through the links of the conversion and amalgamation kinds
  (PREDECESSOR_LINK_TYPES: GIAS writes a converted academy's old school as `Predecessor`,
  an amalgamation's as `Predecessor - amalgamated` or `- merged`), transitively, each
  establishment once (cycle-safe), at most MAX_PREDECESSOR_DEPTH links away. Splits, sixth-
  form centre links and the undirected kinds (`Result of Amalgamation`, `Merged - ...`,
  `Expansion`, `Closure`, `Other`) are not followed: they do not say whose history it is.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable

from attrs import frozen

from schooldata.domain.urn import Urn

PREDECESSOR_LINK_TYPES = frozenset(
    {"predecessor", "predecessor - amalgamated", "predecessor - merged"}
)
MAX_PREDECESSOR_DEPTH = 5


@frozen(kw_only=True)
class Establishment:
    """What the register lists of one establishment, served or not. Dates are None where the
    register leaves them blank."""

    urn: Urn
    name: str
    status: str
    opened: dt.date | None = None
    closed: dt.date | None = None


@frozen
class EstablishmentLink:
    urn: Urn
    linked_urn: Urn
    linked_name: str | None
    link_type: str
    established: dt.date | None
    # The linked establishment as the register lists it (None: the register does not).
    linked: Establishment | None = None

    @property
    def leads_to_predecessor(self) -> bool:
        return self.link_type.strip().lower() in PREDECESSOR_LINK_TYPES

    @property
    def name(self) -> str | None:
        """The linked establishment's name: the register's, else the links file's."""
        return self.linked.name if self.linked is not None else self.linked_name


@frozen(kw_only=True)
class Predecessor:
    """An establishment a school took over, `depth` links back, and the link that led there
    (`via.urn` is the school whose link names it)."""

    urn: Urn
    via: EstablishmentLink
    depth: int


def predecessors(
    urn: Urn,
    links_of: Callable[[Urn], Iterable[EstablishmentLink]],
    *,
    max_depth: int = MAX_PREDECESSOR_DEPTH,
) -> list[Predecessor]:
    """Every predecessor of `urn`, nearest first (by depth, then the link's date, newest
    first, then URN), each once; never `urn` itself, whatever cycles the links hold."""
    seen = {urn}
    found: list[Predecessor] = []
    frontier = [urn]
    for depth in range(1, max_depth + 1):
        level: list[Predecessor] = []
        for current in frontier:
            for link in links_of(current):
                if link.leads_to_predecessor and link.linked_urn not in seen:
                    seen.add(link.linked_urn)
                    level.append(Predecessor(urn=link.linked_urn, via=link, depth=depth))
        level.sort(key=_nearest)
        found.extend(level)
        frontier = [p.urn for p in level]
        if not frontier:
            break
    return found


def _nearest(predecessor: Predecessor) -> tuple[int, int]:
    established = predecessor.via.established
    return (-(established.toordinal() if established else 0), predecessor.urn.value)
