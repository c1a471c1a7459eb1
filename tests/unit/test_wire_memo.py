"""A school's wire shape is built once per school object and base URL, within a bound."""

from __future__ import annotations

from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints.wire.memo import PerSchool


def _school(urn: int) -> School:
    return School(urn=Urn(urn), name=f"School {urn}")


def test_a_shape_is_built_once_per_school_and_base_url() -> None:
    built: list[tuple[int, str]] = []
    memo = PerSchool(lambda s, base: built.append((s.urn.value, base)) or (s.urn.value, base))
    one = _school(100001)
    assert memo(one, "http://a") == (100001, "http://a")
    assert memo(one, "http://a") == (100001, "http://a")
    assert memo(one, "http://b") == (100001, "http://b")
    assert built == [(100001, "http://a"), (100001, "http://b")]


def test_an_equal_school_of_a_new_data_version_gets_its_own_shape() -> None:
    memo = PerSchool(lambda s, base: object())
    first, second = _school(100001), _school(100001)
    assert memo(first, "x") is memo(first, "x")
    assert memo(second, "x") is not memo(first, "x")


def test_the_memo_holds_at_most_its_bound_across_base_urls() -> None:
    memo: PerSchool[int] = PerSchool(lambda s, base: 1, max_entries=10)
    schools = [_school(100000 + i) for i in range(25)]
    for i, school in enumerate(schools):
        memo(school, f"http://host{i % 3}")
    held = sum(len(shapes) for shapes in memo._items.values())
    assert 0 < held <= 10
