"""The app under a real uvicorn server: the docs page in headless Chromium, and every log line
the process writes while keys go by.

Chromium is Debian's `chromium` package (`apt-get install -y chromium`); without it the browser
test is skipped, unless SCHOOLDATA_REQUIRE_SERVICES=1 makes that a failure. The screenshot is
kept as a test artefact: test-artifacts/docs.png.
"""

from __future__ import annotations

import io
import json
import logging
import logging.config
import os
import signal
import struct
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.conftest import services_required
from tests.support.dataset import build_store
from tests.support.exposition import samples, series
from tests.support.servers import live_server

from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.observability.logs import logging_config
from schooldata.entrypoints.rest.app import create_app
from schooldata.entrypoints.rest.openapi import build_document

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
    "--virtual-time-budget=5000",
    "--timeout=30000",  # stop loading after 30 s whatever is pending, and act on the page
)
CHROMIUM_TIMEOUT_S = 90


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# ---- every log line, with keys going by -----------------------------------------------------


@contextmanager
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved_root = (root.level, root.handlers[:])
    saved = {
        name: (logger.level, logger.handlers[:], logger.propagate, logger.disabled)
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    try:
        yield
    finally:
        root.setLevel(saved_root[0])
        root.handlers[:] = saved_root[1]
        for name, (level, handlers, propagate, disabled) in saved.items():
            logger = logging.getLogger(name)
            logger.setLevel(level)
            logger.handlers[:] = handlers
            logger.propagate = propagate
            logger.disabled = disabled


def test_no_log_output_ever_contains_a_key(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)  # where the configured handler writes
    app = bootstrap_memory(store=build_store())
    key = app.keys.create_key(organisation="acme-logs", name="ci", plan="developer").key
    wrong = key[:-1] + ("A" if key[-1] != "A" else "B")
    with restored_logging():
        logging.config.dictConfig(logging_config("json", "DEBUG"))
        with live_server(create_app(app)) as base:
            answers = [
                fetch(f"{base}/api/v1/meta", {"Authorization": f"Bearer {key}"}),
                fetch(f"{base}/api/v1/schools/100001", {"X-API-Key": key}),
                fetch(f"{base}/api/v1/search?query=st&api_key={key}"),
                fetch(f"{base}/api/v1/meta?token={key}", {"Authorization": f"Bearer {key}"}),
                fetch(f"{base}/api/v1/meta", {"Authorization": f"Bearer {wrong}"}),
                fetch(f"{base}/api/v1/search?query=st", {"X-API-Key": wrong}),
            ]
        logging.getLogger("schooldata.test").debug("done")
    assert [status for status, _ in answers] == [200, 200, 400, 400, 401, 401]
    captured = capfd.readouterr()
    everything = stream.getvalue() + captured.out + captured.err
    for secret in (key, key[9:], wrong, wrong[9:]):
        assert secret not in everything
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines, "the process logged"
    access = [line for line in lines if line["logger"] == "schooldata.access"]
    assert [line["status"] for line in access] == [200, 200, 400, 400, 401, 401]
    assert access[0]["key_prefix"] == key[:13]
    assert access[2]["path"] == "/api/v1/search" and "query" not in access[2]
    assert "query" not in access[3]
    assert all(line["request_id"].startswith("req_") for line in access)


# ---- the docs page in a real browser --------------------------------------------------------


def require_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is not installed (Debian: apt-get install -y chromium)"
    if services_required():
        pytest.fail(message)
    pytest.skip(message)


def chromium(url: str, *action: str, attempts: int = 3) -> subprocess.CompletedProcess[bytes]:
    """One headless run in a fresh profile. On a loaded machine Chromium occasionally stalls
    after the page has loaded: its process group is then ended and the run tried again."""
    for attempt in range(1, attempts + 1):
        with tempfile.TemporaryDirectory(prefix="schooldata-chromium-") as profile:
            command = [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *action, url]
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
            )
            try:
                out, err = process.communicate(timeout=CHROMIUM_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # Chromium and the helpers it started
                process.communicate()
                if attempt == attempts:
                    raise
                continue
            return subprocess.CompletedProcess(command, process.returncode, out, err)
    raise AssertionError("unreachable")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture
def docs_server() -> Iterator[tuple[str, Application]]:
    app = bootstrap_memory(store=build_store())
    with live_server(create_app(app)) as base:
        yield base, app


def test_the_docs_page_renders_every_operation_in_headless_chromium(
    docs_server: tuple[str, Application],
) -> None:
    require_chromium()
    base, _ = docs_server
    document = build_document()
    operation_ids = [
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]
    assert len(operation_ids) >= 10

    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "docs.png"
    screenshot.unlink(missing_ok=True)
    shot = chromium(f"{base}/docs", f"--screenshot={screenshot}")
    assert screenshot.is_file(), shot.stderr.decode(errors="replace")[-2000:]
    image = screenshot.read_bytes()
    assert png_size(image) == (1280, 900)
    assert len(image) > 20_000, "a blank page compresses to a few kilobytes"

    dom = chromium(f"{base}/docs", "--dump-dom")
    assert dom.returncode == 0, dom.stderr.decode(errors="replace")[-2000:]
    html = dom.stdout.decode()
    (ARTIFACTS / "docs.html").write_text(html, encoding="utf-8")
    assert document["info"]["title"] in html
    missing = [op for op in operation_ids if op not in html]
    assert not missing, f"operations not rendered: {missing}"

    # The browser took everything from this app: the assets and the document were served here.
    status, metrics = fetch(f"{base}/metrics")
    assert status == 200
    counted = samples(metrics.decode())
    for route in ("/docs/assets/{name}", "/api/v1/openapi.json"):
        labels = {"route": route, "method": "GET", "status": "200", "tier": "public"}
        assert counted[series("schooldata_http_requests_total", **labels)] >= 1, route
