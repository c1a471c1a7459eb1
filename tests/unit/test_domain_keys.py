"""API keys: format, checksum, display prefix, hashing, and credential extraction."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.credentials import (
    Recogniser,
    extract_credentials,
    recognise,
    recognition_key,
    single_header_value,
)
from schooldata.domain.keys import (
    BASE62,
    ApiKeyRecord,
    ConflictingCredentials,
    InvalidApiKey,
    KeyKind,
    compose_key,
    key_hash,
    parse_key,
)

RANDOM_PARTS = st.text(alphabet=BASE62, min_size=32, max_size=32)
KINDS = st.sampled_from(list(KeyKind))
RANDOM = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY"
VALID = compose_key(KeyKind.LIVE, RANDOM)
SECRET = b"a-server-side-secret-of-enough-length"


@settings(max_examples=50)
@given(kind=KINDS, random_part=RANDOM_PARTS)
def test_a_composed_key_parses_back_to_its_parts(kind: KeyKind, random_part: str) -> None:
    key = compose_key(kind, random_part)
    parsed = parse_key(key)
    assert parsed.kind is kind
    assert parsed.random_part == random_part
    assert parsed.text == key
    assert key.startswith(f"svc_{kind.value}_")
    assert len(key) == len(kind.prefix) + 32 + 6


@settings(max_examples=40)
@given(
    kind=KINDS,
    random_part=RANDOM_PARTS,
    data=st.data(),
)
def test_any_single_character_change_makes_the_key_invalid(
    kind: KeyKind, random_part: str, data: st.DataObject
) -> None:
    key = compose_key(kind, random_part)
    position = data.draw(st.integers(min_value=0, max_value=len(key) - 1))
    replacement = data.draw(
        st.one_of(st.sampled_from(BASE62 + "_-+/= "), st.characters()).filter(
            lambda c: c != key[position]
        )
    )
    tampered = key[:position] + replacement + key[position + 1 :]
    with pytest.raises(InvalidApiKey):
        parse_key(tampered)


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "svc_live_",
        VALID[:-1],
        VALID + "A",
        VALID.replace("svc_live_", "svc_prod_"),
        VALID.replace("svc_live_", "SVC_LIVE_"),
        " " + VALID,
        VALID + "\n",
        VALID[len("svc_live_") :],
        "Bearer " + VALID,
        VALID[:-1] + "\u0663",  # ARABIC-INDIC DIGIT THREE: a digit, not base62
        VALID[:12] + "\u00e9" + VALID[13:],  # a letter, not base62
        VALID[:12] + "\uff21" + VALID[13:],  # FULLWIDTH A
    ],
)
def test_malformed_keys_are_invalid(raw: str) -> None:
    with pytest.raises(InvalidApiKey):
        parse_key(raw)


def test_the_invalid_key_error_does_not_say_which_part_failed() -> None:
    messages = set()
    for raw in ("", VALID[:-1], VALID[:-1] + ("0" if VALID[-1] != "0" else "1")):
        with pytest.raises(InvalidApiKey) as caught:
            parse_key(raw)
        messages.add(caught.value.message)
        assert caught.value.code == "invalid_api_key"
    assert len(messages) == 1


@pytest.mark.parametrize("random_part", ["short", RANDOM + "x", RANDOM[:-1] + "!", "é" * 32])
def test_compose_key_refuses_a_random_part_that_is_not_32_base62_characters(
    random_part: str,
) -> None:
    with pytest.raises(ValueError, match="32 base62"):
        compose_key(KeyKind.LIVE, random_part)


@settings(max_examples=60)
@given(random_part=RANDOM_PARTS)
def test_the_display_prefix_is_svc_live_and_four_random_characters(random_part: str) -> None:
    parsed = parse_key(compose_key(KeyKind.LIVE, random_part))
    assert parsed.display_prefix == "svc_live_" + random_part[:4]
    assert len(parsed.display_prefix) == 13


def test_a_test_key_shows_the_test_prefix() -> None:
    parsed = parse_key(compose_key(KeyKind.TEST, RANDOM))
    assert parsed.display_prefix == "svc_test_" + RANDOM[:4]


def test_the_key_hash_is_not_the_key_and_does_not_contain_it() -> None:
    digest = key_hash(SECRET, VALID)
    assert digest != VALID
    assert RANDOM not in digest
    assert len(digest) == 64
    int(digest, 16)


def test_the_key_hash_depends_on_the_server_secret() -> None:
    assert key_hash(SECRET, VALID) != key_hash(SECRET + b"x", VALID)


def test_the_key_hash_is_stable_for_the_same_secret_and_key() -> None:
    assert key_hash(SECRET, VALID) == key_hash(SECRET, VALID)


@settings(max_examples=40)
@given(a=RANDOM_PARTS, b=RANDOM_PARTS)
def test_different_keys_have_different_hashes(a: str, b: str) -> None:
    if a != b:
        assert key_hash(SECRET, compose_key(KeyKind.LIVE, a)) != key_hash(
            SECRET, compose_key(KeyKind.LIVE, b)
        )


def test_the_key_hash_is_domain_separated_from_a_plain_hmac_of_the_key() -> None:
    plain = hmac.new(SECRET, VALID.encode(), hashlib.sha256).hexdigest()
    assert key_hash(SECRET, VALID) != plain


# ---------------------------------------------------------------------------- credentials


def test_no_credentials_is_anonymous() -> None:
    assert extract_credentials(None, None) is None


def test_the_bearer_token_is_taken_from_the_authorization_header() -> None:
    assert extract_credentials(f"Bearer {VALID}", None) == VALID


@pytest.mark.parametrize("header", [f"bearer {VALID}", f"BEARER   {VALID}  ", f"  Bearer {VALID}"])
def test_the_bearer_scheme_is_case_insensitive_and_spacing_tolerant(header: str) -> None:
    assert extract_credentials(header, None) == VALID


def test_the_x_api_key_header_is_accepted() -> None:
    assert extract_credentials(None, VALID) == VALID
    assert extract_credentials(None, f"  {VALID} ") == VALID


def test_bearer_is_preferred_and_an_equal_x_api_key_is_fine() -> None:
    assert extract_credentials(f"Bearer {VALID}", VALID) == VALID


def test_different_keys_in_both_headers_conflict() -> None:
    other = compose_key(KeyKind.LIVE, RANDOM[::-1])
    with pytest.raises(ConflictingCredentials) as caught:
        extract_credentials(f"Bearer {VALID}", other)
    assert caught.value.code == "conflicting_credentials"


@pytest.mark.parametrize(
    "header",
    [
        f"Basic {VALID}",
        f"Token {VALID}",
        VALID,
        "Bearer",
        "Bearer    ",
        "",
        "   ",
    ],
)
def test_a_non_bearer_or_empty_authorization_header_is_an_invalid_key(header: str) -> None:
    with pytest.raises(InvalidApiKey):
        extract_credentials(header, None)


def test_a_malformed_authorization_header_is_not_rescued_by_x_api_key() -> None:
    with pytest.raises(InvalidApiKey):
        extract_credentials(f"Basic {VALID}", VALID)


@pytest.mark.parametrize("header", ["", "   "])
def test_an_empty_x_api_key_header_is_an_invalid_key(header: str) -> None:
    with pytest.raises(InvalidApiKey):
        extract_credentials(None, header)


def test_a_record_is_revoked_exactly_when_it_has_a_revocation_time() -> None:
    now = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
    record = ApiKeyRecord(
        key_hash=key_hash(SECRET, VALID),
        display_prefix="svc_live_aB3d",
        organisation="acme",
        name="ci",
        kind=KeyKind.LIVE,
        created_at=now,
    )
    assert not record.revoked
    assert attrs.evolve(record, revoked_at=now).revoked


def test_a_recognition_hash_is_neither_the_key_nor_its_stored_hash() -> None:
    seen = recognise(recognition_key(SECRET), VALID)
    assert len(seen) == 32  # BLAKE2b-256
    assert RANDOM.encode() not in seen
    assert seen.hex() != key_hash(SECRET, VALID)


def test_recognition_depends_on_the_server_secret() -> None:
    assert recognise(recognition_key(SECRET), VALID) != recognise(
        recognition_key(SECRET + b"x"), VALID
    )
    assert recognise(recognition_key(SECRET), VALID) == recognise(recognition_key(SECRET), VALID)


@settings(max_examples=60)
@given(key=st.text(max_size=80), secret=st.binary(min_size=1, max_size=40))
def test_a_recogniser_recognises_every_key_as_recognise_does(key: str, secret: bytes) -> None:
    recognition = recognition_key(secret)
    recogniser = Recogniser(recognition)
    assert recogniser(key) == recognise(recognition, key)
    assert recogniser(key) == recogniser(key)  # (its keyed state is copied, never consumed)


@settings(max_examples=40)
@given(a=st.text(max_size=60), b=st.text(max_size=60))
def test_different_presented_keys_are_recognised_apart(a: str, b: str) -> None:
    """Any text a header can carry (lone surrogates included) hashes, and only equal text
    hashes alike."""
    key = recognition_key(SECRET)
    assert (recognise(key, a) == recognise(key, b)) == (a == b)


def test_a_credential_header_repeated_with_different_keys_conflicts() -> None:
    first, second = "svc_live_" + "a" * 38, "svc_live_" + "b" * 38
    with pytest.raises(ConflictingCredentials, match=r"^'Authorization' carries different keys"):
        single_header_value([f"Bearer {first}", f"Bearer {second}"], header="Authorization")
    with pytest.raises(ConflictingCredentials, match=r"^'X-API-Key' carries different keys"):
        # one comma-joined line (RFC 9110 5.3)
        single_header_value([f"{first}, {second}"], header="X-API-Key")


def test_a_credential_header_repeated_with_the_same_key_is_that_key() -> None:
    key = "svc_test_" + "c" * 38
    assert single_header_value([key, key], header="Authorization") == key
    assert (
        single_header_value([f"Bearer {key}, Bearer {key}"], header="Authorization")
        == f"Bearer {key}"
    )
    assert single_header_value([], header="Authorization") is None


@pytest.mark.parametrize("junk", ["a,b", "Digest user=x, realm=y", "svc_live_x, junk"])
def test_junk_with_commas_stays_whole_to_be_refused_as_invalid(junk: str) -> None:
    assert single_header_value([junk], header="Authorization") == junk
