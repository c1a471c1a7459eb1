"""Per-school measures by period, as imported from the DfE performance tables and others."""

from __future__ import annotations

from attrs import frozen

from schooldata.domain.measure import Measure
from schooldata.domain.urn import Urn


def period_label(time_period: str) -> str:
    """EES `202425` -> `2024/25`; anything else is kept as given."""
    text = time_period.strip()
    if len(text) == 6 and text.isdigit():
        return f"{text[:4]}/{text[4:]}"
    return text


@frozen
class MeasureRecord:
    """One measure of one school for one period from one dataset.

    `code` names the measure (`ks4_attainment8_average`); `cohort` is the pupil count the
    figure rests on, when the publisher gives one.
    """

    urn: Urn
    dataset: str
    period: str
    code: str
    measure: Measure
    cohort: int | None = None
