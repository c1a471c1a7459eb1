"""Property tests through the whole HTTP stack (in process): what tests/unit proves of the
parsers (tests/unit/test_domain_keys.py, test_domain_urn.py, test_domain_postcode.py) also
holds once headers, paths and query strings have been through the ASGI layers.

- Authorization round trip: any spelling of `Bearer <key>` the decisions allow (scheme in any
  case, surrounding and separating whitespace) authenticates; `X-API-Key` likewise.
- Anything else in a credential header is 401 (never anonymous, never a 5xx).
- URNs in the path, search and list parameters: any text is a 200 or a documented 4xx.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from schooldata.bootstrap import bootstrap_memory, build_asgi
from schooldata.domain.keys import BASE62, KeyKind, compose_key
from schooldata.settings import load_settings
from tests.reliability.support import UNLIMITED
from tests.support.dataset import build_store

PROPERTY = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# What an HTTP client can put in a header value: visible latin-1, space and tab (no CR/LF/NUL).
HEADER_TEXT = st.text(
    alphabet=st.characters(codec="latin-1", exclude_categories=("Cc",), include_characters=" \t"),
    max_size=80,
)
SPACE = st.text(alphabet=" \t", max_size=3)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:  # type: ignore[type-arg]
    app = bootstrap_memory(store=build_store(), plans=UNLIMITED)
    key = app.keys.create_key(organisation="props", name="t", plan="enterprise").key
    settings_ = load_settings({}, home=tmp_path_factory.mktemp("props"))
    with TestClient(app=build_asgi(app, settings_), base_url="http://127.0.0.1") as client:  # type: ignore[arg-type]
        yield client, key


def any_case(word: str) -> st.SearchStrategy[str]:
    return st.tuples(*(st.sampled_from((c.lower(), c.upper())) for c in word)).map("".join)


@PROPERTY
@given(
    scheme=any_case("bearer"),
    before=SPACE,
    between=st.text(" ", min_size=1, max_size=3),
    after=SPACE,
)
def test_every_allowed_spelling_of_a_bearer_key_authenticates(
    api: tuple[TestClient, str],
    scheme: str,
    before: str,
    between: str,
    after: str,  # type: ignore[type-arg]
) -> None:
    client, key = api
    answer = client.get(
        "/api/v1/meta", headers={"Authorization": f"{before}{scheme}{between}{key}{after}"}
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"


@PROPERTY
@given(before=SPACE, after=SPACE, also_bearer=st.booleans())
def test_x_api_key_authenticates_alone_or_with_the_same_bearer_key(
    api: tuple[TestClient, str],
    before: str,
    after: str,
    also_bearer: bool,  # type: ignore[type-arg]
) -> None:
    client, key = api
    headers = {"X-API-Key": f"{before}{key}{after}"}
    if also_bearer:
        headers["Authorization"] = f"Bearer {key}"
    assert client.get("/api/v1/meta", headers=headers).status_code == 200


def _looks_like(value: str, key: str) -> bool:
    scheme, _, rest = value.strip().partition(" ")
    return scheme.lower() == "bearer" and rest.strip() == key


@PROPERTY
@given(value=HEADER_TEXT, header=st.sampled_from(("Authorization", "X-API-Key")))
def test_any_other_credential_is_401_on_every_tier(
    api: tuple[TestClient, str],
    value: str,
    header: str,  # type: ignore[type-arg]
) -> None:
    client, key = api
    if _looks_like(value, key) or value.strip() == key:
        return
    for path in ("/api/v1/meta", "/api/v1/search?query=st", "/api/v1/schools/100001"):
        answer = client.get(path, headers={header: value.encode("latin-1")})
        assert answer.status_code == 401, (path, answer.status_code, answer.text)
        # (A comma-joined list of different keys, as a repeated header may arrive, conflicts.)
        codes = (
            "invalid_api_key",
            "missing_api_key",
            *(("conflicting_credentials",) if "," in value else ()),
        )
        assert answer.json()["error"]["code"] in codes
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert key not in answer.text
        if len(value.strip()) >= 12:  # the presented credential is never echoed back
            assert value.strip() not in answer.text


@PROPERTY
@given(
    random_part=st.text(alphabet=BASE62, min_size=32, max_size=32),
    kind=st.sampled_from(list(KeyKind)),
)
def test_a_well_formed_key_nobody_issued_is_invalid(
    api: tuple[TestClient, str],
    random_part: str,
    kind: KeyKind,  # type: ignore[type-arg]
) -> None:
    client, _ = api
    answer = client.get(
        "/api/v1/meta", headers={"Authorization": f"Bearer {compose_key(kind, random_part)}"}
    )
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "invalid_api_key"


@PROPERTY
@given(position=st.integers(min_value=0, max_value=46), replacement=st.sampled_from(BASE62 + "_-"))
def test_a_one_character_change_to_the_issued_key_is_invalid(
    api: tuple[TestClient, str],
    position: int,
    replacement: str,  # type: ignore[type-arg]
) -> None:
    client, key = api
    if key[position] == replacement:
        return
    tampered = key[:position] + replacement + key[position + 1 :]
    answer = client.get("/api/v1/meta", headers={"Authorization": f"Bearer {tampered}"})
    assert answer.status_code == 401


@PROPERTY
@given(
    name=st.sampled_from(("api_key", "apikey", "key", "access_token", "token")).flatmap(any_case),
    value=st.text(alphabet=string.ascii_letters + string.digits, max_size=40),
    path=st.sampled_from(
        ("/api/v1/search?query=st", "/api/v1/meta", "/mcp", "/health", "/nowhere")
    ),
)
def test_a_key_named_parameter_in_any_case_is_refused_on_every_route(
    api: tuple[TestClient, str],
    name: str,
    value: str,
    path: str,  # type: ignore[type-arg]
) -> None:
    client, _ = api
    joiner = "&" if "?" in path else "?"
    answer = client.get(f"{path}{joiner}{name}={value}")
    assert answer.status_code == 400
    assert "api_key_in_query" in answer.text


# Not another route: `/schools`, `/schools/search`, `/schools/nearby`, `/schools/{urn}/...`;
# nor a dot segment (`.`, `..`), which the client removes from the URL before sending it
# (RFC 3986 5.2.4), so `/schools/.` is asked as `/schools/`.
URN_TEXT = st.text(max_size=12).filter(
    lambda s: s not in ("", "search", "nearby", ".", "..") and "/" not in s
)


@PROPERTY
@given(raw=URN_TEXT)
def test_any_text_as_a_urn_in_the_path_is_a_record_or_a_documented_4xx(
    api: tuple[TestClient, str],
    raw: str,  # type: ignore[type-arg]
) -> None:
    client, key = api
    for headers in ({}, {"Authorization": f"Bearer {key}"}):
        answer = client.get(f"/api/v1/schools/{quote(raw, safe='')}", headers=headers)
        six_digits = len(raw) == 6 and raw.isascii() and raw.isdigit()
        if six_digits:
            assert answer.status_code in (200, 404)
        elif raw == "compare":  # a resource of its own: POST only (405 with Allow: POST)
            assert answer.status_code == 405
        else:
            assert answer.status_code in (400, 404), (raw, answer.status_code)
            if answer.status_code == 400:
                body = answer.json()
                code = body["error"]["code"] if headers else body["code"]
                assert code == "invalid_urn"


QUERY_VALUE = st.one_of(st.text(max_size=30), st.from_regex(r"[A-Z]{1,2}[0-9]{1,2} ?[0-9][A-Z]{2}"))


@PROPERTY
@given(
    params=st.dictionaries(
        st.sampled_from(("query", "postcode", "phase", "radius_miles", "limit")),
        QUERY_VALUE,
        max_size=5,
    )
)
def test_any_public_search_parameters_get_an_answer_or_a_400(
    api: tuple[TestClient, str],
    params: dict[str, str],  # type: ignore[type-arg]
) -> None:
    client, _ = api
    answer = client.get("/api/v1/search", params=params)
    assert answer.status_code in (200, 400), (params, answer.text)
    body = answer.json()
    if answer.status_code == 200:
        assert 1 <= body["limit"] <= 25 and len(body["results"]) <= body["limit"] <= 25
        assert body["total"] >= len(body["results"])
    else:
        assert isinstance(body["error"], str) and body["code"]


@PROPERTY
@given(
    params=st.dictionaries(
        st.sampled_from(
            (
                "q",
                "postcode",
                "latitude",
                "longitude",
                "radius_miles",
                "local_authority",
                "phase",
                "type",
                "gender",
                "ofsted_rating",
                "min_score",
                "sort",
                "page",
                "per_page",
                "other",
            )
        ),
        QUERY_VALUE,
        max_size=6,
    ),
    path=st.sampled_from(("/api/v1/schools", "/api/v1/schools/search", "/api/v1/schools/nearby")),
)
def test_any_list_parameters_get_an_answer_or_a_400(
    api: tuple[TestClient, str],
    params: dict[str, str],
    path: str,  # type: ignore[type-arg]
) -> None:
    client, key = api
    answer = client.get(path, params=params, headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code in (200, 400), (path, params, answer.text)
    if answer.status_code == 400:
        assert answer.json()["error"]["code"] in (
            "invalid_parameter",
            "unknown_parameter",
            "unknown_postcode",
            "limit_exceeds_plan",
        )
