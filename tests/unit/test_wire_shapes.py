"""The output shapes: licensing drives the two projected records (answer and schema together),
every error code the core can raise is in the published enum, and optional keys are sent only
when they have something to say."""

from __future__ import annotations

import datetime as dt
import importlib
import pkgutil
from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schooldata.domain
from schooldata.domain.errors import DomainError
from schooldata.domain.licensing import Tier, served_fields
from schooldata.domain.measure import Measure as Figure
from schooldata.domain.measure import MeasureStatus
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints import answers, wire
from schooldata.entrypoints.wire import records
from schooldata.entrypoints.wire.datasets import measure_value
from schooldata.entrypoints.wire.envelope import ERROR_CODES
from schooldata.entrypoints.wire.public import school_record


def _domain_errors() -> Iterator[type[DomainError]]:
    for module in pkgutil.walk_packages(schooldata.domain.__path__, "schooldata.domain."):
        importlib.import_module(module.name)
    pending = list(DomainError.__subclasses__())
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        yield kind


def test_every_code_the_domain_can_raise_is_in_the_published_error_enum() -> None:
    # (a base that names no code of its own, like LimitReached, is raised only as a subclass)
    codes = {
        kind.code
        for kind in _domain_errors()
        if not (kind.code == DomainError.code and kind.__subclasses__())
    }
    assert {"too_many_parameters", "query_too_long", "invalid_urn"} <= codes
    assert codes <= set(ERROR_CODES), sorted(codes - set(ERROR_CODES))


def _keys(shape: type[msgspec.Struct]) -> set[str]:
    return set(shape.__struct_encode_fields__)


def test_the_public_record_carries_every_publicly_licensed_field_and_no_other() -> None:
    keys = _keys(records.SchoolRecord)
    for name in served_fields(Tier.PUBLIC):
        if name not in ("ofsted", "svc_score"):
            assert records.PUBLIC_KEYS.get(name, records.camel(name)) in keys, name
    commercial_only = set(served_fields(Tier.COMMERCIAL)) - set(served_fields(Tier.PUBLIC))
    assert not {records.camel(n) for n in commercial_only} & keys
    assert not {"headName", "inspectorateName"} & keys


def test_the_profile_carries_every_commercially_licensed_field_and_no_withheld_one() -> None:
    keys = _keys(records.SchoolProfile)
    for name in served_fields(Tier.COMMERCIAL):
        if name not in ("ofsted", "svc_score"):
            assert records.COMMERCIAL_KEYS.get(name, name) in keys, name
    assert not {"head_name", "inspectorate_name"} & keys


def test_licensing_a_field_adds_it_to_the_answer_and_to_its_schema_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    widened = (*served_fields(Tier.PUBLIC), "capacity")
    monkeypatch.setattr(records, "served_fields", lambda _tier: widened)
    projection = records._project("WiderRecord", "test", records._public_fields(), [])
    school = School(urn=Urn(100001), name="Hillside", capacity=420)
    assert msgspec.to_builtins(projection.of(school))["capacity"] == 420
    schema = msgspec.json.schema(projection.shape)["$defs"]["WiderRecord"]
    assert schema["properties"]["capacity"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": None,
    }
    assert "capacity" not in schema["required"]


def test_a_licensed_field_without_a_json_form_fails_at_start() -> None:
    with pytest.raises(TypeError, match="has no JSON form"):
        records._wire(complex, "complex_field")


def test_a_shape_refuses_a_registry_that_stops_serving_a_field_it_always_carries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(records, "served_fields", lambda _tier: ("urn", "name"))
    with pytest.raises(ValueError, match="license them"):
        records._public_fields()


@given(score=st.none() | st.floats(0, 100), reason=st.none() | st.text(min_size=1, max_size=8))
def test_the_suppression_reason_is_sent_exactly_when_the_score_is_suppressed(
    score: float | None, reason: str | None
) -> None:
    school = School(urn=Urn(100001), name="x", svc_score=score, score_suppressed_reason=reason)
    record = msgspec.to_builtins(school_record(school, base_url="http://x"))
    assert record["scoreSuppressed"] is (score is None)
    if score is None:
        assert record["scoreSuppressedReason"] == (reason or "no_comparable_evidence")
    else:
        assert "scoreSuppressedReason" not in record
    assert list(record)[:9] == [
        *("urn", "name", "postcode", "town", "phase", "type", "svcScore", "scoreSuppressed"),
        "scoreSuppressedReason" if score is None else "status",
    ]


@given(
    status=st.sampled_from(MeasureStatus),
    reason=st.none() | st.text(max_size=5),
    period=st.none() | st.text(max_size=5),
    cohort=st.none() | st.integers(0, 500),
)
def test_a_measure_sends_reason_period_and_cohort_only_when_set(
    status: MeasureStatus, reason: str | None, period: str | None, cohort: int | None
) -> None:
    value = 1.5 if status is MeasureStatus.REPORTED else None
    shown = msgspec.to_builtins(
        measure_value(Figure(status, value, reason), period=period, cohort=cohort)
    )
    expected = {"value": value, "status": status.value}
    for key, given_value in (("reason", reason), ("period", period), ("cohort", cohort)):
        if given_value is not None:
            expected[key] = given_value
    assert shown == expected
    assert list(shown) == list(expected)


def test_instants_are_sent_in_utc_with_a_z() -> None:
    later = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert wire.instant(later) == "2026-01-02T01:04:05Z"
    assert wire.instant(None) is None


def test_an_operation_without_a_declared_output_fails_at_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answers._every_operation_has_an_output()  # the registry as it is: every one has its row
    fewer = {name: row for name, row in answers.OUTPUTS.items() if name != "getRankings"}
    monkeypatch.setattr(answers, "OUTPUTS", fewer)
    with pytest.raises(RuntimeError, match="getRankings"):
        answers._every_operation_has_an_output()
