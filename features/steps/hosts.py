"""Requests that name a host the service does not answer to, or no host at all."""

from __future__ import annotations

from pytest_bdd import parsers, then, when

from features.drivers import Driver, Refusal


@when(
    parsers.parse('I ask for the school "{urn}" naming the host "{host}"'),
    target_fixture="refusal",
)
def _(driver: Driver, urn: str, host: str) -> Refusal:
    return driver.school_for_host(urn, host)


@then(parsers.parse('the request is refused with HTTP {status:d} "{code}" and a request id'))
def _(refusal: Refusal, status: int, code: str) -> None:
    assert (refusal.status, refusal.code) == (status, code), refusal
    assert refusal.request_id.startswith("req_") and refusal.request_id in refusal.shown


@then(parsers.parse('nothing in the answer names "{text}"'))
def _(refusal: Refusal, text: str) -> None:
    assert text not in refusal.shown, refusal.shown
