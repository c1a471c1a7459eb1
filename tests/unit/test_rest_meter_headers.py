"""The six meter headers REST encodes itself are the reading's own `headers()`, byte for byte."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schooldata.domain.metering import MeterReading
from schooldata.entrypoints.rest.responses import meter_headers

counts = st.integers(min_value=-(10**6), max_value=10**13)


@given(st.builds(MeterReading, counts, counts, counts, counts, counts, counts))
def test_the_encoded_meter_headers_are_the_readings_headers(reading: MeterReading) -> None:
    expected = [
        (name.lower().encode(), value.encode()) for name, value in reading.headers().items()
    ]
    assert meter_headers(reading) == expected


def test_a_count_below_zero_is_sent_as_zero() -> None:
    reading = MeterReading(10, -3, 1_800_000_000, 100, -1, 1_800_000_060)
    assert dict(meter_headers(reading))[b"x-ratelimit-remaining"] == b"0"
    assert reading.headers()["X-Quota-Remaining"] == "0"
