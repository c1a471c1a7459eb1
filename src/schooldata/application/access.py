"""Authentication and metering: one use case for every face (REST, MCP, CLI --as-plan)."""

from __future__ import annotations

import datetime as dt
import math
from typing import NamedTuple

from attrs import frozen

from schooldata.domain.credentials import Recogniser, extract_credentials, recognition_key
from schooldata.domain.errors import DataUnavailable, InvalidParameter
from schooldata.domain.keys import (
    ApiKeyRevoked,
    InvalidApiKey,
    Organisation,
    key_hash,
    parse_key,
)
from schooldata.domain.metering import (
    MeterReading,
    QuotaExceeded,
    RateLimitExceeded,
    month_period,
    month_reset,
    month_start,
    retry_after_seconds,
    second_window,
)
from schooldata.domain.plans import Plan, PlanCatalogue
from schooldata.ports.clock import Clock
from schooldata.ports.keys import (
    KeyLookup,
    KeyStore,
    QuotaCounter,
    RateLimiter,
    WouldBlock,
)

MAX_RECENT_CALLERS = 4096


@frozen(kw_only=True)
class Caller:
    """An authenticated commercial caller."""

    organisation: Organisation
    plan: Plan
    display_prefix: str
    key_id: str  # the stored hash: identifies the key to rate windows without being the key


class Authenticate:
    """- No credentials -> None (the caller is anonymous).
    - Bearer preferred, X-API-Key accepted; both and different -> conflicting_credentials.
    - Format and checksum are checked before any lookup; unknown -> invalid_api_key;
      revoked -> api_key_revoked. A failing key store -> service_unavailable (503)."""

    def __init__(self, *, keys: KeyStore, plans: PlanCatalogue, secret: bytes) -> None:
        self._keys = keys
        self._plans = plans
        self._secret = secret
        self._recognise = Recogniser(recognition_key(secret))
        # Callers recently authenticated, by `recognise` of the key as presented, with the
        # store's answer they were built from: while the store gives back that very answer
        # (stores that remember lookups do, until anything changes), the same caller stands.
        # Bounded.
        self._recent: dict[bytes, tuple[KeyLookup, Caller]] = {}

    @property
    def answers_locally(self) -> bool:
        """Whether the key store is a local file or memory (no network round trip), so a
        lookup may run on an event loop."""
        return self._keys.is_local

    def execute(self, *, authorization: str | None, x_api_key: str | None) -> Caller | None:
        raw = extract_credentials(authorization, x_api_key)
        if raw is None:
            return None
        # A key authenticated moments ago is recognised (a keyed BLAKE2b-256 of the key as
        # presented: no other text shares it), so its format and checksum were checked then
        # and its stored hash is known; the store still says whether it stands now. Any
        # other key is checked before any lookup.
        seen = self._recognise(raw)
        recent = self._recent.get(seen)
        if recent is not None:
            digest = recent[1].key_id
            found = self._find(digest)
            if found is recent[0]:
                return recent[1]
        else:
            digest = key_hash(self._secret, parse_key(raw).text)
            found = self._find(digest)
        caller = self._caller(found, digest)
        if len(self._recent) >= MAX_RECENT_CALLERS:
            self._recent.clear()
        if found is not None:  # (always: _caller refuses a missing key)
            self._recent[seen] = (found, caller)
        return caller

    def _find(self, digest: str) -> KeyLookup | None:
        try:
            return self._keys.find_key_with_organisation(key_hash=digest)
        except DataUnavailable:
            raise
        except Exception as error:  # a driver error must not become a 500 with internals
            raise DataUnavailable("The key store is temporarily unavailable.") from error

    def _caller(self, found: KeyLookup | None, digest: str) -> Caller:
        if found is None or found.organisation is None:
            raise InvalidApiKey()
        record, organisation = found.record, found.organisation
        if record.revoked:
            raise ApiKeyRevoked()
        try:
            plan = self._plans.get(organisation.plan)
        except InvalidParameter:
            # A catalogue that lost this organisation's plan is a configuration fault.
            raise DataUnavailable(f"Plan {organisation.plan!r} is not configured.") from None
        return Caller(
            organisation=organisation,
            plan=plan,
            display_prefix=record.display_prefix,
            key_id=digest,
        )


class Admission(NamedTuple):
    """A request past the rate limit, not charged yet: its rate count, window and month."""

    hits: int  # this window's hits of the key, this one included
    window: int
    stamp: float
    period: str
    reset: int


class Meter:
    """- Entitlement first (403 feature_not_in_plan, not metered).
    - Then the per-key per-second rate limit (429 rate_limit_exceeded, not metered):
      `admit_rate`.
    - Then the per-organisation calendar-month quota: one use consumed atomically, or 429
      quota_exceeded when it is used up: `charge`, once the answer is known (a request the
      service fails is never charged). Only a consumed use is a metered request.
    Entitlement is the pipeline's (`Plan.require`), before either."""

    def __init__(self, *, rate: RateLimiter, quota: QuotaCounter, clock: Clock) -> None:
        self._rate = rate
        self._quota = quota
        self._clock = clock
        # The stores are fixed for the meter's life, and so is where they are: asked once, at
        # first use (not here: a store may not be ready to say while being wired).
        self._can_admit_without_waiting: bool | None = None
        # (first second of the month, its reset, its period): worked out once a month.
        self._month: tuple[float, float, str] = (0.0, 0.0, "")

    @property
    def can_admit_without_waiting(self) -> bool:
        """Whether a caller on an event loop may be admitted and charged there (`wait=False`):
        both stores answer without a network round trip."""
        if self._can_admit_without_waiting is None:
            self._can_admit_without_waiting = self._quota.is_local and self._rate.is_local
        return self._can_admit_without_waiting

    def admit_rate(self, caller: Caller) -> Admission:
        """One hit of the key's per-second window: 429 rate_limit_exceeded past its rate."""
        stamp = self._clock.timestamp()
        window = math.floor(stamp)  # second_window(now), from the one timestamp
        plan = caller.plan
        start, quota_reset, period = self._month
        if not start <= stamp < quota_reset:
            now = dt.datetime.fromtimestamp(stamp, dt.UTC)
            start, quota_reset, period = self._month = self._month_of(now)
        reset = int(quota_reset)
        try:
            count = self._rate.hit(key=caller.key_id, window=window)
            if count > plan.rate_per_second:
                used = self._quota.used(organisation=caller.organisation.slug, period=period)
                reading = self._reading(plan, 0, window, used, reset)
                raise RateLimitExceeded(
                    f"More than {plan.rate_per_second} requests per second for this key.",
                    reading,
                    retry_after_seconds(stamp, window + 1),
                )
        except (RateLimitExceeded, DataUnavailable):
            raise
        except Exception as error:
            raise DataUnavailable("The usage meter is temporarily unavailable.") from error
        return Admission(count, window, stamp, period, reset)

    def charge(self, caller: Caller, admission: Admission, *, wait: bool = True) -> MeterReading:
        """One use of the organisation's month for an admitted request: 429 quota_exceeded
        when it is used up; DataUnavailable (nothing charged) when the counter fails."""
        plan = caller.plan
        hits, window, stamp, period, reset = admission
        try:
            used_after = self._use_quota(caller, period, wait=wait, window=window)
        except (DataUnavailable, WouldBlock):
            raise
        except Exception as error:
            raise DataUnavailable("The usage meter is temporarily unavailable.") from error
        if used_after is None:
            reading = self._reading(
                plan, plan.rate_per_second - hits, window, plan.monthly_quota, reset
            )
            raise QuotaExceeded(
                f"The {plan.name} plan's monthly quota of {plan.monthly_quota} requests is used up.",
                reading,
                retry_after_seconds(stamp, reset),
            )
        return self._reading(plan, plan.rate_per_second - hits, window, used_after, reset)

    def _use_quota(self, caller: Caller, period: str, *, wait: bool, window: int) -> int | None:
        limit = caller.plan.monthly_quota
        slug = caller.organisation.slug
        if wait:
            return self._quota.consume(organisation=slug, period=period, limit=limit)
        try:
            return self._quota.consume_nowait(organisation=slug, period=period, limit=limit)
        except WouldBlock:
            # The request does not go ahead here (its caller retries, waiting): untake its hit.
            self._rate.undo(key=caller.key_id, window=window)
            raise

    @staticmethod
    def _month_of(now: dt.datetime) -> tuple[float, float, str]:
        """The calendar month of `now`: its first second, its reset (the next month's first
        second) and its period."""
        return float(month_start(now)), float(month_reset(now)), month_period(now)

    def peek(self, caller: Caller) -> MeterReading:
        """The current reading without consuming anything (for 403s and unmetered calls)."""
        now = self._clock.now()
        window = second_window(now)
        try:
            count = self._rate.peek(key=caller.key_id, window=window)
            used = self._quota.used(organisation=caller.organisation.slug, period=month_period(now))
        except Exception as error:
            raise DataUnavailable("The usage meter is temporarily unavailable.") from error
        return self._reading(
            caller.plan, caller.plan.rate_per_second - count, window, used, month_reset(now)
        )

    @staticmethod
    def _reading(
        plan: Plan, rate_left: int, window: int, used: int, quota_reset: int
    ) -> MeterReading:
        # Positional: the field order is MeterReading's (rate limit, remaining, reset, then
        # the quota's); a named tuple builds fastest so.
        return MeterReading(
            plan.rate_per_second,
            max(0, rate_left),
            window + 1,
            plan.monthly_quota,
            max(0, plan.monthly_quota - used),
            quota_reset,
        )
