"""Who is asking: anonymous callers, keys and their plans, and the plans' limits."""

from __future__ import annotations

from attrs import evolve
from pytest_bdd import given, parsers, when

from features.drivers import Credentials, Driver
from features.drivers.world import World
from schooldata.application.key_admin import IssuedKey
from schooldata.domain.keys import KeyKind, compose_key

NEVER_ISSUED_RANDOM_PART = "0123456789abcdefghijABCDEFGHIJ01"  # well formed, checksum right


def credentials_of(issued: IssuedKey, plan: str) -> Credentials:
    return Credentials(plan=plan, organisation=issued.record.organisation, bearer=issued.key)


@given("I am an anonymous caller")
def _(driver: Driver) -> None:
    driver.credentials = None


@given(parsers.parse('I hold a key on the "{plan}" plan'), target_fixture="key")
def _(driver: Driver, world: World, plan: str) -> IssuedKey:
    issued = world.issue_key(plan)
    driver.credentials = credentials_of(issued, plan)
    return issued


@given(parsers.parse('I hold a test key on the "{plan}" plan'), target_fixture="key")
def _(driver: Driver, world: World, plan: str) -> IssuedKey:
    issued = world.app.keys.create_key(
        organisation=f"acme-{plan}", name="bdd-test", plan=plan, test=True
    )
    assert issued.key.startswith("svc_test_")
    driver.credentials = credentials_of(issued, plan)
    return issued


@given("my organisation also holds a test key", target_fixture="test_key")
def _(driver: Driver, world: World, key: IssuedKey) -> IssuedKey:
    return world.app.keys.create_key(organisation=key.record.organisation, name="ci", test=True)


@when("I switch to the test key")
def _(driver: Driver, test_key: IssuedKey) -> None:
    assert driver.credentials is not None
    driver.credentials = evolve(driver.credentials, bearer=test_key.key)


@given("I send my key in the X-API-Key header instead")
def _(driver: Driver, key: IssuedKey) -> None:
    assert driver.credentials is not None
    driver.credentials = evolve(driver.credentials, bearer=None, x_api_key=key.key)


@given("I send my key both as a bearer token and in the X-API-Key header")
def _(driver: Driver, key: IssuedKey) -> None:
    assert driver.credentials is not None
    driver.credentials = evolve(driver.credentials, bearer=key.key, x_api_key=key.key)


@given("I also send another organisation's key in the X-API-Key header")
def _(driver: Driver, world: World) -> None:
    assert driver.credentials is not None
    other = world.issue_key("developer", organisation="another-organisation")
    driver.credentials = evolve(driver.credentials, x_api_key=other.key)


@given("my key has been revoked")
@when("my key is revoked")
def _(world: World, key: IssuedKey) -> None:
    world.revoke(key)


@given("I send a key that was never issued", target_fixture="sent_key")
def _(driver: Driver) -> str:
    key = compose_key(KeyKind.LIVE, NEVER_ISSUED_RANDOM_PART)
    driver.credentials = Credentials(bearer=key)
    return key


@given(parsers.parse('I send the key "{key}"'), target_fixture="sent_key")
def _(driver: Driver, key: str) -> str:
    driver.credentials = Credentials(bearer=key)
    return key


@given(parsers.parse('the "{plan}" plan allows {count:d} requests a second'))
def _(world: World, plan: str, count: int) -> None:
    world.limit_plan(plan, rate_per_second=count)


@given(parsers.parse('the "{plan}" plan allows {count:d} requests a month'))
def _(world: World, plan: str, count: int) -> None:
    world.limit_plan(plan, monthly_quota=count)


@given(parsers.re(r"the (?P<dependency>school register|key store|usage meter) is unavailable"))
def _(world: World, dependency: str) -> None:
    world.fail(dependency)


@when(parsers.re(r"the (?P<dependency>school register|key store|usage meter) is back"))
def _(world: World, dependency: str) -> None:
    world.restore(dependency)


@given("the clock is stopped")
def _(world: World) -> None:
    world.clock.stop()


@when("a second passes")
def _(world: World) -> None:
    world.clock.advance(1)
