"""The bundled demo's provenance: part of the demo, labelled, and pointing at the real publishers."""

from __future__ import annotations

import pytest

from schooldata.adapters.sample.demo import _record, manifest


@pytest.mark.parametrize("entry", manifest(), ids=lambda e: e["format"])
def test_every_demo_source_names_the_real_publishers_page(entry: dict[str, object]) -> None:
    record = _record(entry)  # type: ignore[arg-type]
    assert record.url is not None and record.url.startswith("https://")
    assert record.demo  # removed whole by the first real import of school data


def test_only_the_postcode_subset_is_real_and_it_still_belongs_to_the_demo() -> None:
    records = {entry["format"]: _record(entry) for entry in manifest()}
    assert {name for name, r in records.items() if not r.synthetic} == {"codepoint_open"}
    assert records["codepoint_open"].url == (
        "https://www.ordnancesurvey.co.uk/products/code-point-open"
    )
    assert records["ks2_results"].url == (
        "https://explore-education-statistics.service.gov.uk/find-statistics/key-stage-2-attainment"
    )
