"""Replayed answers: the same bytes as a computed answer, for anonymous questions only, and
never older than the data version (entrypoints/rest/replay.py)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import McpHttp, envelope_meta, served, used
from tests.support.dataset import build_store

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap, bootstrap_memory, build_asgi
from schooldata.domain.plans import Feature
from schooldata.entrypoints.rest.replay import (
    Answer,
    AnswerStore,
    KeyedReplayLayer,
    ReplayLayer,
    VersionWatch,
    json_id,
)
from schooldata.entrypoints.rest.routes import FEATURE_KEY
from schooldata.entrypoints.rest.transport import REQUEST_ID_KEY, Receive, Scope, Send
from schooldata.ports.keys import WouldBlock
from schooldata.settings import Settings, load_settings

PER_REQUEST_HEADERS = {"x-request-id", "date"}


@pytest.fixture
def store() -> InMemoryStore:
    return build_store()


@pytest.fixture
def app(store: InMemoryStore) -> Application:
    return bootstrap_memory(store=store)


@pytest.fixture
def http(app: Application, tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    yield from served(app, tmp_path)


def stable(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = [(k, v) for k, v in response.headers.multi_items() if k not in PER_REQUEST_HEADERS]
    return response.status_code, headers, response.content


def settle(http: TestClient, path: str, **kwargs: Any) -> httpx.Response:  # type: ignore[type-arg]
    """Ask until the data version is known to the replay layer (it is read off the loop)."""
    first = http.get(path, **kwargs)
    time.sleep(0.2)
    return first


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/api/v1/search?query=st%20mary", {}),
        ("/api/v1/search?query=st%20mary", {"Accept-Encoding": "gzip"}),
        ("/api/v1/search?postcode=B1%201AA&radius_miles=5", {}),
        ("/api/v1/schools/100001", {}),
        ("/api/v1/schools/100001", {"Origin": "https://example.org"}),
        ("/api/get-school?urn=100001", {}),
    ],
)
def test_a_replayed_answer_is_byte_for_byte_the_computed_one_with_its_own_request_id(
    http: TestClient,  # type: ignore[type-arg]
    path: str,
    headers: dict[str, str],
) -> None:
    computed = settle(http, path, headers=headers)
    replays = [http.get(path, headers=headers) for _ in range(3)]
    assert computed.status_code == 200
    for replay in replays:
        assert stable(replay) == stable(computed)
    ids = {r.headers["x-request-id"] for r in [computed, *replays]}
    assert len(ids) == 4


def test_a_conditional_request_is_answered_304_again_and_again(http: TestClient) -> None:  # type: ignore[type-arg]
    etag = settle(http, "/api/v1/schools/100001").headers["etag"]
    for _ in range(3):
        response = http.get("/api/v1/schools/100001", headers={"If-None-Match": etag})
        assert response.status_code == 304
        assert response.headers["etag"] == etag and response.content == b""


def test_credentials_are_never_answered_from_replay(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
) -> None:
    settle(http, "/api/v1/schools/100001")
    http.get("/api/v1/schools/100001")
    assert http.get("/api/v1/schools/100001", headers={"X-API-Key": "nonsense"}).status_code == 401
    key = issue_key(app, "developer")
    profile = http.get("/api/v1/schools/100001", headers={"Authorization": f"Bearer {key}"})
    assert profile.status_code == 200 and "data" in profile.json()
    app.keys.revoke(display_prefix=key[: len("svc_live_") + 4])
    revoked = http.get("/api/v1/schools/100001", headers={"Authorization": f"Bearer {key}"})
    assert revoked.status_code == 401
    assert revoked.json()["error"]["code"] == "api_key_revoked"


def test_an_import_is_seen_within_the_snapshot_interval(
    http: TestClient,  # type: ignore[type-arg]
    store: InMemoryStore,
) -> None:
    path = "/api/v1/schools/100001"
    before = settle(http, path).json()
    assert http.get(path).json() == before
    renamed = [
        attrs.evolve(s, name="Renamed Academy") if str(s.urn) == "100001" else s
        for s in list(store.iter_all())
    ]
    with store.transaction() as tx:
        tx.replace_schools(schools=renamed)
    deadline = time.monotonic() + 3.0
    while http.get(path).json()["name"] != "Renamed Academy":
        assert time.monotonic() < deadline, "the replayed answer outlived the data version"
        time.sleep(0.05)


def test_errors_are_computed_every_time(http: TestClient) -> None:  # type: ignore[type-arg]
    settle(http, "/api/v1/schools/999999")
    first = http.get("/api/v1/schools/999999")
    second = http.get("/api/v1/schools/999999")
    assert first.status_code == second.status_code == 404


def test_a_replayed_mcp_call_carries_the_new_id_and_the_same_result(http: TestClient) -> None:  # type: ignore[type-arg]
    mcp = McpHttp(http)
    arguments = {"name": "search_schools", "arguments": {"query": "st mary"}}
    first = mcp.modern("tools/call", arguments)
    time.sleep(0.2)
    answers = [mcp.modern("tools/call", arguments) for _ in range(3)]
    results = {str(a.json()["result"]) for a in [first, *answers]}
    assert len(results) == 1
    for answer in answers:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/json")
        assert int(answer.headers["content-length"]) == len(answer.content)
    ids = [a.json()["id"] for a in [first, *answers]]
    assert len(set(ids)) == 4
    error = mcp.modern("tools/call", {"name": "get_school", "arguments": {"urn": "12"}})
    again = mcp.modern("tools/call", {"name": "get_school", "arguments": {"urn": "12"}})
    assert error.json()["result"]["isError"] is True
    assert again.json()["id"] != error.json()["id"]


@pytest.mark.parametrize("keyed", [False, True])
def test_an_mcp_body_nested_too_deep_is_the_json_rpc_parse_error_never_a_500(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
    keyed: bool,
) -> None:
    settle(http, "/api/v1/schools/100001")  # the replay layer now reads MCP bodies
    arguments = "[" * 1000 + "]" * 1000
    meta = json.dumps(envelope_meta())
    raw = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_schools",'
        f'"arguments":{{"query":{arguments}}},"_meta":{meta}}}}}'
    )
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "search_schools",
    }
    if keyed:
        headers["Authorization"] = f"Bearer {issue_key(app)}"
    response = http.post("/mcp", content=raw, headers=headers)
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    answer = response.json()
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700


# ---------------------------------------------------------------------------------------------
# The layer alone, around a counting app.


class CountingApp:
    def __init__(self, status: int = 200, headers: list[tuple[bytes, bytes]] | None = None):
        self.calls = 0
        self.status = status
        self.headers = headers or [(b"content-type", b"application/json")]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        self.calls += 1
        body = b'{"n":%d}' % self.calls
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": body})


def layered(inner: CountingApp, version: list[str]) -> TestClient:  # type: ignore[type-arg]
    def current() -> str:
        if version[0] == "down":
            raise RuntimeError("store down")
        return version[0]

    layer = ReplayLayer(
        inner, version=current, is_replayable_get=lambda p: p == "/q", refresh_seconds=0.5
    )
    return TestClient(app=layer)  # type: ignore[arg-type]


def test_a_second_identical_question_never_reaches_the_app() -> None:
    inner = CountingApp()
    with layered(inner, ["v1"]) as client:
        client.get("/q?a=1")
        time.sleep(0.1)
        client.get("/q?a=1")
        calls = inner.calls
        for _ in range(5):
            assert client.get("/q?a=1").json() == {"n": calls}
        assert inner.calls == calls
        client.get("/q?a=2")
        client.get("/other")
        client.get("/other")
        assert inner.calls == calls + 3


def eventually(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def test_a_new_data_version_or_a_store_outage_stops_replay() -> None:
    inner = CountingApp()
    version = ["v1"]
    with layered(inner, version) as client:
        answers: list[Any] = []

        def replayed() -> bool:
            # Two answers in a row the same: the second was replayed. (On a loaded machine the
            # version check can be overdue for a moment, and then a request is computed: the
            # layer's own safety rule, so it is waited out rather than failed.)
            answers[:] = [client.get("/q").json(), client.get("/q").json()]
            return answers[0] == answers[1]

        eventually(replayed)
        remembered = answers[1]
        version[0] = "v2"
        eventually(lambda: client.get("/q").json() != remembered)
        version[0] = "down"

        def every_request_computed() -> bool:
            return len({client.get("/q").json()["n"] for _ in range(3)}) == 3

        eventually(every_request_computed)


@pytest.mark.parametrize(
    "headers",
    [
        [(b"content-type", b"application/json"), (b"cache-control", b"no-store")],
    ],
)
def test_no_store_answers_are_not_remembered(headers: list[tuple[bytes, bytes]]) -> None:
    inner = CountingApp(headers=headers)
    with layered(inner, ["v1"]) as client:
        client.get("/q")
        time.sleep(0.1)
        seen = {client.get("/q").json()["n"] for _ in range(3)}
        assert len(seen) == 3


def test_the_answer_store_keeps_within_its_byte_budget() -> None:
    answers = AnswerStore(max_bytes=64 * 1024)
    for i in range(500):
        answers.put((i,), Answer(200, (), b"x" * 1000, None))
    assert 0 < len(answers) < 64
    assert answers.get((499,)) is not None and answers.get((0,)) is None


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(1, b"1"), (0, b"0"), ("abc-1", b'"abc-1"'), (True, None), ("a\\b", None), ("é", None)],
)
def test_only_unambiguous_json_rpc_ids_are_spliced(value: object, encoded: bytes | None) -> None:
    assert json_id(value) == encoded


class ChunkedApp(CountingApp):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        self.calls += 1
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        await send({"type": "http.response.body", "body": b'{"n":', "more_body": True})
        await send({"type": "http.response.body", "body": b"%d}" % self.calls, "more_body": True})
        await send({"type": "http.response.body", "body": b""})


def test_an_answer_sent_in_chunks_is_replayed_whole() -> None:
    inner = ChunkedApp()
    with layered(inner, ["v1"]) as client:
        client.get("/q")
        time.sleep(0.1)
        remembered = client.get("/q")
        replayed = client.get("/q")
        assert replayed.json() == remembered.json()
        assert replayed.headers["content-length"] == str(len(replayed.content))


class EchoRpcApp(CountingApp):
    """Answers a JSON-RPC call with the id it parsed and a count of the calls computed."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        self.calls += 1
        request = json.loads((await receive())["body"])
        body = json.dumps(
            {"jsonrpc": "2.0", "id": request["id"], "result": {"n": self.calls}},
            separators=(",", ":"),
        ).encode()
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        await send({"type": "http.response.body", "body": body})


CALL = '"method":"tools/call","params":{"name":"t","arguments":{"id":7}}'


@pytest.mark.parametrize(
    ("bodies", "computed"),
    [
        # id first, then last: one question, computed once, replayed with each request's id
        ([f'{{"jsonrpc":"2.0","id":{i},{CALL}}}' for i in (1, 2, 3)], [2, 2, 2]),
        ([f'{{{CALL},"jsonrpc":"2.0","id":"c-{i}"}}' for i in (1, 2, 3)], [2, 2, 2]),
        ([f'{{ {CALL}, "jsonrpc": "2.0", "id": {i} }}' for i in (1, 2, 3)], [2, 2, 2]),
        # a duplicate id member: the last one is the id, whatever the first says
        ([f'{{"jsonrpc":"2.0","id":1,{CALL},"id":{i}}}' for i in (11, 12, 13)], [2, 2, 2]),
        ([f'{{"jsonrpc":"2.0","id":{i},{CALL},"id":9}}' for i in (1, 2, 2)], [2, 3, 3]),
    ],
)
def test_a_replayed_mcp_call_answers_with_the_id_the_request_parses_to(
    bodies: list[str], computed: list[int]
) -> None:
    inner = EchoRpcApp()
    layer = ReplayLayer(
        inner, version=lambda: "v1", is_replayable_get=lambda p: False, refresh_seconds=0.5
    )
    with TestClient(app=layer) as client:  # type: ignore[arg-type]
        client.post("/mcp", content=b'{"jsonrpc":"2.0","id":0,"method":"tools/call"}')
        time.sleep(0.1)  # the data version is read off the loop
        answers = [client.post("/mcp", content=body.encode()).json() for body in bodies]
    assert [a["id"] for a in answers] == [json.loads(b)["id"] for b in bodies]
    assert [a["result"]["n"] for a in answers] == computed


def test_every_replayed_mcp_call_is_reported_with_its_tool() -> None:
    inner = EchoRpcApp()
    replayed: list[str] = []
    layer = ReplayLayer(
        inner,
        version=lambda: "v1",
        is_replayable_get=lambda p: False,
        refresh_seconds=0.5,
        on_mcp_replay=replayed.append,
    )
    with TestClient(app=layer) as client:  # type: ignore[arg-type]
        client.post("/mcp", content=b'{"jsonrpc":"2.0","id":0,"method":"tools/call"}')
        time.sleep(0.1)
        for i in range(4):
            client.post("/mcp", content=f'{{"jsonrpc":"2.0","id":{i},{CALL}}}'.encode())
    assert inner.calls == 2 and replayed == ["t", "t", "t"]


# ---------------------------------------------------------------------------------------------
# Keyed answers: replayed per plan, each one authenticated and metered.

KEYED_PATHS = [
    "/api/v1/schools?q=st%20mary&per_page=2",
    "/api/v1/schools/100001",
    "/api/v1/schools/nearby?postcode=B1%201AA&radius_miles=5",
]


def keyed_get(http: TestClient, key: str, path: str, **headers: str) -> httpx.Response:  # type: ignore[type-arg]
    return http.get(path, headers={"Authorization": f"Bearer {key}", **headers})


@pytest.mark.parametrize("path", KEYED_PATHS)
def test_a_keyed_replay_is_the_computed_answer_with_its_own_request_id_and_meter(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
    path: str,
) -> None:
    key = issue_key(app, "enterprise")
    first = keyed_get(http, key, path)
    time.sleep(0.2)
    answers = [keyed_get(http, key, path) for _ in range(4)]
    assert first.status_code == 200, first.text
    for answer in [first, *answers]:
        assert answer.status_code == 200
        body = answer.json()
        assert body["meta"]["request_id"] == answer.headers["x-request-id"]
        assert answer.headers["cache-control"] == "no-store"
        assert "etag" not in answer.headers
        without_id = {**body, "meta": {**body["meta"], "request_id": None}}
        expected = first.json()
        assert without_id == {**expected, "meta": {**expected["meta"], "request_id": None}}
    remaining = [int(a.headers["x-quota-remaining"]) for a in [first, *answers]]
    assert remaining == list(range(remaining[0], remaining[0] - 5, -1))
    assert used(app, "acme-enterprise") == 5


def test_a_revoked_key_is_refused_on_the_very_next_request(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
) -> None:
    key = issue_key(app, "enterprise")
    path = KEYED_PATHS[0]
    keyed_get(http, key, path)
    time.sleep(0.2)
    assert keyed_get(http, key, path).status_code == 200
    app.keys.revoke(display_prefix=key[: len("svc_live_") + 4])
    refused = keyed_get(http, key, path)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "api_key_revoked"


def test_replays_stop_at_the_rate_limit_with_the_documented_429(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
) -> None:
    key = issue_key(app, "developer")  # 5 requests per second
    path = KEYED_PATHS[0]
    keyed_get(http, key, path)
    time.sleep(1.1)  # a fresh rate window, the answer remembered
    statuses = [keyed_get(http, key, path) for _ in range(8)]
    refused = [r for r in statuses if r.status_code == 429]
    assert refused, [r.status_code for r in statuses]
    assert refused[0].json()["error"]["code"] == "rate_limit_exceeded"
    assert int(refused[0].headers["retry-after"]) >= 1
    assert used(app, "acme-developer") == 1 + sum(r.status_code == 200 for r in statuses)


def test_callers_on_other_plans_get_their_own_plans_answer(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
) -> None:
    path = "/api/v1/schools?q=school&per_page=50"
    professional = issue_key(app, "professional")
    developer = issue_key(app, "developer")
    assert keyed_get(http, professional, path).status_code == 200
    time.sleep(0.2)
    assert keyed_get(http, professional, path).status_code == 200
    refused = keyed_get(http, developer, path)
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "limit_exceeds_plan"


def test_a_keyed_replay_is_compressed_like_a_computed_answer(
    http: TestClient,  # type: ignore[type-arg]
    app: Application,
) -> None:
    key = issue_key(app, "enterprise")
    path = "/api/v1/schools?q=school&per_page=20"
    first = keyed_get(http, key, path, **{"Accept-Encoding": "gzip"})
    time.sleep(0.2)
    again = keyed_get(http, key, path, **{"Accept-Encoding": "gzip"})
    for answer in (first, again):
        assert answer.headers["content-encoding"] == "gzip"
        assert answer.json()["meta"]["request_id"] == answer.headers["x-request-id"]


class CountingGate(CountingApp):
    """Answers like the commercial gate: feature noted, request id in the body."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        self.calls += 1
        scope[FEATURE_KEY] = Feature.SCHOOLS_LIST
        body = b'{"meta":{"request_id":"%s"},"n":%d}' % (
            scope[REQUEST_ID_KEY].encode(),
            self.calls,
        )
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def test_a_known_keyed_question_is_metered_without_reaching_the_app(app: Application) -> None:
    inner = CountingGate()
    watch = VersionWatch(lambda: "v1", refresh_seconds=0.5)
    layer = KeyedReplayLayer(inner, application=app, watch=watch, is_candidate=lambda p: True)
    ids = iter(range(1_000_000))

    async def with_request_id(scope: Scope, receive: Receive, send: Send) -> None:
        scope[REQUEST_ID_KEY] = f"req_{next(ids):020d}"
        await layer(scope, receive, send)

    key = issue_key(app, "enterprise")
    with TestClient(app=with_request_id) as client:  # type: ignore[arg-type]
        client.get("/q", headers={"Authorization": f"Bearer {key}"})
        time.sleep(0.1)
        first = client.get("/q", headers={"Authorization": f"Bearer {key}"})
        calls = inner.calls
        replays = [client.get("/q", headers={"X-API-Key": key}) for _ in range(3)]
        assert inner.calls == calls
        for replay in replays:
            assert replay.json()["n"] == first.json()["n"]
        remaining = [int(r.headers["x-quota-remaining"]) for r in replays]
        assert remaining == sorted(remaining, reverse=True) and len(set(remaining)) == 3
        assert len({r.json()["meta"]["request_id"] for r in [first, *replays]}) == 4
        assert used(app, "acme-enterprise") == 3  # the fake gate meters nothing itself
        assert client.get("/q", headers={"X-API-Key": "svc_live_nonsense"}).status_code == 200
        assert inner.calls == calls + 1  # a bad key goes down the full path


# ---------------------------------------------------------------------------------------------
# On SQLite: keyed replays are admitted on the event loop without waiting; a held write lock
# sends them to a worker thread, which waits for it, and the count stays exact.


def sqlite_settings(tmp_path: Path) -> tuple[Settings, Path]:
    """Settings for a served app whose keys and quotas live in a SQLite file of its own."""
    database = tmp_path / "keys.sqlite3"
    environ = {
        "SCHOOLDATA_DATABASE_URL": f"sqlite:///{database}",
        "SCHOOLDATA_KEY_SECRET": "k" * 40,
    }
    return load_settings(environ=environ, home=tmp_path), database


@pytest.fixture
def sqlite_served(tmp_path: Path) -> Iterator[tuple[TestClient, Application, Path]]:  # type: ignore[type-arg]
    settings, database = sqlite_settings(tmp_path)
    app = bootstrap(settings)
    with TestClient(app=build_asgi(app, settings), base_url="http://testserver.local") as client:
        yield client, app, database


def test_keyed_replays_wait_for_a_writer_in_another_process_and_count_exactly(
    sqlite_served: tuple[TestClient, Application, Path],  # type: ignore[type-arg]
) -> None:
    client, app, database = sqlite_served
    key = issue_key(app, "enterprise")
    path = "/api/v1/schools?per_page=5"
    assert keyed_get(client, key, path).status_code == 200
    time.sleep(0.2)
    assert keyed_get(client, key, path).status_code == 200  # replayed on the loop
    other = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock (an import, say)
    release = threading.Timer(0.5, other.execute, args=("COMMIT",))
    release.start()
    started = time.monotonic()
    waited = keyed_get(client, key, path)
    release.join()
    other.close()
    assert waited.status_code == 200
    assert time.monotonic() - started >= 0.4  # it waited for the writer, off the loop
    statuses = [keyed_get(client, key, path).status_code for _ in range(5)]
    assert statuses == [200] * 5
    assert used(app, "acme-enterprise") == 8


def test_the_meter_gives_up_without_counting_when_it_would_have_to_wait(
    sqlite_served: tuple[TestClient, Application, Path],  # type: ignore[type-arg]
) -> None:
    _, app, database = sqlite_served
    key = issue_key(app, "enterprise")
    caller = app.authenticate.execute(authorization=f"Bearer {key}", x_api_key=None)
    assert caller is not None and app.meter.can_admit_without_waiting
    other = sqlite3.connect(database, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(WouldBlock):
            app.meter.admit_nowait(caller, Feature.SCHOOLS_LIST)
        reading = app.meter.peek(caller)
    finally:
        other.execute("COMMIT")
        other.close()
    assert reading.rate_remaining == caller.plan.rate_per_second  # the hit was taken back
    assert used(app, "acme-enterprise") == 0
    app.meter.admit_nowait(caller, Feature.SCHOOLS_LIST)
    assert used(app, "acme-enterprise") == 1


def stored_uses(database: Path, organisation: str) -> int:
    with sqlite3.connect(database) as connection:
        row = connection.execute(
            "SELECT sum(used) FROM usage_quota WHERE organisation = ?", (organisation,)
        ).fetchone()
    return int(row[0] or 0)


def test_a_server_shutting_down_gives_back_the_quota_uses_it_reserved_and_did_not_answer(
    tmp_path: Path,
) -> None:
    settings, database = sqlite_settings(tmp_path)
    app = bootstrap(settings)
    key = issue_key(app, "enterprise")
    answered = 0
    with TestClient(app=build_asgi(app, settings), base_url="http://testserver.local") as client:
        for _ in range(2000):  # until this process holds reserved uses it has not answered
            answered += keyed_get(client, key, "/api/v1/schools?per_page=5").status_code == 200
            if stored_uses(database, "acme-enterprise") > answered:
                break
        assert stored_uses(database, "acme-enterprise") > answered, "no block was reserved"
        assert used(app, "acme-enterprise") == answered  # as the process sees it: exact
    assert stored_uses(database, "acme-enterprise") == answered  # given back at shutdown
