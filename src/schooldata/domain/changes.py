"""What a data version changed, school by school.

- `opened`: a school served now that was not before; `closed`: one no longer served (closed
  or proposed to open in the register, or left out of it).
- `updated`: a school served before and after whose publicly or commercially licensed
  fields differ; `fields` names them (School attributes here; the API's names are the
  wire's). The historic Ofsted grade is two fields (`ofsted_rating`, the grade, and
  `ofsted`, the grade with its date) and the score three (`svc_score`, `score_suppressed`,
  `score_suppressed_reason`), as the profile shows them.
- `inspection_added`: an Ofsted inspection the school's history did not hold (one published
  again in another file is not new).
- `results_added`: a key stage and year whose figures, or release status, are new or
  differ (a revision of a year is a change of that year; a year is never listed twice).
- `linked`: a predecessor, successor or other GIAS link added.

A change also keeps where the school is (its authority and phase, as the register last
listed it) so changes can be filtered by them after a school has gone.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter

from attrs import frozen

from schooldata.domain.catalogue import RESULT_TOPICS, spec_of
from schooldata.domain.licensing import Tier, served_fields
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.ofsted import InspectionRecord, same_inspection
from schooldata.domain.phase import Phase
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn


class ChangeKind(enum.Enum):
    OPENED = "opened"
    CLOSED = "closed"
    UPDATED = "updated"
    INSPECTION_ADDED = "inspection_added"
    RESULTS_ADDED = "results_added"
    LINKED = "linked"


CHANGE_KINDS = tuple(kind.value for kind in ChangeKind)
_RANK = {kind: rank for rank, kind in enumerate(ChangeKind)}


@frozen(kw_only=True)
class Whereabouts:
    """Where a school is, for filtering its changes: as the register last listed it."""

    la_code: str | None = None
    la_name: str | None = None
    phase: Phase | None = None

    @classmethod
    def of(cls, school: School | None) -> Whereabouts:
        if school is None:
            return NOWHERE
        return cls(la_code=school.la_code, la_name=school.la_name, phase=school.phase)


NOWHERE = Whereabouts()


@frozen(kw_only=True)
class SchoolChange:
    urn: Urn
    kind: ChangeKind
    fields: tuple[str, ...] = ()  # updated
    key_stage: str | None = None  # results_added: the topic (ks2, ks4, 16_18, ...)
    year: str | None = None  # results_added: the period (2024/25)
    inspection_date: dt.date | None = None  # inspection_added
    linked_urn: Urn | None = None  # linked
    link_type: str | None = None  # linked
    where: Whereabouts = NOWHERE

    def order(self) -> tuple[object, ...]:
        """Within a version: by URN, then kind, then what it names."""
        return (
            self.urn.value,
            _RANK[self.kind],
            self.key_stage or "",
            self.year or "",
            self.inspection_date or dt.date.min,
            self.linked_urn.value if self.linked_urn else 0,
            self.link_type or "",
            self.fields,
        )


@frozen(kw_only=True)
class ChangeFilter:
    """Which changes a caller wants: of one kind, in one local authority (its name or DfE
    code, exact, any case or punctuation, as the lists match it), of one phase. None: any."""

    kind: ChangeKind | None = None
    local_authority: str | None = None  # normalised
    phase: Phase | None = None

    @classmethod
    def of(
        cls, *, kind: str | None, local_authority: str | None, phase: Phase | None
    ) -> ChangeFilter:
        return cls(
            kind=None if kind is None else ChangeKind(kind),
            local_authority=None if local_authority is None else normalise(local_authority),
            phase=phase,
        )

    def matches(self, change: SchoolChange) -> bool:
        if self.kind is not None and change.kind is not self.kind:
            return False
        if self.phase is not None and change.where.phase is not self.phase:
            return False
        wanted = self.local_authority
        if wanted is None:
            return True
        where = change.where
        return wanted == normalise(where.la_name or "") or wanted == (where.la_code or "").lower()


@frozen(kw_only=True)
class ListedChange:
    """A change as listed: the version that made it (its id and time) and the change."""

    version: str
    made_at: dt.datetime
    change: SchoolChange


# ------------------------------------------------------------------------ the register


def _compared(name: str) -> tuple[str, ...]:
    """What a change of a licensed field is told by: the Ofsted grade apart from the record,
    the score with whether and why it is suppressed."""
    if name == "ofsted":
        return ("ofsted_rating", "ofsted")
    if name == "svc_score":
        return ("svc_score", "score_suppressed", "score_suppressed_reason")
    return (name,)


_COMPARED = tuple(
    (part, attrgetter(part)) for name in served_fields(Tier.COMMERCIAL) for part in _compared(name)
)


def changed_fields(before: School, after: School) -> tuple[str, ...]:
    """The licensed fields whose values differ, in the profile's order."""
    return tuple(name for name, read in _COMPARED if read(before) != read(after))


def register_changes(
    before: Mapping[Urn, School], after: Mapping[Urn, School]
) -> list[SchoolChange]:
    """Opened, closed and updated schools between two registers (served schools by URN)."""
    found: list[SchoolChange] = []
    for urn, school in after.items():
        held = before.get(urn)
        where = Whereabouts.of(school)
        if held is None:
            found.append(SchoolChange(urn=urn, kind=ChangeKind.OPENED, where=where))
        elif held != school and (fields := changed_fields(held, school)):
            found.append(SchoolChange(urn=urn, kind=ChangeKind.UPDATED, fields=fields, where=where))
    for urn, school in before.items():
        if urn not in after:
            found.append(
                SchoolChange(urn=urn, kind=ChangeKind.CLOSED, where=Whereabouts.of(school))
            )
    return found


# ------------------------------------------------------------------------ inspections


def added_inspections(
    before: Iterable[InspectionRecord], after: Iterable[InspectionRecord]
) -> list[InspectionRecord]:
    """Inspections in `after` that no record of `before` is (domain.ofsted's sameness: the
    same framework and date, the same or an unknown inspection number), each once."""
    held: dict[Urn, list[InspectionRecord]] = defaultdict(list)
    for record in before:
        held[record.urn].append(record)
    added: list[InspectionRecord] = []
    for record in after:
        known = held[record.urn]
        if not any(same_inspection(record, other) for other in known):
            added.append(record)
            known.append(record)
    return added


# ------------------------------------------------------------------------ results

YearKey = tuple[Urn, str, str]  # (school, key stage, year)
_MASK = (1 << 64) - 1


def result_years(
    records: Iterable[MeasureRecord], release_of: Callable[[str, str], object]
) -> dict[YearKey, int]:
    """A fingerprint of each school's key stage and year: its figures and their release
    (`release_of(dataset, period)`). Equal fingerprints, equal figures (order aside)."""
    prints: dict[YearKey, int] = defaultdict(int)
    for record in records:
        topic = spec_of(record.code).topic
        if topic not in RESULT_TOPICS:
            continue
        key = (record.urn, topic.value, record.period)
        item = (
            record.code,
            record.dataset,
            record.measure,
            record.cohort,
            release_of(record.dataset, record.period),
        )
        prints[key] = (prints[key] + hash(item)) & _MASK
    return prints


def changed_years(before: Mapping[YearKey, int], after: Mapping[YearKey, int]) -> list[YearKey]:
    """The key stages and years new in `after`, or different from `before`."""
    return [key for key, value in after.items() if before.get(key) != value]


# ------------------------------------------------------------------------ links


def added_links(
    before: Iterable[EstablishmentLink], after: Iterable[EstablishmentLink]
) -> list[EstablishmentLink]:
    def key(link: EstablishmentLink) -> tuple[Urn, Urn, str]:
        return (link.urn, link.linked_urn, link.link_type)

    held = {key(link) for link in before}
    added: dict[tuple[Urn, Urn, str], EstablishmentLink] = {}
    for link in after:
        if key(link) not in held:
            added.setdefault(key(link), link)
    return list(added.values())


def in_order(changes: Iterable[SchoolChange]) -> list[SchoolChange]:
    return sorted(changes, key=SchoolChange.order)
