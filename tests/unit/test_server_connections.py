"""What `schooldata serve` hands granian about connections, and the open-file limit
(adapters/server.py). The live behaviour is tests/reliability/test_connections.py."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from granian.constants import HTTPModes

from schooldata.adapters.server import (
    LISTEN_BACKLOG,
    RESERVED_FILES,
    connections_per_worker,
    granian_connection_options,
    time_out_unread_answers,
)
from schooldata.settings import Settings, SettingsError, load_settings

SECRET = "unit-test-secret-0123456789abcdefghij"


def test_the_open_file_limit_is_raised_to_the_hard_limit() -> None:
    # In a child process: the limit is per process, and this one's must stay as it is.
    script = (
        "import json, resource\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "from schooldata.adapters.server import raise_open_file_limit\n"
        "returned = raise_open_file_limit()\n"
        "now = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "print(json.dumps([returned, now[0], now[1], resource.RLIM_INFINITY]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    returned, soft, hard, unlimited = json.loads(out.stdout)
    assert returned == soft > 256
    if hard != unlimited:
        assert soft == hard


def test_a_worker_admits_the_configured_connections_when_the_file_limit_has_room() -> None:
    assert connections_per_worker(4096, 20_000) == 4096


def test_a_file_limit_too_low_for_the_configured_connections_lowers_them_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="schooldata.server")
    assert connections_per_worker(4096, 1024) == 1024 - RESERVED_FILES
    assert "SCHOOLDATA_MAX_CONNECTIONS" in caplog.text
    assert "768" in caplog.text


def test_granian_serves_http1_with_the_header_timeout_and_the_connection_bound() -> None:
    options = granian_connection_options(
        header_timeout_seconds=7, max_connections=5000, open_files=100_000
    )
    # HTTP/1 only: granian's HTTP/2 detection waits for a first byte with no timeout.
    assert options["http"] == HTTPModes.http1
    assert options["http1_settings"].header_read_timeout == 7000
    assert options["http1_settings"].keep_alive is True
    assert options["backpressure"] == 5000
    assert options["backlog"] == LISTEN_BACKLOG


def test_the_connection_settings_have_documented_defaults() -> None:
    settings = load_settings({}, home="/tmp/unused")
    assert (settings.header_timeout_seconds, settings.max_connections) == (30, 8192)
    assert (settings.body_timeout_seconds, settings.answer_timeout_seconds) == (10, 30)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("HEADER_TIMEOUT_SECONDS", "0", "SCHOOLDATA_HEADER_TIMEOUT_SECONDS must be 1-600, got 0"),
        ("HEADER_TIMEOUT_SECONDS", "601", "must be 1-600"),
        ("HEADER_TIMEOUT_SECONDS", "ten", "must be an integer"),
        ("MAX_CONNECTIONS", "63", "SCHOOLDATA_MAX_CONNECTIONS must be 64-1000000, got 63"),
        ("BODY_TIMEOUT_SECONDS", "0", "SCHOOLDATA_BODY_TIMEOUT_SECONDS must be 1-600, got 0"),
        ("ANSWER_TIMEOUT_SECONDS", "601", "SCHOOLDATA_ANSWER_TIMEOUT_SECONDS must be 1-600"),
    ],
)
def test_a_bad_connection_setting_is_refused_by_name(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings({f"SCHOOLDATA_{name}": value}, home="/tmp/unused")


class FakeGranian:
    started: ClassVar[dict[str, Any]] = {}

    def __init__(self, target: str, **options: Any) -> None:
        FakeGranian.started = {"target": target, **options}

    def serve(self) -> None:
        FakeGranian.started["environment"] = dict(os.environ)


def test_serve_hands_granian_the_connection_settings_and_its_workers_get_them_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import granian

    from schooldata.bootstrap import serve

    monkeypatch.setattr(granian, "Granian", FakeGranian)
    monkeypatch.setattr(os, "environ", dict(os.environ))  # serve hands settings on through it
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    settings: Settings = load_settings(
        {},
        home=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'served.sqlite3'}",
        key_secret=SECRET,
        header_timeout_seconds=12,
        body_timeout_seconds=7,
        answer_timeout_seconds=9,
        max_connections=2000,
    )
    try:
        serve(settings)
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    started = FakeGranian.started
    assert started["target"] == "schooldata.bootstrap:asgi_from_environment"
    assert started["http"] == HTTPModes.http1
    assert started["http1_settings"].header_read_timeout == 12_000
    assert started["backpressure"] == 2000
    assert started["environment"]["SCHOOLDATA_HEADER_TIMEOUT_SECONDS"] == "12"
    assert started["environment"]["SCHOOLDATA_MAX_CONNECTIONS"] == "2000"
    environment = started["environment"]
    assert environment["SCHOOLDATA_BODY_TIMEOUT_SECONDS"] == "7"
    assert environment["SCHOOLDATA_ANSWER_TIMEOUT_SECONDS"] == "9"
    assert environment["SCHOOLDATA_SERVED"] == "granian"  # its workers time unread answers out


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="Linux only (TCP_USER_TIMEOUT)")
def test_the_answer_timeout_is_set_on_the_listening_socket_its_connections_inherit() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    try:
        watcher = time_out_unread_answers(port, 7)
        assert watcher is not None
        watcher.join(timeout=10)
        assert listener.getsockopt(socket.IPPROTO_TCP, TCP_USER_TIMEOUT) == 7000
        with socket.create_connection(("127.0.0.1", port)):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, TCP_USER_TIMEOUT) == 7000
    finally:
        listener.close()


TCP_USER_TIMEOUT = getattr(socket, "TCP_USER_TIMEOUT", 18)
