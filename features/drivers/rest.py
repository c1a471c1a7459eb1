"""The REST face: Litestar's TestClient over the served ASGI app (transport layer included).

Anonymous calls get the public shapes and errors; keyed calls the commercial envelope and
error body. The driver checks what the contract says of every response: an `X-Request-Id`,
the HTTP status of each error code, the request id repeated in a commercial body, and
`Retry-After` on every 429 (which is where `Answer.retry_after` comes from).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx
from litestar.testing import TestClient

from features.drivers import (
    Answer,
    Driver,
    FaceCannot,
    Params,
    Refusal,
    csv_rows,
    with_not_found,
)

API = "/api/v1"
REQUEST_ID = re.compile(r"^req_[0-9A-Za-z]{20}$")
STATUS_OF_CODE = {
    "invalid_parameter": 400,
    "unknown_parameter": 400,
    "invalid_urn": 400,
    "unknown_postcode": 400,
    "api_key_in_query": 400,
    "limit_exceeds_plan": 400,
    "missing_api_key": 401,
    "invalid_api_key": 401,
    "api_key_revoked": 401,
    "conflicting_credentials": 401,
    "feature_not_in_plan": 403,
    "not_found": 404,
    "since_expired": 410,
    "rate_limit_exceeded": 429,
    "quota_exceeded": 429,
    "search_unavailable": 500,
    "service_unavailable": 503,
}


class RestDriver(Driver):
    face = "rest"
    capabilities = frozenset({"keys", "metering", "envelope", "transport"})

    @property
    def client(self) -> TestClient[Any]:
        assert self._stage is not None
        return self._stage.rest

    # ------------------------------------------------------------------ operations

    def _search(self, params: Params, *, keyed: bool = False) -> Answer:
        headers = self._headers() if keyed else {}
        return self._get(f"{API}/search", params, headers, commercial=False)

    def _school(self, urn: str) -> Answer:
        return self._get(f"{API}/schools/{quote(urn, safe='')}", {}, {}, commercial=False)

    def _profile(self, urn: str) -> Answer:
        return self._get(f"{API}/schools/{quote(urn, safe='')}", {}, self._headers())

    def _list_schools(self, params: Params) -> Answer:
        return self._get(f"{API}/schools", params, self._headers())

    def _nearby(self, params: Params) -> Answer:
        return self._get(f"{API}/schools/nearby", params, self._headers())

    def _dataset(self, topic: str, urn: str, *, predecessors: bool = False) -> Answer:
        params = {"include_predecessors": "true"} if predecessors else {}
        path = f"{API}/schools/{quote(urn, safe='')}/{topic}"
        return self._get(path, params, self._headers())

    def _changes(self, params: Params) -> Answer:
        return self._get(f"{API}/changes", params, self._headers())

    def _compare(self, urns: list[str | int]) -> Answer:
        response = self.client.post(
            f"{API}/schools/compare", json={"urns": urns}, headers=self._headers()
        )
        return self._answer(response, commercial=True)

    def _lookup(self, urns: list[str | int]) -> Answer:
        response = self.client.post(
            f"{API}/schools/lookup", json={"urns": urns}, headers=self._headers()
        )
        return with_not_found(self._answer(response, commercial=True))

    def _rankings(self, params: Params) -> Answer:
        return self._get(f"{API}/rankings", params, self._headers())

    def _freshness(self) -> Answer:
        return self._get(f"{API}/data-freshness", {}, self._headers())

    def _meta(self) -> Answer:
        return self._get(f"{API}/meta", {}, self._headers())

    def search_table(self, params: Params) -> list[dict[str, str]]:
        return self._table(f"{API}/search", params, {})

    def list_table(self, params: Params) -> list[dict[str, str]]:
        return self._table(f"{API}/schools", params, self._headers())

    def _table(self, path: str, params: Params, headers: dict[str, str]) -> list[dict[str, str]]:
        response = self.client.get(
            path, params=dict(params), headers={**headers, "Accept": "text/csv"}
        )
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/csv")
        return csv_rows(response.text)

    def school_for_host(self, urn: str, host: str) -> Refusal:
        response = self.client.get(
            f"{API}/schools/{quote(urn, safe='')}", headers={"Host": host.encode()}
        )
        body = response.json()
        assert isinstance(body["error"], str), body  # the public shape: an anonymous request
        shown = response.text + str(response.headers.multi_items())
        return Refusal(
            status=response.status_code,
            code=body["code"],
            request_id=response.headers["x-request-id"],
            shown=shown,
        )

    def key_in_query(self) -> Answer:
        key = self.credentials.bearer if self.credentials else None
        if key is None:
            raise FaceCannot("no key to put in the query string")
        return self._get(f"{API}/search", {"query": "school", "api_key": key}, {}, commercial=False)

    def legacy_school(self, urn: str) -> Answer:
        return self._get("/api/get-school", {"urn": urn}, {}, commercial=False)

    # ------------------------------------------------------------------ HTTP

    def _headers(self) -> dict[str, str]:
        credentials = self.credentials
        headers: dict[str, str] = {}
        if credentials is not None and credentials.bearer:
            headers["Authorization"] = f"Bearer {credentials.bearer}"
        if credentials is not None and credentials.x_api_key:
            headers["X-API-Key"] = credentials.x_api_key
        return headers

    def _get(
        self, path: str, params: Params, headers: dict[str, str], *, commercial: bool = True
    ) -> Answer:
        response = self.client.get(path, params=dict(params), headers=headers)
        return self._answer(response, commercial=commercial)

    def _answer(self, response: httpx.Response, *, commercial: bool) -> Answer:
        headers = {name.lower(): value for name, value in response.headers.items()}
        request_id = headers.get("x-request-id", "")
        assert REQUEST_ID.match(request_id), f"no X-Request-Id on {response.request.url}"
        body = response.json()
        status = response.status_code
        if status == 200:
            if not commercial:
                return Answer(face=self.face, ok=True, body=body, status=status, headers=headers)
            assert body["meta"]["request_id"] == request_id, "meta.request_id != X-Request-Id"
            return Answer(
                face=self.face,
                ok=True,
                body=body["data"],
                pagination=body["meta"].get("pagination"),
                meta=body["meta"],
                status=status,
                headers=headers,
            )
        error = body["error"]
        if isinstance(error, dict):  # the commercial error body
            assert error["request_id"] == request_id, "error.request_id != X-Request-Id"
            code, message, details = error["code"], error["message"], dict(error["details"])
        else:  # the public one: {"error": "<text>", "code": "<code>"}
            code, message, details = body.get("code"), error, {}
        assert STATUS_OF_CODE.get(code) == status, f"{code!r} answered with HTTP {status}"
        retry_after = None
        if status == 429:
            assert "retry-after" in headers, "a 429 without Retry-After"
            retry_after = int(headers["retry-after"])
        if status == 401:
            assert headers.get("www-authenticate", "").startswith("Bearer")
        return Answer(
            face=self.face,
            ok=False,
            code=code,
            message=message,
            details=details,
            retry_after=retry_after,
            status=status,
            headers=headers,
        )
