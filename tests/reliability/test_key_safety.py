"""Key safety: a key never appears in a log line, a response (body or header), a database row
or the metrics; secret comparisons are constant-time; browsers cannot send keys cross-origin;
keyed answers are never stored by caches.
"""

from __future__ import annotations

import ast
import hmac
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

import schooldata.application.access as access_module
import schooldata.domain.credentials as credentials_module
import schooldata.domain.keys as keys_module
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap, bootstrap_memory, build_asgi
from schooldata.domain.credentials import extract_credentials
from schooldata.domain.keys import KeyKind, compose_key, parse_key
from schooldata.settings import load_settings
from tests.reliability.support import (
    KEY_SECRET,
    captured_logs,
    load_fixture,
    postgres_schema,
    sql_store,
    stored_text,
    text_columns,
)
from tests.support.compiled import source_of
from tests.support.dataset import build_store
from tests.support.servers import live_server

MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "key-safety", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def mcp(method: str, params: dict[str, Any] | None = None) -> tuple[dict[str, str], bytes]:
    headers = {**MCP_HEADERS, "Mcp-Method": method}
    if method == "tools/call":
        headers["Mcp-Name"] = str((params or {})["name"])
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": method,
        "params": {**(params or {}), "_meta": META},
    }
    return headers, json.dumps(body).encode()


@dataclass
class Issued:
    live: str
    test: str
    developer: str
    revoked: str

    def secrets(self) -> list[str]:
        """Every key whole, and the parts that identify it (random part, random + checksum)."""
        found = []
        for key in (self.live, self.test, self.developer, self.revoked):
            found += [key, key[9:], key[9:41]]
        return found


def exercise(base: str, issued: Issued) -> list[httpx.Response]:
    """Every way a key reaches the service, good and bad."""
    wrong = issued.live[:-1] + ("A" if issued.live[-1] != "A" else "B")
    forged = compose_key(KeyKind.LIVE, "Z" * 32)
    answers: list[httpx.Response] = []
    with httpx.Client(base_url=base, timeout=30) as client:

        def get(path: str, **headers: str) -> None:
            answers.append(client.get(path, headers=headers))

        bearer = {"Authorization": f"Bearer {issued.live}"}
        for path in (
            "/api/v1/meta",
            "/api/v1/schools/100001",
            "/api/v1/schools/100001/finance",
            "/api/v1/schools?q=academy",
            "/api/v1/schools/999999",
            "/api/v1/search?query=st",
            "/api/get-school?urn=100001",
            "/api/v1/schools?unknown=1",
        ):
            get(path, **bearer)
        get("/api/v1/meta", **{"X-API-Key": issued.test})
        get("/api/v1/meta", Authorization=f"Bearer {issued.live}", **{"X-API-Key": issued.test})
        get("/api/v1/meta", Authorization=f"Bearer {issued.revoked}")
        get("/api/v1/meta", Authorization=f"Bearer {wrong}")
        get("/api/v1/meta", Authorization=f"Bearer {forged}")
        get("/api/v1/meta", Authorization=f"Basic {issued.live}")
        get("/api/v1/schools/100001/finance", Authorization=f"Bearer {issued.developer}")  # 403
        with ThreadPoolExecutor(max_workers=12) as pool:  # developer: 5/s -> some 429s
            burst = [
                pool.submit(
                    client.get,
                    "/api/v1/meta",
                    headers={"Authorization": f"Bearer {issued.developer}"},
                )
                for _ in range(12)
            ]
            answers.extend(future.result() for future in burst)
        for name in ("api_key", "token", "ApiKey", "access_token"):
            get(f"/api/v1/search?query=st&{name}={issued.live}")
            get(f"/api/v1/meta?{name}={issued.live}", **bearer)
            get(f"/mcp?{name}={issued.live}")
        # A key pasted into the wrong field: never echoed back beyond its display prefix.
        key = issued.live
        for path in (
            f"/api/v1/schools/{key}",
            f"/api/get-school?urn={key}",
            f"/api/v1/search?postcode={key}",
            f"/api/v1/search?query=st&phase={key}",
            f"/api/v1/search?query=st&limit={key}",
            f"/api/v1/schools?local_authority={key}&sort={key}",
            f"/api/v1/schools?{key}=1",
            f"/api/v1/rankings?metric={key}&phase=primary",
            f"/api/v1/schools/nearby?postcode={key}",
            f"/api/v1/search?query={key}",
        ):
            get(path)
            get(path, **bearer)
        answers.append(
            client.post(
                "/api/v1/schools/compare",
                json={"urns": ["100001", issued.live]},
                headers=bearer,
            )
        )
        for method, params, key in (
            ("tools/list", None, issued.live),
            ("tools/call", {"name": "get_school", "arguments": {"urn": "100001"}}, issued.live),
            ("tools/call", {"name": "get_school", "arguments": {"urn": issued.live}}, issued.live),
            ("tools/list", None, wrong),
            ("tools/list", None, issued.revoked),
            ("tools/call", {"name": issued.live, "arguments": {}}, issued.live),
            (issued.live, {}, issued.live),
        ):
            headers, body = mcp(method, params)
            headers["Authorization"] = f"Bearer {key}"
            answers.append(client.post("/mcp", content=body, headers=headers))
        headers, body = mcp("tools/list")
        answers.append(
            client.post("/mcp", content=body, headers={**headers, "MCP-Protocol-Version": key})
        )
        answers.append(client.get("/metrics"))
    return answers


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'keys.sqlite3'}"
        return
    with postgres_schema() as (direct, _):
        yield direct


def issue(app: Application) -> Issued:
    live = app.keys.create_key(organisation="acme-safety", name="prod", plan="enterprise").key
    test = app.keys.create_key(organisation="acme-safety", name="ci", test=True).key
    developer = app.keys.create_key(organisation="dev-safety", name="d", plan="developer").key
    revoked = app.keys.create_key(organisation="acme-safety", name="old").key
    app.keys.revoke(display_prefix=revoked[:13])
    return Issued(live=live, test=test, developer=developer, revoked=revoked)


def test_keys_never_appear_in_logs_responses_metrics_or_database_rows(
    database_url: str, tmp_path: Path
) -> None:
    load_fixture(sql_store(database_url))
    settings = load_settings({}, database_url=database_url, key_secret=KEY_SECRET, home=tmp_path)
    app = bootstrap(settings)
    with captured_logs() as logs:
        issued = issue(app)
        with live_server(build_asgi(app, settings)) as base:
            answers = exercise(base, issued)
    statuses = [a.status_code for a in answers]
    assert {200, 400, 401, 403, 404, 429} <= set(statuses), statuses
    metrics = answers[-1].text
    assert "schooldata_http_requests_total" in metrics

    written = logs.getvalue()
    everything = {
        "logs": written,
        "bodies": "\n".join(a.text for a in answers),
        "headers": "\n".join(f"{k}: {v}" for a in answers for k, v in a.headers.multi_items()),
        "metrics": metrics,
        "database": stored_text(app.ports.store.engine),  # type: ignore[attr-defined]
    }
    for where, text_ in everything.items():
        for secret in issued.secrets():
            assert secret not in text_, f"a key (or its random part) in the {where}"
    # Not even part of one: no 8 characters of a random part in any refusal.
    refusals = "\n".join(a.text for a in answers if a.status_code >= 400 or "invalid_urn" in a.text)
    for key in (issued.live, issued.test, issued.developer, issued.revoked):
        windows = {key[i : i + 8] for i in range(9, len(key) - 7)}
        assert not [w for w in windows if w in refusals], "part of a key echoed in an error"
    # The stored hash is not a way in, and the metrics name no key, prefix or organisation.
    hashes = [r.key_hash for r in app.keys.list_keys()]
    assert len(hashes) == 4
    for digest in hashes:
        assert digest not in everything["logs"] and digest not in everything["metrics"]
    for label in (issued.live[:13], "acme-safety", "dev-safety"):
        assert label not in metrics
    # Every log line is one JSON object; the access log names the key by display prefix only.
    lines = [json.loads(line) for line in written.splitlines()]
    prefixes = {line.get("key_prefix") for line in lines if line["logger"] == "schooldata.access"}
    assert issued.live[:13] in prefixes
    assert all(p is None or re.fullmatch(r"svc_(live|test)_[0-9A-Za-z]{4}", p) for p in prefixes)
    assert "api_keys" in text_columns(app.ports.store.engine)  # type: ignore[attr-defined]
    app.ports.store.close()  # type: ignore[attr-defined]


# ---- constant-time comparisons --------------------------------------------------------------


def test_the_checksum_and_the_two_credential_headers_are_compared_with_compare_digest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[Any, Any]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(keys_module.hmac, "compare_digest", spy)
    key = compose_key(KeyKind.LIVE, "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY")
    parse_key(key)
    assert calls == [(key[-6:], key[-6:])]
    calls.clear()
    assert extract_credentials(f"Bearer {key}", key) == key
    assert calls == [(key.encode(), key.encode())]


SECRET_WORDS = re.compile(r"key|checksum|digest|hash|token|bearer|secret|credential", re.I)


def _public(node: ast.expr) -> bool:
    """A literal, a module constant (UPPER_CASE), a length, or arithmetic over those."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id.isupper()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return True
    if isinstance(node, ast.BinOp):
        return _public(node.left) and _public(node.right)
    return False


def secret_equality_comparisons(path: Path) -> list[str]:
    """`==`/`!=` between two non-constant operands, one of which names a secret."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
            continue
        operands = [node.left, *node.comparators]
        if any(_public(o) for o in operands):
            continue  # comparing with a literal, a length or a module constant leaks nothing
        text = ast.unparse(node)
        if SECRET_WORDS.search(text):
            found.append(f"{path.name}:{node.lineno}: {text}")
    return found


@pytest.mark.parametrize(
    "module",
    [keys_module, credentials_module, access_module],
    ids=["domain.keys", "domain.credentials", "application.access"],
)
def test_no_secret_is_compared_with_plain_equality(module: Any) -> None:
    """Keys are looked up by their HMAC (the store compares digests an attacker cannot steer);
    everything compared in code goes through hmac.compare_digest."""
    assert secret_equality_comparisons(source_of(module)) == []


def test_the_ast_check_would_catch_a_plain_comparison(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(checksum, given):\n    return checksum(given) != given[-6:]\n")
    assert len(secret_equality_comparisons(sample)) == 1


# ---- CORS -----------------------------------------------------------------------------------


@pytest.fixture
def cors_client(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:  # type: ignore[type-arg]
    """The production ASGI wiring with the default CORS policy (any origin, public GETs)."""
    app = bootstrap_memory(store=build_store())
    key = app.keys.create_key(organisation="cors", name="t", plan="enterprise").key
    settings = load_settings({}, home=tmp_path)
    with TestClient(app=build_asgi(app, settings), base_url="http://127.0.0.1") as client:  # type: ignore[arg-type]
        yield client, key


EVIL = "https://evil.example"


def preflight(
    client: TestClient, path: str, method: str = "GET", headers: str = ""
) -> httpx.Response:  # type: ignore[type-arg]
    asked = {"Origin": EVIL, "Access-Control-Request-Method": method}
    if headers:
        asked["Access-Control-Request-Headers"] = headers
    return client.options(path, headers=asked)


@pytest.mark.parametrize(
    "credential", ["authorization", "x-api-key", "Authorization, Accept", "accept,X-API-Key"]
)
@pytest.mark.parametrize(
    "path", ["/api/v1/search", "/api/v1/schools/100001", "/api/v1/meta", "/mcp"]
)
def test_no_preflight_lets_a_browser_send_a_key_cross_origin(
    cors_client: tuple[TestClient, str],
    credential: str,
    path: str,  # type: ignore[type-arg]
) -> None:
    client, _ = cors_client
    answer = preflight(client, path, "GET" if path != "/mcp" else "POST", credential)
    assert "access-control-allow-origin" not in answer.headers
    assert "authorization" not in answer.headers.get("access-control-allow-headers", "").lower()
    assert "x-api-key" not in answer.headers.get("access-control-allow-headers", "").lower()
    assert "access-control-allow-credentials" not in answer.headers


def test_public_gets_are_readable_cross_origin_but_keyed_and_commercial_answers_are_not(
    cors_client: tuple[TestClient, str],  # type: ignore[type-arg]
) -> None:
    client, key = cors_client
    origin = {"Origin": EVIL}
    keyed = {**origin, "Authorization": f"Bearer {key}"}
    public = client.get("/api/v1/search?query=st", headers=origin)
    assert public.status_code == 200 and public.headers["access-control-allow-origin"] == "*"
    assert preflight(client, "/api/v1/search").status_code == 204
    for path, headers in (
        ("/api/v1/schools/100001", keyed),
        ("/api/v1/search?query=st", keyed),
        ("/api/v1/meta", keyed),
        ("/api/v1/schools?q=st", keyed),
    ):
        answer = client.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)
        assert "access-control-allow-origin" not in answer.headers, path
    assert (
        preflight(client, "/api/v1/schools/compare", "POST", "content-type").headers.get(
            "access-control-allow-origin"
        )
        is None
    )
    for answer in (public, client.get("/api/v1/schools/100001", headers=origin)):
        assert "access-control-allow-credentials" not in answer.headers


def test_a_configured_origin_list_is_honoured_by_the_production_wiring(tmp_path: Path) -> None:
    app = bootstrap_memory(store=build_store())
    settings = load_settings({}, home=tmp_path, cors_origins="https://app.example")
    with TestClient(app=build_asgi(app, settings), base_url="http://127.0.0.1") as client:  # type: ignore[arg-type]
        allowed = client.get("/api/v1/search?query=st", headers={"Origin": "https://app.example"})
        other = client.get("/api/v1/search?query=st", headers={"Origin": EVIL})
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert "origin" in allowed.headers["vary"].lower()
    assert "access-control-allow-origin" not in other.headers


# ---- caching --------------------------------------------------------------------------------

KEYED_GETS = (
    "/api/v1/meta",
    "/api/v1/data-freshness",
    "/api/v1/schools?q=st",
    "/api/v1/schools/search?q=st",
    "/api/v1/schools/nearby?postcode=SW1A1AA",
    "/api/v1/schools/100001",
    "/api/v1/schools/100001/inspections",
    "/api/v1/schools/100001/results",
    "/api/v1/schools/100001/admissions",
    "/api/v1/schools/100001/finance",
    "/api/v1/rankings?metric=svc_score&phase=secondary",
    "/api/v1/areas/local-authorities",
    "/api/v1/search?query=st",
    "/api/get-school?urn=100001",
    "/api/v1/schools/999999",
    "/api/v1/schools?bogus=1",
    "/api/v1/openapi.json",
)


def test_every_keyed_answer_is_no_store_and_carries_no_validator(
    cors_client: tuple[TestClient, str],  # type: ignore[type-arg]
) -> None:
    client, key = cors_client
    keyed = {"Authorization": f"Bearer {key}"}
    answers = [client.get(path, headers=keyed) for path in KEYED_GETS]
    answers.append(
        client.post("/api/v1/schools/compare", json={"urns": ["100001", "100002"]}, headers=keyed)
    )
    answers.append(client.get("/api/v1/meta", headers={"Authorization": "Bearer nope"}))
    headers, body = mcp("tools/list")
    answers.append(client.post("/mcp", content=body, headers={**headers, **keyed}))
    statuses = [a.status_code for a in answers]
    assert {200, 400, 401, 404} <= set(statuses), statuses
    for path, answer in zip([*KEYED_GETS, "compare", "bad key", "mcp"], answers, strict=True):
        assert answer.headers.get("cache-control") == "no-store", (path, answer.headers)
        assert "etag" not in answer.headers, path
    anonymous = client.get("/api/v1/schools/100001")
    assert anonymous.headers["cache-control"].startswith("public")
