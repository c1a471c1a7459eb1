"""KeyAdmin: keys shown once, stored as a hash; revocation and plan changes."""

from __future__ import annotations

import datetime as dt

import attrs
import pytest

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.service import Application
from schooldata.bootstrap import TEST_SECRET, bootstrap_memory
from schooldata.domain.errors import InvalidParameter, KeyNotFound, OrganisationNotFound
from schooldata.domain.keys import ApiKeyRevoked, KeyKind, key_hash, parse_key

NOW = dt.datetime(2026, 9, 1, 9, 30, tzinfo=dt.UTC)


class FixedClock:
    def __init__(self) -> None:
        self.current = NOW

    def now(self) -> dt.datetime:
        return self.current

    def timestamp(self) -> float:
        return self.now().timestamp()


class SequenceIds:
    """Deterministic base62 randomness: each call gives a distinct, recognisable string."""

    def __init__(self) -> None:
        self.count = 0

    def random_base62(self, *, length: int) -> str:
        self.count += 1
        return (f"K{self.count:03d}" + "x" * length)[:length]

    def request_id(self) -> str:
        return "req_" + self.random_base62(length=20)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def app(clock: FixedClock) -> Application:
    return bootstrap_memory(store=InMemoryStore(), clock=clock, ids=SequenceIds())


def stored_text(app: Application) -> str:
    records = app.keys.list_keys()
    return " ".join(str(value) for r in records for value in attrs.asdict(r).values())


def test_a_new_key_is_shown_once_and_is_a_valid_live_key(app: Application) -> None:
    issued = app.keys.create_key(organisation="Acme", name="ci")
    parsed = parse_key(issued.key)
    assert parsed.kind is KeyKind.LIVE
    assert issued.key.startswith("svc_live_K001")
    assert issued.record.display_prefix == "svc_live_K001"


def test_only_the_hash_and_display_prefix_are_stored(app: Application) -> None:
    issued = app.keys.create_key(organisation="acme", name="ci")
    [record] = app.keys.list_keys()
    assert record.key_hash == key_hash(TEST_SECRET, issued.key)
    assert record.display_prefix == issued.key[:13]
    text = stored_text(app)
    assert issued.key not in text
    assert parse_key(issued.key).random_part not in text
    assert not any(hasattr(r, "key") for r in app.keys.list_keys())


def test_a_key_records_its_organisation_name_kind_and_creation_time(app: Application) -> None:
    issued = app.keys.create_key(organisation="  Acme  ", name="  nightly sync ")
    record = issued.record
    assert record.organisation == "acme"
    assert record.name == "nightly sync"
    assert record.kind is KeyKind.LIVE
    assert record.created_at == NOW
    assert record.revoked_at is None


def test_a_test_key_has_the_test_prefix(app: Application) -> None:
    issued = app.keys.create_key(organisation="acme", name="ci", test=True)
    assert issued.key.startswith("svc_test_")
    assert parse_key(issued.key).kind is KeyKind.TEST


def test_two_keys_never_share_a_hash(app: Application) -> None:
    first = app.keys.create_key(organisation="acme", name="a")
    second = app.keys.create_key(organisation="acme", name="b")
    assert first.key != second.key
    assert first.record.key_hash != second.record.key_hash
    assert len(app.keys.list_keys(organisation="acme")) == 2


def test_a_new_organisation_starts_on_the_developer_plan(app: Application) -> None:
    app.keys.create_key(organisation="acme", name="ci")
    org = app.ports.keys.get_organisation(slug="acme")
    assert org is not None
    assert org.plan == "developer"


def test_a_new_organisation_can_start_on_a_named_plan(app: Application) -> None:
    app.keys.create_key(organisation="acme", name="ci", plan="enterprise")
    assert app.ports.keys.get_organisation(slug="acme").plan == "enterprise"  # type: ignore[union-attr]


def test_another_key_keeps_the_organisations_plan(app: Application) -> None:
    app.keys.create_key(organisation="acme", name="ci", plan="professional")
    app.keys.create_key(organisation="acme", name="second")
    assert app.ports.keys.get_organisation(slug="acme").plan == "professional"  # type: ignore[union-attr]


def test_an_unknown_plan_is_refused_and_nothing_is_created(app: Application) -> None:
    with pytest.raises(InvalidParameter) as caught:
        app.keys.create_key(organisation="acme", name="ci", plan="gold")
    assert caught.value.parameter == "plan"
    assert app.keys.list_keys() == []
    assert app.ports.keys.get_organisation(slug="acme") is None


@pytest.mark.parametrize("organisation", ["", "   ", "acme corp", "-acme", "a" * 64, "acmé"])
def test_an_invalid_organisation_id_is_refused(app: Application, organisation: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        app.keys.create_key(organisation=organisation, name="ci")
    assert caught.value.parameter == "org"


def test_a_key_needs_a_name(app: Application) -> None:
    with pytest.raises(InvalidParameter) as caught:
        app.keys.create_key(organisation="acme", name="   ")
    assert caught.value.parameter == "name"


def test_a_revoked_key_no_longer_authenticates(app: Application, clock: FixedClock) -> None:
    issued = app.keys.create_key(organisation="acme", name="ci")
    clock.current = NOW + dt.timedelta(days=3)
    assert app.keys.revoke(display_prefix=issued.record.display_prefix) == 1
    [record] = app.keys.list_keys()
    assert record.revoked_at == NOW + dt.timedelta(days=3)
    with pytest.raises(ApiKeyRevoked):
        app.authenticate.execute(authorization=f"Bearer {issued.key}", x_api_key=None)


def test_revoking_leaves_other_keys_working(app: Application) -> None:
    first = app.keys.create_key(organisation="acme", name="a")
    second = app.keys.create_key(organisation="acme", name="b")
    app.keys.revoke(display_prefix=first.record.display_prefix)
    caller = app.authenticate.execute(authorization=f"Bearer {second.key}", x_api_key=None)
    assert caller is not None


def test_revoking_an_unknown_or_already_revoked_prefix_is_an_error(app: Application) -> None:
    issued = app.keys.create_key(organisation="acme", name="ci")
    with pytest.raises(KeyNotFound):
        app.keys.revoke(display_prefix="svc_live_none")
    app.keys.revoke(display_prefix=issued.record.display_prefix)
    with pytest.raises(KeyNotFound) as caught:
        app.keys.revoke(display_prefix=issued.record.display_prefix)
    assert caught.value.code == "not_found"
    assert caught.value.message == (
        f"No live key with display prefix {issued.record.display_prefix!r} found."
    )


def test_set_plan_changes_the_organisations_plan(app: Application) -> None:
    issued = app.keys.create_key(organisation="acme", name="ci")
    updated = app.keys.set_plan(organisation="ACME", plan="professional")
    assert updated.plan == "professional"
    assert updated.slug == "acme"
    caller = app.authenticate.execute(authorization=None, x_api_key=issued.key)
    assert caller is not None
    assert caller.plan.name == "professional"


def test_set_plan_refuses_an_unknown_organisation_or_plan(app: Application) -> None:
    app.keys.create_key(organisation="acme", name="ci")
    with pytest.raises(OrganisationNotFound) as not_found:
        app.keys.set_plan(organisation="Nobody", plan="professional")
    assert not_found.value.message == "Organisation 'nobody' not found."
    with pytest.raises(InvalidParameter) as caught:
        app.keys.set_plan(organisation="acme", plan="gold")
    assert caught.value.parameter == "plan"
    assert app.ports.keys.get_organisation(slug="acme").plan == "developer"  # type: ignore[union-attr]


def test_listing_the_keys_of_an_unknown_organisation_is_not_found(app: Application) -> None:
    app.keys.create_key(organisation="acme", name="ci")
    assert [k.organisation for k in app.keys.list_keys(organisation="ACME")] == ["acme"]
    with pytest.raises(OrganisationNotFound):
        app.keys.list_keys(organisation="acne")


def test_organisations_are_listed_by_id_with_their_plans(app: Application) -> None:
    assert app.keys.list_organisations() == []
    app.keys.create_key(organisation="zeta", name="ci", plan="enterprise")
    app.keys.create_key(organisation="acme", name="ci")
    listed = [(o.slug, o.plan) for o in app.keys.list_organisations()]
    assert listed == [("acme", "developer"), ("zeta", "enterprise")]
