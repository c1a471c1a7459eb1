"""Phases: the publisher's vocabulary mapped onto the API's five filter values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.errors import InvalidParameter
from schooldata.domain.phase import (
    GIAS_TO_API,
    PHASE_VALUES,
    GiasPhase,
    Phase,
    api_phase,
    parse_gias_phase,
    parse_phase,
)
from schooldata.domain.school import School
from schooldata.domain.urn import Urn


def test_middle_deemed_primary_is_served_as_primary() -> None:
    assert api_phase(GiasPhase.MIDDLE_DEEMED_PRIMARY) is Phase.PRIMARY


def test_middle_deemed_secondary_is_served_as_secondary() -> None:
    assert api_phase(GiasPhase.MIDDLE_DEEMED_SECONDARY) is Phase.SECONDARY


def test_sixteen_plus_is_served_as_sixth_form() -> None:
    assert api_phase(GiasPhase.SIXTEEN_PLUS) is Phase.SIXTH_FORM


def test_not_applicable_has_no_api_phase() -> None:
    assert api_phase(GiasPhase.NOT_APPLICABLE) is None


def test_an_unknown_gias_phase_has_no_api_phase() -> None:
    assert api_phase(None) is None


@pytest.mark.parametrize(
    ("gias", "phase"),
    [
        (GiasPhase.NURSERY, Phase.NURSERY),
        (GiasPhase.PRIMARY, Phase.PRIMARY),
        (GiasPhase.SECONDARY, Phase.SECONDARY),
        (GiasPhase.ALL_THROUGH, Phase.ALL_THROUGH),
    ],
)
def test_plain_gias_phases_map_to_their_namesakes(gias: GiasPhase, phase: Phase) -> None:
    assert api_phase(gias) is phase


def test_every_gias_phase_has_a_declared_mapping() -> None:
    assert set(GIAS_TO_API) == set(GiasPhase)


def test_a_schools_phase_follows_the_statutory_deeming() -> None:
    school = School(urn=Urn(100001), name="Middle", gias_phase=GiasPhase.MIDDLE_DEEMED_PRIMARY)
    assert school.phase is Phase.PRIMARY


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Middle deemed primary", GiasPhase.MIDDLE_DEEMED_PRIMARY),
        ("  middle DEEMED secondary ", GiasPhase.MIDDLE_DEEMED_SECONDARY),
        ("16 plus", GiasPhase.SIXTEEN_PLUS),
        ("Not applicable", GiasPhase.NOT_APPLICABLE),
        ("All-through", GiasPhase.ALL_THROUGH),
    ],
)
def test_parses_gias_phase_names_case_insensitively(raw: str, expected: GiasPhase) -> None:
    assert parse_gias_phase(raw) is expected


@pytest.mark.parametrize("raw", ["", "   ", "Middle", "Sixth form", "Infant"])
def test_a_blank_or_unrecognised_gias_phase_is_unknown_not_guessed(raw: str) -> None:
    assert parse_gias_phase(raw) is None


def test_the_api_has_exactly_five_phase_values() -> None:
    assert set(PHASE_VALUES) == {"primary", "secondary", "nursery", "sixth form", "all-through"}


@pytest.mark.parametrize("value", ["primary", "secondary", "nursery", "sixth form", "all-through"])
def test_parse_phase_accepts_each_documented_value(value: str) -> None:
    assert parse_phase(value).value == value


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Primary", Phase.PRIMARY),
        (" Sixth Form ", Phase.SIXTH_FORM),
        ("ALL-THROUGH", Phase.ALL_THROUGH),
    ],
)
def test_parse_phase_ignores_case_and_surrounding_space(raw: str, expected: Phase) -> None:
    assert parse_phase(raw) is expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "sixth-form",
        "sixthform",
        "all through",
        "16 plus",
        "middle deemed primary",
        "Not applicable",
        "primary school",
        "infant",
        "secondary,primary",
    ],
)
def test_parse_phase_rejects_anything_but_the_five_values(raw: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        parse_phase(raw)
    assert caught.value.details == {"parameter": "phase"}


@settings(max_examples=50)
@given(st.text(max_size=20).filter(lambda s: s.strip().lower() not in PHASE_VALUES))
def test_parse_phase_rejects_any_other_text(raw: str) -> None:
    with pytest.raises(InvalidParameter):
        parse_phase(raw)
