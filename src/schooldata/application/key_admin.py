"""Key and organisation administration (the CLI's `keys` and `orgs` commands)."""

from __future__ import annotations

import re

from attrs import frozen

from schooldata.domain.errors import InvalidParameter, KeyNotFound, OrganisationNotFound
from schooldata.domain.keys import (
    ApiKeyRecord,
    KeyKind,
    Organisation,
    compose_key,
    key_hash,
    parse_key,
)
from schooldata.domain.plans import PlanCatalogue
from schooldata.ports.clock import Clock, IdSource
from schooldata.ports.keys import KeyStore

_SLUG = re.compile(r"[a-z0-9][a-z0-9_.-]{0,62}")


@frozen
class IssuedKey:
    key: str  # shown once, to the person who asked, then forgotten
    record: ApiKeyRecord


class KeyAdmin:
    """- A key belongs to an organisation and inherits its plan; creating a key for a new
      organisation creates it on the given plan (default developer).
    - The key is returned once; only its HMAC and display prefix are stored.
    - Revoking by display prefix revokes every live key with that prefix; a prefix no live
      key has is not found.
    - Naming an organisation that does not exist (to list its keys, to change its plan) is
      not found; only creating a key creates an organisation."""

    def __init__(
        self, *, keys: KeyStore, plans: PlanCatalogue, secret: bytes, clock: Clock, ids: IdSource
    ) -> None:
        self._keys = keys
        self._plans = plans
        self._secret = secret
        self._clock = clock
        self._ids = ids

    def create_key(
        self, *, organisation: str, name: str, plan: str | None = None, test: bool = False
    ) -> IssuedKey:
        slug = organisation.strip().lower()
        if _SLUG.fullmatch(slug) is None:
            raise InvalidParameter(
                "org", "Organisation ids are 1-63 characters of a-z, 0-9, '.', '_' or '-'."
            )
        if not name.strip():
            raise InvalidParameter("name", "A key needs a name.")
        existing = self._keys.get_organisation(slug=slug)
        if existing is None or plan is not None:
            chosen = self._plans.get(plan or (existing.plan if existing else "developer")).name
            self._keys.save_organisation(
                organisation=Organisation(slug=slug, name=organisation.strip(), plan=chosen)
            )
        kind = KeyKind.TEST if test else KeyKind.LIVE
        key = compose_key(kind, self._ids.random_base62(length=32))
        parsed = parse_key(key)
        record = ApiKeyRecord(
            key_hash=key_hash(self._secret, key),
            display_prefix=parsed.display_prefix,
            organisation=slug,
            name=name.strip(),
            kind=kind,
            created_at=self._clock.now(),
        )
        self._keys.add_key(record=record)
        return IssuedKey(key=key, record=record)

    def list_keys(self, *, organisation: str | None = None) -> list[ApiKeyRecord]:
        if organisation is None:
            return self._keys.list_keys()
        slug = self._existing(organisation).slug
        return self._keys.list_keys(organisation=slug)

    def list_organisations(self) -> list[Organisation]:
        return sorted(self._keys.list_organisations(), key=lambda o: o.slug)

    def revoke(self, *, display_prefix: str) -> int:
        prefix = display_prefix.strip()
        count = self._keys.revoke_key(display_prefix=prefix, at=self._clock.now())
        if count == 0:
            raise KeyNotFound(prefix)
        return count

    def set_plan(self, *, organisation: str, plan: str) -> Organisation:
        chosen = self._plans.get(plan).name
        existing = self._existing(organisation)
        slug = existing.slug
        updated = Organisation(slug=slug, name=existing.name, plan=chosen)
        self._keys.save_organisation(organisation=updated)
        return updated

    def _existing(self, organisation: str) -> Organisation:
        slug = organisation.strip().lower()
        existing = self._keys.get_organisation(slug=slug)
        if existing is None:
            raise OrganisationNotFound(slug)
        return existing
