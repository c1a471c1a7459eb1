"""The registry's GETs answered before Litestar say exactly what Litestar's own handlers say:
the same status, headers and body for every route, right or wrong, public or keyed; a path
that is not exactly a registry route still reaches Litestar."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.dataset import build_store
from tests.support.twins import LITESTAR_ROAD, dispatching_unless_told, seen

from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.rest.app import create_app
from schooldata.entrypoints.rest.dispatch import RegistryGets


class Twin:
    def __init__(
        self,
        direct: TestClient,  # type: ignore[type-arg]
        litestar: TestClient,  # type: ignore[type-arg]
        keys: tuple[str, str],
        dispatcher: RegistryGets,
    ) -> None:
        self.direct, self.litestar, self.keys = direct, litestar, keys
        self.dispatcher = dispatcher

    def both(
        self, path: str, *, keyed: bool = False, method: str = "GET", **headers: str
    ) -> tuple[httpx.Response, httpx.Response]:
        first, second = (
            ({"X-API-Key": self.keys[0]}, {"X-API-Key": self.keys[1]}) if keyed else ({}, {})
        )
        sent = {k.replace("_", "-"): v for k, v in headers.items()}
        return (
            self.direct.request(method, path, headers={**sent, **first}),
            self.litestar.request(method, path, headers={**sent, **second}),
        )


@pytest.fixture(scope="module")
def twin() -> Iterator[Twin]:
    first, second = bootstrap_memory(store=build_store()), bootstrap_memory(store=build_store())
    keys = (issue_key(first, "enterprise"), issue_key(second, "enterprise"))
    base = "http://testserver.local"
    served = create_app(first, base_url=base)
    dispatcher = served._app  # type: ignore[attr-defined]  # (the edge's inner app)
    assert isinstance(dispatcher, RegistryGets)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RegistryGets, "__call__", dispatching_unless_told())
        with (
            TestClient(app=served) as direct,  # type: ignore[arg-type]
            TestClient(app=create_app(second, base_url=base)) as litestar,  # type: ignore[arg-type]
        ):
            litestar.headers[LITESTAR_ROAD] = "litestar"
            yield Twin(direct, litestar, keys, dispatcher)


def assert_same(direct: httpx.Response, litestar: httpx.Response) -> None:
    assert seen(direct) == seen(litestar)


PATHS = [
    "/api/v1/search?query=Oak",
    "/api/v1/search?postcode=SW1A%201AA&radius_miles=2",
    "/api/v1/search?query=",
    "/api/v1/search?colour=blue",
    "/api/v1/search/",
    "/api/v1/schools/100001",
    "/api/v1/schools/999999",
    "/api/v1/schools/bad",
    "/api/v1/schools/100001/",
    "/api/v1/schools/lookup",
    "/api/v1/schools/compare",
    "/api/v1/schools/search",
    "/api/v1/schools/search?q=Oak&per_page=2",
    "/api/v1/schools/nearby?postcode=SW1A%201AA",
    "/api/v1/schools?phase=primary&page=2&per_page=1",
    "/api/get-school?urn=100001",
    "/api/v1/meta",
    "/api/v1/data-freshness",
    "/api/v1/areas/local-authorities",
    "/api/v1/schools/100001/inspections",
    "/api/v1/schools/100001/results",
    "/api/v1/schools/100001/admissions",
    "/api/v1/schools/100001/finance",
    "/api/v1/schools/compare/inspections",
    "/api/v1/schools/100001/nope",
    "/api/v1/rankings?local_authority=Westminster",
    "/api/v1/nowhere",
    "/api/v1/schools/%31%30%30%30%30%31",
]


@pytest.mark.parametrize("keyed", [False, True], ids=["anonymous", "keyed"])
@pytest.mark.parametrize("path", PATHS)
def test_a_registry_get_answered_before_litestar_is_what_litestar_answers(
    twin: Twin, path: str, keyed: bool
) -> None:
    assert_same(*twin.both(path, keyed=keyed))


@pytest.mark.parametrize(
    "headers",
    [
        {"Accept": "text/csv"},
        {"Accept": "image/png"},
        {"Accept-Encoding": "br"},
        {"Origin": "https://example.org"},
        {"Host": "bad host"},
        {"Authorization": "Bearer nope"},
    ],
)
def test_request_headers_change_nothing_between_the_two_roads(
    twin: Twin, headers: dict[str, str]
) -> None:
    for path in ("/api/v1/search?query=Oak", "/api/v1/schools?per_page=2"):
        assert_same(*twin.both(path, **{k.replace("-", "_"): v for k, v in headers.items()}))


def test_head_is_answered_alike(twin: Twin) -> None:
    assert_same(*twin.both("/api/v1/schools/100001", method="HEAD"))


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    segment=st.text(
        st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="/?#%"),
        max_size=8,
    ),
    tail=st.sampled_from(["", "/inspections", "/results", "/x", "/"]),
    keyed=st.booleans(),
)
def test_any_school_path_is_answered_alike(
    twin: Twin, segment: str, tail: str, keyed: bool
) -> None:
    assert_same(*twin.both(f"/api/v1/schools/{segment}{tail}", keyed=keyed))


def test_a_registry_get_never_reaches_litestar(twin: Twin, monkeypatch: pytest.MonkeyPatch) -> None:
    reached: list[str] = []

    async def litestar(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        raise AssertionError("Litestar was asked")

    monkeypatch.setattr(twin.dispatcher, "_app", litestar)
    assert twin.direct.get("/api/v1/schools/100001").status_code == 200
    assert twin.direct.get("/api/v1/search?query=Oak").status_code == 200
    assert reached == []
