"""Configuration as the CLI meets it: where record URLs point, which problem a bad setting
reports first, and the one line that names a missing optional extra."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result

from schooldata.__main__ import runtime
from schooldata.application.service import Application
from schooldata.entrypoints.cli.app import cli
from schooldata.settings import Settings

ROOT = Path(__file__).parents[2]
SECRET = "a-test-secret-of-at-least-32-characters"
CLEAN = {
    "SCHOOLDATA_DATABASE_URL": None,
    "SCHOOLDATA_CONFIG": None,
    "SCHOOLDATA_KEY_SECRET": None,
    "SCHOOLDATA_BASE_URL": None,
    "SCHOOLDATA_HOST": None,
    "SCHOOLDATA_PORT": None,
    "SCHOOLDATA_REDIS_URL": None,
}


def invoke(args: list[str], env: dict[str, str | None], **runtime_changes: Any) -> Result:
    wired = attrs.evolve(runtime(), **runtime_changes)
    return CliRunner().invoke(cli, args, obj=wired, env={**CLEAN, **env})


# ------------------------------------------------------------------ record URLs


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "http://127.0.0.1:8000/api/v1/schools/100001"),
        ({"SCHOOLDATA_PORT": "8001"}, "http://127.0.0.1:8001/api/v1/schools/100001"),
        (
            {"SCHOOLDATA_HOST": "0.0.0.0", "SCHOOLDATA_PORT": "8001"},  # every interface
            "http://127.0.0.1:8001/api/v1/schools/100001",
        ),
        ({"SCHOOLDATA_HOST": "::1"}, "http://[::1]:8000/api/v1/schools/100001"),
        ({"SCHOOLDATA_HOST": "::"}, "http://[::1]:8000/api/v1/schools/100001"),
        (
            {"SCHOOLDATA_BASE_URL": "https://schools.example.org/", "SCHOOLDATA_PORT": "8001"},
            "https://schools.example.org/api/v1/schools/100001",
        ),
    ],
    ids=["default", "port", "wildcard-host", "ipv6", "ipv6-wildcard", "base-url"],
)
def test_record_urls_point_where_the_configured_server_answers(
    app: Application, tmp_path: Path, env: dict[str, str | None], url: str
) -> None:
    settings: list[Settings] = []

    def build_app(loaded: Settings, **_: Any) -> Application:
        settings.append(loaded)
        return app

    home = {"SCHOOLDATA_HOME": str(tmp_path)}
    record = invoke(
        ["--format", "json", "school", "100001", "--public"], {**home, **env}, build_app=build_app
    )
    assert record.exit_code == 0, record.stderr
    assert json.loads(record.stdout)["url"] == url
    search = invoke(["--format", "csv", "search", "st mary"], {**home, **env}, build_app=build_app)
    assert search.exit_code == 0, search.stderr
    assert all(line.endswith(tuple("0123456789")) for line in search.stdout.splitlines()[1:])
    assert url.rsplit("/", 1)[0] + "/" in search.stdout
    assert settings[0].served_url == url.removesuffix("/api/v1/schools/100001")


def test_make_serve_passes_host_port_and_workers_given_on_its_command_line() -> None:
    def dry_run(*args: str, **env: str) -> str:
        finished = subprocess.run(
            ["make", "-n", "serve", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", **env},
            check=True,
        )
        return finished.stdout.splitlines()[-1]

    assert dry_run("PORT=8001", "HOST=0.0.0.0").endswith(
        "schooldata serve --host 0.0.0.0 --port 8001"
    )
    assert dry_run("WORKERS=2").endswith("schooldata serve --workers 2")
    # A HOST or PORT that happens to be in the environment is not this server's.
    assert dry_run(HOST="build-machine", PORT="9").endswith("schooldata serve")


# ------------------------------------------------------------------ the real problem first


def test_a_read_only_command_on_a_missing_database_names_it_before_the_missing_secret(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "missing.sqlite3"
    result = invoke(
        ["--db", f"sqlite:///{missing}", "meta"], {"SCHOOLDATA_HOME": str(tmp_path / "home")}
    )
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: There is no database at {missing} (sqlite:///{missing}): create it with "
        "'schooldata db upgrade' or an import, or check --db."
    ]
    assert not missing.exists()


def test_an_existing_database_still_needs_the_secret_and_is_left_as_it_was(
    tmp_path: Path,
) -> None:
    database = tmp_path / "real.sqlite3"
    env = {"SCHOOLDATA_HOME": str(tmp_path / "home")}
    assert invoke(["--db", f"sqlite:///{database}", "db", "upgrade"], env).exit_code == 0
    before = database.read_bytes()
    result = invoke(["--db", f"sqlite:///{database}", "meta"], env)
    assert result.exit_code == 3
    assert result.stderr.startswith("Error: configuration: SCHOOLDATA_KEY_SECRET is required")
    assert database.read_bytes() == before


def test_an_import_without_the_secret_creates_no_database(tmp_path: Path) -> None:
    database = tmp_path / "new.sqlite3"
    gias = ROOT / "tests" / "fixtures" / "importers" / "edubasealldata20250401.csv"
    result = invoke(
        ["--db", f"sqlite:///{database}", "import", "gias", str(gias)],
        {"SCHOOLDATA_HOME": str(tmp_path / "home")},
    )
    assert result.exit_code == 3
    assert "SCHOOLDATA_KEY_SECRET is required" in result.stderr
    assert not database.exists()


# ------------------------------------------------------------------ optional extras


def test_postgresql_without_the_postgres_extra_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if psycopg were not installed
    url = "postgresql+psycopg://someone@127.0.0.1:1/schooldata"
    result = invoke(["--db", url, "meta"], {"SCHOOLDATA_KEY_SECRET": SECRET})
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: Cannot use the database at {url}: PostgreSQL needs the optional dependencies "
        "of schooldata[postgres], which are not installed: pip install 'schooldata[postgres]'"
    ]
    # The same line whatever else is missing: the database comes before the secret.
    assert invoke(["--db", url, "meta"], {}).stderr == result.stderr
    # A plain postgresql:// URL means psycopg too (the one PostgreSQL driver here).
    plain = invoke(["--db", "postgresql://someone@127.0.0.1:1/schooldata", "meta"], {})
    assert "pip install 'schooldata[postgres]'" in plain.stderr


def test_redis_without_the_redis_extra_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "real.sqlite3"
    env = {"SCHOOLDATA_HOME": str(tmp_path / "home"), "SCHOOLDATA_KEY_SECRET": SECRET}
    assert invoke(["--db", f"sqlite:///{database}", "db", "upgrade"], env).exit_code == 0
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.delitem(sys.modules, "schooldata.adapters.redis.rate", raising=False)
    result = invoke(
        ["--db", f"sqlite:///{database}", "meta"],
        {**env, "SCHOOLDATA_REDIS_URL": "redis://127.0.0.1:6379/0"},
    )
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        "Error: configuration: SCHOOLDATA_REDIS_URL (rate windows in Redis) needs the optional "
        "dependencies of schooldata[redis], which are not installed: "
        "pip install 'schooldata[redis]'"
    ]


def test_the_embedded_default_needs_none_of_the_extras(tmp_path: Path) -> None:
    """The demo built and queried in a process where psycopg, redis and OpenTelemetry
    cannot be imported, as after a plain `pip install schooldata`."""
    program = (
        "import sys\n"
        "for name in ('psycopg', 'redis', 'opentelemetry.sdk', 'opentelemetry.instrumentation'):\n"
        "    sys.modules[name] = None\n"
        "from schooldata.__main__ import main\n"
        "sys.argv = ['schooldata', '--format', 'json', 'search', 'st mary', '--limit', '2']\n"
        "main()\n"
    )
    env = {"PATH": "/usr/bin:/bin", "SCHOOLDATA_HOME": str(tmp_path), "HOME": str(tmp_path)}
    finished = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stderr
    answer = json.loads(finished.stdout)
    assert answer["total"] > 2 and len(answer["results"]) == 2
