"""The access log and the log formatters (in process): one line per request, never a key."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key

from schooldata.application.service import Application
from schooldata.entrypoints.observability.access import ACCESS_LOGGER
from schooldata.entrypoints.observability.logs import (
    JsonFormatter,
    TextFormatter,
    logging_config,
    redact,
)

AccessLog = Callable[[], list[dict[str, object]]]


@pytest.fixture
def access_log() -> Iterator[AccessLog]:
    """Reads back every access-log record so far, as the JSON formatter wrote it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(ACCESS_LOGGER)
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def test_one_json_access_line_per_request_with_the_documented_fields(
    client: TestClient, access_log: AccessLog
) -> None:
    response = client.get("/api/v1/schools/100001")
    lines = access_log()
    assert len(lines) == 1
    line = lines[0]
    assert line["logger"] == ACCESS_LOGGER and line["level"] == "info"
    assert line["message"] == "request"
    assert line["request_id"] == response.headers["x-request-id"]
    assert line["tier"] == "public"
    assert line["route"] == "/api/v1/schools/{urn}"
    assert line["method"] == "GET"
    assert line["path"] == "/api/v1/schools/100001"
    assert line["status"] == 200
    assert isinstance(line["latency_ms"], float | int) and line["latency_ms"] >= 0
    assert "key_prefix" not in line
    assert str(line["ts"]).endswith("+00:00")


def test_a_keyed_request_logs_the_display_prefix_only(
    client: TestClient, app: Application, access_log: AccessLog
) -> None:
    created = app.keys.create_key(organisation="acme", name="ci", plan="developer")
    client.get("/api/v1/meta", headers={"Authorization": f"Bearer {created.key}"})
    line = access_log()[0]
    assert line["tier"] == "commercial"
    assert line["key_prefix"] == created.record.display_prefix
    assert created.key not in json.dumps(line)


def test_a_request_with_a_key_in_the_query_logs_no_query_string(
    client: TestClient, app: Application, access_log: AccessLog
) -> None:
    key = issue_key(app)
    client.get(f"/api/v1/search?query=st&api_key={key}")
    client.get("/api/v1/search?query=st%20mary")
    rejected, ordinary = access_log()
    assert rejected["status"] == 400
    assert rejected["path"] == "/api/v1/search"
    assert "query" not in rejected
    assert key not in json.dumps(rejected)
    assert ordinary["query"] == "query=st%20mary"


def test_a_401_is_logged_as_commercial_without_the_key(
    client: TestClient, app: Application, access_log: AccessLog
) -> None:
    key = issue_key(app)
    wrong = key[:-1] + ("A" if key[-1] != "A" else "B")
    response = client.get("/api/v1/meta", headers={"X-API-Key": wrong})
    assert response.status_code == 401
    line = access_log()[0]
    assert line["status"] == 401 and line["tier"] == "commercial"
    assert "key_prefix" not in line, "only an authenticated key is named"
    assert wrong not in json.dumps(line)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("key svc_live_ABCDefghijklmnopqrstuvwxyz0123456789ab", "efghijklmnop"),
        ("Authorization: Bearer abc.def-ghi", "abc.def-ghi"),
        ("GET /api/v1/search?query=x&api_key=s3cr3t HTTP/1.1", "s3cr3t"),
        ("GET /x?TOKEN=s3cr3t&b=1", "s3cr3t"),
        ('{"x-api-key": "s3cr3t"}', "s3cr3t"),
    ],
)
def test_redaction_masks_anything_key_shaped(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_redaction_keeps_the_display_prefix() -> None:
    key = "svc_test_ABCDefghijklmnopqrstuvwxyz0123456789ab"
    assert redact(f"key={key}") == "key=svc_test_ABCD[redacted]"


def record(message: str, **extra: object) -> logging.LogRecord:
    entry = logging.LogRecord("schooldata.test", logging.WARNING, __file__, 1, message, None, None)
    for name, value in extra.items():
        setattr(entry, name, value)
    return entry


def test_the_json_formatter_writes_one_object_with_extras_and_redacts() -> None:
    key = "svc_live_ABCDefghijklmnopqrstuvwxyz0123456789ab"
    try:
        raise ValueError(f"bad {key}")
    except ValueError:
        import sys

        entry = record("failed for %s", request_id="req_1")
        entry.args = (key,)
        entry.exc_info = sys.exc_info()
    line = JsonFormatter().format(entry)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["level"] == "warning" and parsed["logger"] == "schooldata.test"
    assert parsed["request_id"] == "req_1"
    assert "ValueError" in parsed["exception"]
    assert key not in line and "svc_live_ABCD[redacted]" in line


def test_the_text_formatter_is_one_readable_line() -> None:
    line = TextFormatter().format(record("request", status=200, tier="public"))
    assert line.endswith("warning schooldata.test request status=200 tier=public")


def test_logging_config_covers_uvicorn_and_refuses_unknown_formats() -> None:
    config = logging_config("text")
    assert config["formatters"]["default"]["()"] is TextFormatter
    assert config["loggers"]["uvicorn.access"]["propagate"] is False
    assert config["loggers"]["uvicorn.error"]["propagate"] is True
    with pytest.raises(ValueError, match="log format"):
        logging_config("xml")


def test_a_first_migration_logs_its_steps_but_not_alembics_plugin_set_up(tmp_path: Path) -> None:
    script = (
        "import logging.config, sys\n"
        "from schooldata.entrypoints.observability.logs import logging_config\n"
        "from schooldata.adapters.sql.migrations import upgrade\n"
        "logging.config.dictConfig(logging_config('text'))\n"
        "upgrade(sys.argv[1])\n"
    )
    url = f"sqlite:///{tmp_path / 'first.db'}"
    done = subprocess.run(
        [sys.executable, "-c", script, url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "alembic.runtime.migration" in done.stderr  # the migration's own lines stay
    assert "setup plugin" not in done.stderr
