"""An answer's sources and data time are built once per data version's records."""

from __future__ import annotations

import datetime as dt

import attrs

from schooldata.domain.dataset import DatasetRecord
from schooldata.entrypoints.wire.meta import AttributionOf, data_updated_at, sources


def _record(name: str, day: int) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=f"Title of {name}",
        publisher="Department for Education",
        licence="OGL-UK-3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url=None,
        extract_date=dt.date(2026, 9, 1),
        imported_at=dt.datetime(2026, 10, day, tzinfo=dt.UTC),
    )


def test_the_same_records_give_the_same_attribution_without_building_it_again() -> None:
    records = [_record("gias_establishments", 1), _record("codepoint_open", 3)]
    attribution = AttributionOf()
    first = attribution(tuple(records))
    assert first == (sources(records), data_updated_at(records))
    assert first[1] == dt.datetime(2026, 10, 3, tzinfo=dt.UTC)
    again = attribution(list(records))  # a new sequence of the very same record objects
    assert again == first and again[0] is first[0]  # the very list, not built again


def test_new_record_objects_are_attributed_afresh_even_when_equal() -> None:
    records = (_record("gias_establishments", 1),)
    attribution = AttributionOf()
    first = attribution(records)
    changed = (attrs.evolve(records[0], imported_at=dt.datetime(2026, 11, 2, tzinfo=dt.UTC)),)
    assert attribution(changed)[1] == dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    equal = (attrs.evolve(records[0]),)
    assert attribution(equal)[0] is not first[0]
    assert attribution(equal) == first


def test_no_records_have_no_sources_and_no_time() -> None:
    assert AttributionOf()(()) == ([], None)
    assert AttributionOf()([_record("a", 1)])[0][0].dataset == "a"
