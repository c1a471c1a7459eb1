"""Authenticate and Meter on the in-memory fakes with a fixed clock."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.adapters.memory.access import (
    InMemoryKeyStore,
    InMemoryQuotaCounter,
    InMemoryRateLimiter,
)
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.access import Authenticate, Caller, Meter
from schooldata.application.service import Application
from schooldata.bootstrap import TEST_SECRET, bootstrap_memory
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.keys import (
    ApiKeyRecord,
    ApiKeyRevoked,
    InvalidApiKey,
    KeyKind,
    Organisation,
    compose_key,
    key_hash,
)
from schooldata.domain.metering import (
    MeterReading,
    QuotaExceeded,
    RateLimitExceeded,
    month_period,
    month_reset,
    second_window,
)
from schooldata.domain.plans import DEFAULT_PLANS, Feature, Plan, PlanCatalogue
from schooldata.ports.keys import KeyLookup, KeyStore, WouldBlock

START = dt.datetime(2026, 9, 1, 12, 0, 0, 250_000, tzinfo=dt.UTC)


class FixedClock:
    def __init__(self, now: dt.datetime = START) -> None:
        self.current = now

    def now(self) -> dt.datetime:
        return self.current

    def timestamp(self) -> float:
        return self.now().timestamp()

    def advance(self, seconds: float) -> None:
        self.current += dt.timedelta(seconds=seconds)


def small_catalogue(*, rate: int = 100, quota: int = 3) -> PlanCatalogue:
    tiny = Plan(
        name="tiny",
        per_page_max=25,
        compare_max=3,
        rate_per_second=rate,
        monthly_quota=quota,
        features=frozenset({Feature.META, Feature.SCHOOLS_LIST}),
    )
    return PlanCatalogue((*DEFAULT_PLANS, tiny))


def make_app(clock: FixedClock, plans: PlanCatalogue | None = None) -> Application:
    return bootstrap_memory(store=InMemoryStore(), clock=clock, plans=plans)


def issue(
    app: Application, org: str = "acme", plan: str | None = "developer"
) -> tuple[str, Caller]:
    key = app.keys.create_key(organisation=org, name="ci", plan=plan).key
    caller = app.authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)
    assert caller is not None
    return key, caller


def used(app: Application, org: str = "acme") -> int:
    return app.ports.quota.used(organisation=org, period=START.strftime("%Y-%m"))


# ---------------------------------------------------------------------------- Authenticate


def test_a_request_without_credentials_is_anonymous() -> None:
    app = make_app(FixedClock())
    assert app.authenticate.execute(authorization=None, x_api_key=None) is None


def test_a_valid_bearer_key_authenticates_as_its_organisation_and_plan() -> None:
    app = make_app(FixedClock())
    key, caller = issue(app, plan="professional")
    assert caller.organisation.slug == "acme"
    assert caller.plan.name == "professional"
    assert caller.display_prefix == key[:13]
    assert caller.key_id == key_hash(TEST_SECRET, key)
    assert key not in caller.key_id


def test_a_valid_x_api_key_authenticates_too() -> None:
    app = make_app(FixedClock())
    key, caller = issue(app)
    assert app.authenticate.execute(authorization=None, x_api_key=key) == caller


def test_a_revoked_key_is_refused_as_revoked() -> None:
    app = make_app(FixedClock())
    key, caller = issue(app)
    app.keys.revoke(display_prefix=caller.display_prefix)
    with pytest.raises(ApiKeyRevoked) as caught:
        app.authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)
    assert caught.value.code == "api_key_revoked"


def test_a_well_formed_key_that_was_never_issued_is_invalid() -> None:
    app = make_app(FixedClock())
    issue(app)
    stranger = compose_key(KeyKind.LIVE, "Z" * 32)
    with pytest.raises(InvalidApiKey) as caught:
        app.authenticate.execute(authorization=f"Bearer {stranger}", x_api_key=None)
    assert caught.value.code == "invalid_api_key"


def test_a_key_issued_under_another_secret_is_invalid() -> None:
    app = make_app(FixedClock())
    key, _ = issue(app)
    elsewhere = Authenticate(keys=app.ports.keys, plans=app.plans, secret=b"another-secret")
    with pytest.raises(InvalidApiKey):
        elsewhere.execute(authorization=f"Bearer {key}", x_api_key=None)


class CountingKeyStore(InMemoryKeyStore):
    def __init__(self) -> None:
        super().__init__()
        self.lookups = 0

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        self.lookups += 1
        return super().find_key(key_hash=key_hash)


@pytest.mark.parametrize(
    "raw",
    [
        "svc_live_tooshort",
        "not-a-key",
        compose_key(KeyKind.LIVE, "A" * 32)[:-1] + "0",  # wrong checksum
        compose_key(KeyKind.LIVE, "A" * 32).replace("svc_live_", "svc_prod_"),
    ],
)
def test_a_malformed_key_is_invalid_without_any_store_lookup(raw: str) -> None:
    store = CountingKeyStore()
    authenticate = Authenticate(keys=store, plans=PlanCatalogue(), secret=TEST_SECRET)
    with pytest.raises(InvalidApiKey):
        authenticate.execute(authorization=f"Bearer {raw}", x_api_key=None)
    assert store.lookups == 0


def test_a_key_whose_organisation_is_gone_is_invalid() -> None:
    keys = InMemoryKeyStore()
    key = compose_key(KeyKind.LIVE, "B" * 32)
    keys.add_key(
        record=ApiKeyRecord(
            key_hash=key_hash(TEST_SECRET, key),
            display_prefix=key[:13],
            organisation="ghost",
            name="orphan",
            kind=KeyKind.LIVE,
            created_at=START,
        )
    )
    authenticate = Authenticate(keys=keys, plans=PlanCatalogue(), secret=TEST_SECRET)
    with pytest.raises(InvalidApiKey):
        authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)


class BrokenKeyStore(InMemoryKeyStore):
    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        raise ConnectionError("database went away")


def test_a_failing_key_store_is_service_unavailable() -> None:
    authenticate = Authenticate(keys=BrokenKeyStore(), plans=PlanCatalogue(), secret=TEST_SECRET)
    key = compose_key(KeyKind.LIVE, "C" * 32)
    with pytest.raises(DataUnavailable) as caught:
        authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)
    assert caught.value.code == "service_unavailable"
    assert "database went away" not in caught.value.message


def test_a_plan_change_applies_to_the_next_request() -> None:
    app = make_app(FixedClock())
    key, _ = issue(app)
    app.keys.set_plan(organisation="acme", plan="enterprise")
    caller = app.authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)
    assert caller is not None
    assert caller.plan.name == "enterprise"


# ---------------------------------------------------------------------------- Meter


def admit(meter: Meter, caller: Caller, *, wait: bool = True) -> MeterReading:
    """One request past the rate limit, charged: how the pipeline meters an answered call."""
    return meter.charge(caller, meter.admit_rate(caller), wait=wait)


def test_each_admitted_call_consumes_exactly_one_use_of_the_quota() -> None:
    clock = FixedClock()
    app = make_app(clock)
    _, caller = issue(app)
    for n in range(1, 4):
        reading = admit(app.meter, caller)
        assert used(app) == n
        assert reading.quota_remaining == 1000 - n
        clock.advance(1)


def test_a_reading_reports_limits_remaining_and_resets() -> None:
    app = make_app(FixedClock())
    _, caller = issue(app)
    reading = admit(app.meter, caller)
    assert reading.headers() == {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "4",
        "X-RateLimit-Reset": str(int(START.timestamp()) + 1),
        "X-Quota-Limit": "1000",
        "X-Quota-Remaining": "999",
        "X-Quota-Reset": str(month_reset(START)),
    }


def test_the_rate_limit_allows_the_plan_rate_per_second_then_refuses() -> None:
    app = make_app(FixedClock())
    _, caller = issue(app)  # developer: 5 per second
    for _ in range(5):
        admit(app.meter, caller)
    with pytest.raises(RateLimitExceeded) as caught:
        admit(app.meter, caller)
    assert caught.value.code == "rate_limit_exceeded"
    assert caught.value.retry_after >= 1
    assert caught.value.reading.rate_remaining == 0


def test_rate_limited_calls_do_not_consume_quota() -> None:
    app = make_app(FixedClock())
    _, caller = issue(app)
    for _ in range(5):
        admit(app.meter, caller)
    for _ in range(3):
        with pytest.raises(RateLimitExceeded):
            admit(app.meter, caller)
    assert used(app) == 5


def test_the_rate_window_resets_in_the_next_second() -> None:
    clock = FixedClock()
    app = make_app(clock)
    _, caller = issue(app)
    for _ in range(5):
        admit(app.meter, caller)
    with pytest.raises(RateLimitExceeded):
        admit(app.meter, caller)
    clock.advance(0.75)  # 12:00:01.000: a new second
    assert admit(app.meter, caller).rate_remaining == 4
    assert used(app) == 6


def test_the_rate_limit_is_counted_per_key_not_per_organisation() -> None:
    app = make_app(FixedClock())
    _, first = issue(app)
    _, second = issue(app, plan=None)
    assert first.organisation == second.organisation
    for _ in range(5):
        admit(app.meter, first)
    with pytest.raises(RateLimitExceeded):
        admit(app.meter, first)
    admit(app.meter, second)
    assert used(app) == 6  # the quota is the organisation's


def test_a_used_up_quota_refuses_with_quota_exceeded_until_the_month_ends() -> None:
    clock = FixedClock(dt.datetime(2026, 12, 31, 23, 59, 30, tzinfo=dt.UTC))
    app = make_app(clock, small_catalogue(quota=3))
    _, caller = issue(app, plan="tiny")
    for _ in range(3):
        admit(app.meter, caller)
    with pytest.raises(QuotaExceeded) as caught:
        admit(app.meter, caller)
    assert caught.value.code == "quota_exceeded"
    assert caught.value.retry_after == 30
    assert caught.value.reading.quota_remaining == 0
    assert app.ports.quota.used(organisation="acme", period="2026-12") == 3
    clock.advance(30)
    admit(app.meter, caller)
    assert app.ports.quota.used(organisation="acme", period="2027-01") == 1


def test_quota_is_shared_by_every_key_of_an_organisation() -> None:
    app = make_app(FixedClock(), small_catalogue(quota=2))
    _, first = issue(app, plan="tiny")
    _, second = issue(app, plan=None)
    admit(app.meter, first)
    admit(app.meter, second)
    with pytest.raises(QuotaExceeded):
        admit(app.meter, first)


def test_peek_reads_the_meter_without_consuming() -> None:
    app = make_app(FixedClock())
    _, caller = issue(app)
    admit(app.meter, caller)
    for _ in range(3):
        reading = app.meter.peek(caller)
    assert reading.quota_remaining == 999
    assert reading.rate_remaining == 4
    assert used(app) == 1


class BrokenQuota(InMemoryQuotaCounter):
    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        raise TimeoutError("quota store timed out")


def test_a_failing_quota_counter_is_service_unavailable() -> None:
    app = make_app(FixedClock())
    _, caller = issue(app)
    meter = Meter(rate=InMemoryRateLimiter(), quota=BrokenQuota(), clock=FixedClock())
    with pytest.raises(DataUnavailable):
        admit(meter, caller)


class TwoLookupKeyStore(KeyStore):
    """A store written before the combined lookup: it inherits the port's default."""

    is_local = True

    def __init__(self, inner: InMemoryKeyStore) -> None:
        self._inner = inner

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        return self._inner.find_key(key_hash=key_hash)

    def add_key(self, *, record: ApiKeyRecord) -> None:
        self._inner.add_key(record=record)

    def list_keys(self, *, organisation: str | None = None) -> list[ApiKeyRecord]:
        return self._inner.list_keys(organisation=organisation)

    def revoke_key(self, *, display_prefix: str, at: dt.datetime) -> int:
        return self._inner.revoke_key(display_prefix=display_prefix, at=at)

    def get_organisation(self, *, slug: str) -> Organisation | None:
        return self._inner.get_organisation(slug=slug)

    def save_organisation(self, *, organisation: Organisation) -> None:
        self._inner.save_organisation(organisation=organisation)


def test_a_key_store_with_only_the_two_lookups_authenticates_through_the_port_default() -> None:
    app = make_app(FixedClock())
    key, _ = issue(app)
    keys = app.ports.keys
    assert isinstance(keys, InMemoryKeyStore)
    authenticate = Authenticate(keys=TwoLookupKeyStore(keys), plans=app.plans, secret=TEST_SECRET)
    caller = authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)
    assert caller is not None
    assert caller.organisation == keys.get_organisation(slug=caller.organisation.slug)
    app.keys.revoke(display_prefix=caller.display_prefix)
    with pytest.raises(ApiKeyRevoked):
        authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)


def test_the_combined_lookup_finds_the_key_and_its_organisation_or_nothing() -> None:
    app = make_app(FixedClock())
    key, _ = issue(app)
    keys = app.ports.keys
    digest = key_hash(TEST_SECRET, key)
    record = keys.find_key(key_hash=digest)
    assert record is not None
    assert keys.find_key_with_organisation(key_hash=digest) == KeyLookup(
        record, keys.get_organisation(slug=record.organisation)
    )
    assert keys.find_key_with_organisation(key_hash="0" * 64) is None


class RemoteQuota(InMemoryQuotaCounter):
    """A quota counter across a network (as SqlQuotaCounter on PostgreSQL says it is)."""

    @property
    def is_local(self) -> bool:
        return False

    def consume_nowait(self, *, organisation: str, period: str, limit: int) -> int | None:
        raise WouldBlock()


def test_a_meter_over_a_remote_quota_store_never_admits_from_an_event_loop() -> None:
    local = Meter(rate=InMemoryRateLimiter(), quota=InMemoryQuotaCounter(), clock=FixedNow())
    remote = Meter(rate=InMemoryRateLimiter(), quota=RemoteQuota(), clock=FixedNow())
    assert local.can_admit_without_waiting
    assert not remote.can_admit_without_waiting
    caller = Caller(
        organisation=Organisation(slug="acme", name="Acme", plan="enterprise"),
        plan=DEFAULT_PLANS[-1],
        display_prefix="svc_live_AbCd",
        key_id="k",
    )
    assert admit(local, caller, wait=False).quota_remaining >= 0


def test_a_charge_that_would_wait_takes_its_rate_hit_back() -> None:
    rate = InMemoryRateLimiter()
    meter = Meter(rate=rate, quota=RemoteQuota(), clock=FixedNow())
    caller = Caller(
        organisation=Organisation(slug="acme", name="Acme", plan="enterprise"),
        plan=DEFAULT_PLANS[-1],
        display_prefix="svc_live_AbCd",
        key_id="k",
    )
    admission = meter.admit_rate(caller)
    assert rate.peek(key="k", window=admission.window) == 1
    with pytest.raises(WouldBlock):
        meter.charge(caller, admission, wait=False)
    assert rate.peek(key="k", window=admission.window) == 0


class FixedNow:
    def now(self) -> dt.datetime:
        return dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)

    def timestamp(self) -> float:
        return self.now().timestamp()


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.integers(min_value=-70 * 86400, max_value=70 * 86400), min_size=1, max_size=12
    )
)
def test_every_reading_names_the_month_and_second_of_its_own_instant(steps: list[int]) -> None:
    """The meter works a month's period and reset out once and reuses them: whatever the
    clock does (forward, back, across month and year ends), each admitted call counts in its
    own month and reports its own second's and month's resets."""
    clock = FixedClock(dt.datetime(2026, 12, 31, 23, 59, 59, 500_000, tzinfo=dt.UTC))
    app = make_app(clock, small_catalogue(rate=1000, quota=10_000))
    _, caller = issue(app, plan="tiny")
    counts: dict[str, int] = {}
    for step in steps:
        clock.advance(step)
        now = clock.now()
        reading = admit(app.meter, caller)
        period = month_period(now)
        counts[period] = counts.get(period, 0) + 1
        assert reading.rate_reset == second_window(now) + 1
        assert reading.quota_reset == month_reset(now)
        assert reading.quota_remaining == 10_000 - counts[period]
        assert app.ports.quota.used(organisation="acme", period=period) == counts[period]
