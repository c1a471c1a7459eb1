"""HTTP caching, compression and CORS around the REST face (in process)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import brotli
import httpx
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.http import bearer

from schooldata.application.service import Application
from schooldata.entrypoints.rest.app import create_app

IDENTITY = {"Accept-Encoding": "identity"}
ORIGIN = "https://schools.example.org"


# ---- ETags and Cache-Control ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/search?query=st%20mary",
        "/api/v1/schools/100001",
        "/api/get-school?urn=100001",
        "/api/v1/openapi.json",
    ],
)
def test_public_answers_carry_a_strong_etag_and_are_publicly_cacheable(
    client: TestClient, path: str
) -> None:
    response = client.get(path, headers=IDENTITY)
    assert response.status_code == 200
    etag = response.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    assert response.headers["cache-control"] == "public, max-age=300"
    assert "accept-encoding" in response.headers["vary"].lower()
    again = client.get(path, headers=IDENTITY)
    assert again.headers["etag"] == etag, "the same answer has the same validator"


def test_a_matching_if_none_match_gets_304_with_validators_and_no_body(
    client: TestClient,
) -> None:
    first = client.get("/api/v1/search?query=st%20mary", headers=IDENTITY)
    etag = first.headers["etag"]
    response = client.get(
        "/api/v1/search?query=st%20mary", headers={**IDENTITY, "If-None-Match": etag}
    )
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == etag
    assert response.headers["cache-control"] == "public, max-age=300"
    assert response.headers["x-request-id"].startswith("req_")
    # Weak comparison, lists and `*`, as RFC 9110 says for If-None-Match.
    for header in (f"W/{etag}", f'"nope", {etag}', "*"):
        again = client.get(
            "/api/v1/search?query=st%20mary", headers={**IDENTITY, "If-None-Match": header}
        )
        assert again.status_code == 304, header


def test_a_stale_etag_gets_the_full_answer(client: TestClient) -> None:
    etag = client.get("/api/v1/search?query=st%20mary", headers=IDENTITY).headers["etag"]
    response = client.get("/api/v1/search?query=camden", headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert response.json()["query"] == "camden"


def test_the_gzip_representation_has_its_own_strong_etag(client: TestClient) -> None:
    path = "/api/v1/openapi.json"
    plain = client.get(path, headers=IDENTITY)
    zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers["etag"] != plain.headers["etag"]
    assert zipped.json() == plain.json()
    # Either tag revalidates, and the 304 names the representation the client would get.
    response = client.get(
        path, headers={"Accept-Encoding": "gzip", "If-None-Match": plain.headers["etag"]}
    )
    assert response.status_code == 304
    assert response.headers["etag"] == zipped.headers["etag"]


def test_errors_are_not_given_validators(client: TestClient) -> None:
    for path in ("/api/v1/search?query=x", "/api/v1/schools/999999", "/api/v1/schools/12"):
        response = client.get(path)
        assert response.status_code in (400, 404)
        assert "etag" not in response.headers


def test_keyed_answers_stay_no_store_and_get_no_etag(client: TestClient, app: Application) -> None:
    key = issue_key(app)
    for path in ("/api/v1/schools/100001", "/api/v1/meta", "/api/v1/search?query=st%20mary"):
        response = client.get(path, headers=bearer(key))
        assert response.status_code == 200, path
        assert response.headers["cache-control"] == "no-store", path
        assert "etag" not in response.headers, path
    response = client.get("/api/v1/schools/100001", headers={"X-API-Key": key})
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers


def test_a_keyed_request_never_revalidates_against_a_public_etag(
    client: TestClient, app: Application
) -> None:
    etag = client.get("/api/v1/schools/100001", headers=IDENTITY).headers["etag"]
    response = client.get(
        "/api/v1/schools/100001", headers={**bearer(issue_key(app)), "If-None-Match": etag}
    )
    assert response.status_code == 200
    assert "data" in response.json()


# ---- content coding: brotli, gzip -------------------------------------------------------------


def test_large_bodies_are_gzipped_when_accepted(client: TestClient, app: Application) -> None:
    response = client.get(
        "/api/v1/schools", headers={**bearer(issue_key(app)), "Accept-Encoding": "gzip"}
    )
    assert response.headers["content-encoding"] == "gzip"
    assert response.json()["data"]
    raw = client.get("/api/v1/schools", headers={**bearer(issue_key(app, org="b")), **IDENTITY})
    assert "content-encoding" not in raw.headers
    assert len(raw.content) >= 1024


def test_small_bodies_and_refusing_clients_get_identity(client: TestClient) -> None:
    small = client.get("/health", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers
    refused = client.get(
        "/api/v1/openapi.json", headers={"Accept-Encoding": "gzip;q=0, br;q=0, deflate"}
    )
    assert "content-encoding" not in refused.headers


@pytest.mark.parametrize(
    ("accepted", "coding"),
    [
        ("br", "br"),
        ("gzip, br", "br"),  # no preference: the smaller coding
        ("gzip;q=1, br;q=0.5", "gzip"),
        ("br;q=0.9, gzip;q=0.8", "br"),
        ("gzip;q=0, br", "br"),
        ("*", "br"),
        ("*;q=0.5, gzip", "gzip"),
        ("identity", None),
    ],
)
def test_the_coding_follows_the_clients_q_values(
    client: TestClient, accepted: str, coding: str | None
) -> None:
    stream = client.stream
    with stream("GET", "/api/v1/openapi.json", headers={"Accept-Encoding": accepted}) as coded:
        raw = b"".join(coded.iter_raw())
        headers = coded.headers
    identity = client.get("/api/v1/openapi.json", headers=IDENTITY)
    assert headers.get("content-encoding") == coding
    decoded = {"br": brotli.decompress, "gzip": gzip.decompress, None: bytes}[coding](raw)
    assert decoded == identity.content
    assert "accept-encoding" in headers["vary"].lower()
    if coding is not None:
        assert headers["etag"] == identity.headers["etag"][:-1] + f'-{coding}"'


def test_a_304_answers_either_representations_validator(client: TestClient) -> None:
    coded = client.get("/api/v1/openapi.json", headers={"Accept-Encoding": "br"})
    again = client.get(
        "/api/v1/openapi.json",
        headers={"Accept-Encoding": "br", "If-None-Match": coded.headers["etag"]},
    )
    assert again.status_code == 304
    assert again.headers["etag"] == coded.headers["etag"]


def test_gzip_bytes_are_deterministic(client: TestClient) -> None:
    stream = client.stream  # the raw bytes, before the client decodes them
    bodies = []
    for _ in range(2):
        with stream("GET", "/api/v1/openapi.json", headers={"Accept-Encoding": "gzip"}) as r:
            bodies.append(b"".join(r.iter_raw()))
    assert bodies[0] == bodies[1]
    assert gzip.decompress(bodies[0]).startswith(b"{")


# ---- CORS ------------------------------------------------------------------------------------


def test_public_gets_are_readable_from_any_origin_by_default(client: TestClient) -> None:
    response = client.get("/api/v1/search?query=st%20mary", headers={"Origin": ORIGIN})
    assert response.headers["access-control-allow-origin"] == "*"
    exposed = response.headers["access-control-expose-headers"].lower()
    assert "etag" in exposed and "x-request-id" in exposed
    assert "access-control-allow-credentials" not in response.headers


def test_no_cors_grant_for_keyed_or_commercial_requests(
    client: TestClient, app: Application
) -> None:
    key = issue_key(app)
    keyed = client.get("/api/v1/search?query=st", headers={"Origin": ORIGIN, **bearer(key)})
    assert "access-control-allow-origin" not in keyed.headers
    commercial = client.get("/api/v1/meta", headers={"Origin": ORIGIN, **bearer(key)})
    assert "access-control-allow-origin" not in commercial.headers
    assert (
        "access-control-allow-origin"
        not in client.get("/metrics", headers={"Origin": ORIGIN}).headers
    )


def preflight(
    client: TestClient, path: str, method: str = "GET", headers: str = ""
) -> httpx.Response:
    request = {"Origin": ORIGIN, "Access-Control-Request-Method": method}
    if headers:
        request["Access-Control-Request-Headers"] = headers
    return client.options(path, headers=request)


def test_preflight_allows_public_gets_with_harmless_headers(client: TestClient) -> None:
    response = preflight(client, "/api/v1/search", headers="if-none-match, accept")
    assert response.status_code == 204
    headers = response.headers
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "GET, HEAD"
    allowed = headers["access-control-allow-headers"].lower()
    assert "if-none-match" in allowed
    assert "authorization" not in allowed and "x-api-key" not in allowed


@pytest.mark.parametrize("asked", ["authorization", "x-api-key", "Accept, Authorization"])
def test_preflight_never_allows_the_credential_headers(client: TestClient, asked: str) -> None:
    response = preflight(client, "/api/v1/schools/100001", headers=asked)
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-headers" not in response.headers


def test_preflight_refuses_other_methods_and_commercial_paths(client: TestClient) -> None:
    for path, method in (("/api/v1/search", "POST"), ("/api/v1/schools/compare", "POST")):
        response = preflight(client, path, method=method, headers="content-type")
        assert "access-control-allow-origin" not in response.headers
    response = preflight(client, "/api/v1/meta")
    assert "access-control-allow-origin" not in response.headers


@pytest.fixture
def listed_client(app: Application) -> Iterator[TestClient]:  # type: ignore[type-arg]
    asgi = create_app(app, base_url="http://testserver.local", cors_origins=(ORIGIN,))
    with TestClient(app=asgi) as test_client:  # type: ignore[arg-type]
        yield test_client


def test_configured_origins_are_the_only_ones_allowed(listed_client: TestClient) -> None:
    allowed = listed_client.get("/api/v1/search?query=st", headers={"Origin": ORIGIN})
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    assert "origin" in allowed.headers["vary"].lower()
    other = listed_client.get("/api/v1/search?query=st", headers={"Origin": "https://evil.test"})
    assert "access-control-allow-origin" not in other.headers
    assert "origin" in other.headers["vary"].lower()


def test_cors_can_be_switched_off(app: Application) -> None:
    asgi = create_app(app, base_url="http://testserver.local", cors_origins=("none",))
    with TestClient(app=asgi) as off:  # type: ignore[arg-type]
        response = off.get("/api/v1/search?query=st", headers={"Origin": ORIGIN})
        assert "access-control-allow-origin" not in response.headers
