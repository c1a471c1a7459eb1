"""Requests over HTTP, right and wrong, to every kind of address the server has, by every kind
of caller: what each gets back (status, headers, body) is the HTTP contract as clients see it.

`baseline/http_answers.json` holds these answers; `test_http_answers_unchanged.py` asks again.
Only what differs per run is made anonymous: request ids, and the ETags and lengths of bodies
that carry one. Keys are issued from counted ids, the same on every run, and shown as sent
back: an answer that echoes a key shows it."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
from litestar.testing import TestClient
from tests.support.dataset import build_store

from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.rest.app import create_app

BASE_URL = "http://testserver.local"
START = dt.datetime(2026, 9, 1, 12, 0, 0, 250_000, tzinfo=dt.UTC)


class StoppedClock:
    """Time stands still: meter resets and dates are the same on every run."""

    def now(self) -> dt.datetime:
        return START

    def timestamp(self) -> float:
        return START.timestamp()


class Counted:
    """Request ids and random text that are the same on every run."""

    def __init__(self) -> None:
        self.count = 0

    def request_id(self) -> str:
        self.count += 1
        return f"req_{self.count:020d}"

    def random_base62(self, *, length: int) -> str:
        self.count += 1
        return (f"{self.count:0{length}d}")[-length:].replace("0", "A")


def application() -> Application:
    return bootstrap_memory(store=build_store(), clock=StoppedClock(), ids=Counted())


Case = tuple[str, str, dict[str, str], bytes | None]  # method, target, headers, body

KEYED = "enterprise"
PATHS = (
    "/",
    "/docs",
    "/health",
    "/api/v1/openapi.json",
    "/mcp",
    "/api/v1/search?query=Oak",
    "/api/v1/search?query=Oak&limit=2",
    "/api/v1/search?postcode=SW1A%201AA&radius_miles=2",
    "/api/v1/search?query=",
    "/api/v1/search?query=ab&query=cd",
    "/api/v1/search?colour=blue",
    "/api/v1/search/",
    "/api/v1/schools/100001",
    "/api/v1/schools/999999",
    "/api/v1/schools/bad",
    "/api/v1/schools/100001/",
    "/api/v1/schools/%31%30%30%30%30%31",
    "/api/v1/schools/lookup",
    "/api/v1/schools/compare",
    "/api/v1/schools/search?q=Oak&per_page=2",
    "/api/v1/schools/nearby?postcode=SW1A%201AA&per_page=2",
    "/api/v1/schools?phase=primary&page=2&per_page=1",
    "/api/v1/schools?per_page=1000",
    "/api/v1/schools?wat=1",
    "/api/get-school?urn=100001",
    "/api/get-school?urn=100001&urn=100001",
    "/api/get-school?urn=12",
    "/api/v1/meta",
    "/api/v1/data-freshness",
    "/api/v1/areas/local-authorities?per_page=2",
    "/api/v1/schools/100001/inspections",
    "/api/v1/schools/100001/results",
    "/api/v1/schools/100001/admissions",
    "/api/v1/schools/100001/finance",
    "/api/v1/schools/compare/inspections",
    "/api/v1/schools/100001/nope",
    "/api/v1/rankings?metric=svc_score&phase=secondary&per_page=2",
    "/api/v1/nowhere",
    "/nowhere",
    "/api/v1/search?query=Oak&api_key=svc_live_x",
    "/api/v1/schools?token=abc",
    "/api/v1//search?query=Oak",
    "//api/v1/search?query=Oak",
    "/api/v1/search//?query=Oak",
    "/API/V1/SEARCH?query=Oak",
    "/api/v1/schools/100001//results",
    "/api/v1/schools/compare/",
    "/api/v1/schools/lookup/inspections",
    "/api/v1/schools/search/results",
    "/api/v1/schools/nearby/finance",
    "/api/v1/schools/100001/results/",
    "/api/v1/",
    "/api/v1",
    "/api",
    "/health/",
    "/docs/",
    "/mcp/",
    "/api/v1/openapi.json/",
)
WHO = ("anonymous", "keyed", "developer", "bad-key", "conflicting")
METHODS = ("HEAD", "POST", "PUT", "DELETE", "OPTIONS")
BODY_PATHS = ("/api/v1/schools/compare", "/api/v1/schools/lookup")
BODIES: dict[str, tuple[dict[str, str], bytes]] = {
    "urns": ({"Content-Type": "application/json"}, b'{"urns": ["100001", "100002"]}'),
    "bad-json": ({"Content-Type": "application/json"}, b'{"urns": '),
    "not-json": ({"Content-Type": "text/plain"}, b'{"urns": ["100001", "100002"]}'),
    "array": ({"Content-Type": "application/json"}, b'["100001"]'),
    "unknown-member": ({"Content-Type": "application/json"}, b'{"urns": ["100001"], "x": 1}'),
    "too-large": ({"Content-Type": "application/json"}, b'{"urns": "' + b"1" * 70_000 + b'"}'),
    "empty": ({"Content-Type": "application/json"}, b""),
}
HEADERS: dict[str, dict[str, str]] = {
    "csv": {"Accept": "text/csv"},
    "png": {"Accept": "image/png"},
    "brotli": {"Accept-Encoding": "br"},
    "gzip": {"Accept-Encoding": "gzip"},
    "origin": {"Origin": "https://example.org"},
    "etag-miss": {"If-None-Match": '"nope"'},
    "preflight": {
        "Origin": "https://example.org",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "accept",
    },
}
HEADER_PATHS = (
    "/api/v1/search?query=Oak",
    "/api/v1/schools/100001",
    "/api/v1/schools?per_page=2",
    "/api/v1/schools/100001/results",
    "/api/v1/openapi.json",
    "/",
)


def cases() -> Iterator[tuple[str, str, Case]]:
    """(name, who, case) for every request of the corpus."""
    for who in WHO:
        for path in PATHS:
            yield f"{who} GET {path}", who, ("GET", path, {}, None)
    for who in ("anonymous", "keyed"):
        for method in METHODS:
            for path in ("/api/v1/search?query=Oak", "/api/v1/schools/100001", *BODY_PATHS, "/"):
                yield f"{who} {method} {path}", who, (method, path, {}, None)
        for path in BODY_PATHS:
            for label, (headers, body) in BODIES.items():
                yield f"{who} POST {path} {label}", who, ("POST", path, headers, body)
        for label, headers in HEADERS.items():
            method = "OPTIONS" if label == "preflight" else "GET"
            for path in HEADER_PATHS:
                yield f"{who} {method} {path} {label}", who, (method, path, headers, None)


MAX_SHOWN = 6_000
_REQUEST_ID = re.compile(r"req_[0-9A-Za-z]{20}")


def seen(response: httpx.Response) -> dict[str, Any]:
    """What a client sees, with what differs per run made anonymous."""
    headers = [[k, v] for k, v in response.headers.multi_items()]
    body = response.content.decode("utf-8", "replace")
    carries_id = bool(_REQUEST_ID.search(body))
    shown_headers = []
    for name, value in headers:
        value = _REQUEST_ID.sub("req_ID", value)
        if name == "etag" and carries_id:
            value = '"ETAG"'
        if name == "content-length" and carries_id:
            value = "LENGTH"
        shown_headers.append([name, value])
    shown = _REQUEST_ID.sub("req_ID", body)
    if len(shown) > MAX_SHOWN:  # (the OpenAPI document, the docs page: their digest)
        digest = hashlib.sha256(shown.encode()).hexdigest()
        return {"status": response.status_code, "headers": shown_headers, "sha256": digest}
    try:
        decoded: Any = json.loads(shown)
    except ValueError:
        decoded = shown
    return {"status": response.status_code, "headers": shown_headers, "body": decoded}


def ask_all() -> dict[str, Any]:
    """Every case, asked of one app in order (the meter counts across them, as it would)."""
    app = application()
    answers: dict[str, Any] = {}
    served = create_app(app, base_url=BASE_URL)
    with TestClient(app=served) as client:  # type: ignore[arg-type]
        for number, (name, who, (method, target, headers, body)) in enumerate(cases()):
            # A key of each plan per case: time stands still, so one key would meet its rate.
            keys = {
                plan: app.keys.create_key(organisation=plan, name=str(number), plan=plan).key
                for plan in ("enterprise", "developer")
            }
            keys["keyed"] = keys[KEYED]
            sent = dict(headers)
            if who in keys:
                sent["Authorization"] = f"Bearer {keys[who]}"
            elif who == "bad-key":
                sent["Authorization"] = "Bearer svc_live_nope"
            elif who == "conflicting":
                sent["Authorization"] = f"Bearer {keys['keyed']}"
                sent["X-API-Key"] = keys["developer"]
            response = client.request(method, target, headers=sent, content=body)
            answers[name] = seen(response)
    return answers
