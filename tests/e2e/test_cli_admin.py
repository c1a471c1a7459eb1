"""Operating the service from the CLI: keys, plans, imports, schema and server."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient

from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord, ImportReport
from schooldata.domain.keys import parse_key
from schooldata.domain.phase import GiasPhase
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.runtime import CliRuntime, ImporterSpec
from schooldata.ports.imports import Progress, RejectLog
from schooldata.settings import Settings

RECORD = DatasetRecord(
    name="gias_establishments",
    title="GIAS (test importer)",
    publisher="Department for Education",
    licence="Open Government Licence v3.0",
    attribution="Contains public sector information licensed under the OGL v3.0.",
    url=None,
    extract_date=None,
    imported_at=dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
)


@attrs.frozen
class FakeGias:
    """Reads `urn,name` lines; a non-numeric URN is a reject (the real parsers' contract)."""

    name: str = "gias"
    kind: DatasetKind = DatasetKind.SCHOOLS
    periodic: bool = False

    @property
    def parse(self) -> Any:
        return self._parse

    def _parse(
        self, source: Sequence[Path], log: RejectLog, *, progress: Progress | None = None
    ) -> Iterator[School]:
        for number, line in enumerate(source[0].read_text().splitlines(), start=1):
            log.rows_read += 1
            urn, name = line.split(",")
            if not urn.isdigit():
                log.reject(number, f"URN {urn!r} is not a number")
                continue
            yield School(urn=Urn(int(urn)), name=name, gias_phase=GiasPhase.PRIMARY, status="Open")
            if progress is not None:
                progress(log.rows_read)

    def record_for(
        self, source: Sequence[Path], *, extract_date: dt.date | None = None
    ) -> DatasetRecord:
        return attrs.evolve(RECORD, extract_date=extract_date)


@attrs.define
class Calls:
    served: list[Settings] = attrs.field(factory=list)
    upgraded: list[Settings] = attrs.field(factory=list)
    samples: list[Application] = attrs.field(factory=list)


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def run(app: Application, tmp_path: Path, calls: Calls) -> Any:
    def load_settings(environ: Any = None, **overrides: Any) -> Settings:
        return Settings(home=tmp_path, base_url="http://testserver.local")

    def load_sample(target: Application) -> list[ImportReport]:
        calls.samples.append(target)
        return [ImportReport(dataset="gias_establishments", rows_read=3, rows_imported=3)]

    importers: dict[str, ImporterSpec] = {"gias": FakeGias()}
    runtime = CliRuntime(
        load_settings=load_settings,
        build_app=lambda settings, **_: app,
        serve=lambda settings, **_: calls.served.append(settings),
        upgrade=calls.upgraded.append,
        importers=lambda: importers,
        load_sample=load_sample,
    )

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime)

    return invoke


# ------------------------------------------------------------------ keys and plans


def test_keys_round_trip_shows_the_key_once_and_never_again(
    run: Any,
    client: TestClient[Any],
) -> None:
    created = run("keys", "create", "--org", "acme", "--name", "production", "--json")
    assert created.exit_code == 0, created.stderr
    issued = json.loads(created.stdout)
    key = issued["key"]
    assert parse_key(key).display_prefix == issued["display_prefix"]
    assert "cannot be shown again" in created.stderr

    response = client.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200  # a working key

    listed = run("keys", "list")
    assert listed.exit_code == 0
    assert issued["display_prefix"] in listed.stdout
    assert key not in listed.stdout
    assert key[len(issued["display_prefix"]) :] not in listed.stdout

    listed_json = json.loads(run("--format", "json", "keys", "list", "--org", "acme").stdout)
    assert listed_json == [{k: v for k, v in issued.items() if k != "key"}]
    assert "key_hash" not in listed_json[0]

    revoked = run("keys", "revoke", issued["display_prefix"])
    assert revoked.exit_code == 0, revoked.stderr
    assert "Revoked 1 key" in revoked.stdout
    after = json.loads(run("--format", "json", "keys", "list").stdout)
    assert after[0]["revoked_at"] is not None
    response = client.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 401

    again = run("keys", "revoke", issued["display_prefix"])
    assert again.exit_code == 1
    assert again.stderr.splitlines() == [
        f"No live key with display prefix {issued['display_prefix']!r} found."
    ]


def test_keys_create_as_a_table_prints_the_key_alone_on_its_line(run: Any) -> None:
    created = run("keys", "create", "--org", "acme", "--name", "ci", "--test")
    assert created.exit_code == 0, created.stderr
    lines = created.stdout.splitlines()
    assert lines[1].startswith("svc_test_")
    parse_key(lines[1])


def test_keys_list_with_no_keys_exits_1(run: Any) -> None:
    result = run("keys", "list")
    assert result.exit_code == 1
    assert result.stderr.strip() == "No keys."


def test_orgs_set_plan_moves_an_organisation(run: Any, app: Application) -> None:
    run("keys", "create", "--org", "acme", "--name", "production")
    result = run("--format", "json", "orgs", "set-plan", "acme", "enterprise")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {
        "organisation": "acme",
        "name": "acme",
        "plan": "enterprise",
    }
    unknown = run("orgs", "set-plan", "acme", "platinum")
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith("Error: Unknown plan 'platinum'")


@pytest.mark.parametrize(
    "args",
    [
        ["orgs", "set-plan", "acne", "enterprise"],
        ["keys", "list", "--org", "acne"],
    ],
)
def test_an_organisation_that_does_not_exist_is_not_found(run: Any, args: list[str]) -> None:
    run("keys", "create", "--org", "acme", "--name", "production")
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["Organisation 'acne' not found."]
    assert result.stdout == ""


def test_revoking_a_prefix_no_key_has_is_not_found(run: Any) -> None:
    result = run("keys", "revoke", "svc_live_ZZZZ")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["No live key with display prefix 'svc_live_ZZZZ' found."]


def test_orgs_list_shows_every_organisation_and_its_plan(run: Any) -> None:
    empty = run("orgs", "list")
    assert empty.exit_code == 1
    assert empty.stderr.strip() == "No organisations."
    run("keys", "create", "--org", "zeta", "--name", "ci", "--plan", "enterprise")
    run("keys", "create", "--org", "acme", "--name", "production")
    listed = run("--format", "csv", "orgs", "list")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "organisation,name,plan",
        "acme,acme,developer",
        "zeta,zeta,enterprise",
    ]
    table = run("orgs", "list")
    assert "zeta" in table.stdout and "enterprise" in table.stdout


# ------------------------------------------------------------------ imports


def test_import_reports_rows_read_imported_and_the_first_rejects(
    run: Any, app: Application, tmp_path: Path
) -> None:
    good = [f"{200001 + n},School {n}" for n in range(1_200)]  # 12 bad rows are within 1%
    lines = [good[0], *(f"x{n},Bad Row" for n in range(12)), *good[1:]]
    source = tmp_path / "edubasealldata20260101.csv"
    source.write_text("\n".join(lines))
    # (A register unrelated to the fixture's: --allow-shrink, as an operator would say.)
    result = run(
        "--format", "json", "import", "gias", str(source), "--extract-date", "2026-01-01",
        "--allow-shrink",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    [report] = json.loads(result.stdout)
    assert report["dataset"] == "gias_establishments"
    counts = (report["rows_read"], report["rows_imported"], report["rows_rejected"])
    assert counts == (1_212, 1_200, 12)
    assert len(report["rejects"]) == 10
    assert report["rejects"][0] == {"line": 2, "reason": "URN 'x0' is not a number"}
    assert app.get_school.execute("200001").name == "School 0"
    [record] = [r for r in app.about.freshness() if r.dataset.name == "gias_establishments"]
    assert record.dataset.extract_date == dt.date(2026, 1, 1)


def test_import_table_summary_shows_counts_and_rejects(run: Any, tmp_path: Path) -> None:
    source = tmp_path / "gias.csv"
    source.write_text("\n".join(["200001,A", *(f"x{n},B" for n in range(10)), "200002,C"]))
    result = run("import", "gias", str(source), "--allow-shrink")  # not the fixture's register
    assert result.exit_code == 0, result.stderr
    assert "rows_imported" in result.stdout
    assert "first 10 of 10 rejected rows" in result.stdout


def test_an_import_with_too_many_bad_rows_changes_nothing_and_exits_3(
    run: Any, app: Application, tmp_path: Path
) -> None:
    source = tmp_path / "gias.csv"
    source.write_text("\n".join(["200001,A", *(f"x{n},B" for n in range(11))]))
    result = run("import", "gias", str(source))
    assert result.exit_code == 3
    assert len(result.stderr.splitlines()) == 1
    assert "nothing was imported" in result.stderr
    assert app.get_school.execute("100001")  # the old data is still served


def test_import_argument_mistakes_are_usage_errors(run: Any, tmp_path: Path) -> None:
    missing = run("import", "gias", str(tmp_path / "absent.csv"))
    assert missing.exit_code == 2
    assert len(missing.stderr.splitlines()) == 1
    no_files = run("import", "gias")
    assert no_files.exit_code == 2
    unknown = run("import", "ofsted", "x.csv")
    assert unknown.exit_code == 2
    not_built = run("import", "links", str(Path(__file__)))
    assert not_built.exit_code == 3
    assert "no 'links' importer" in not_built.stderr


def test_a_refusal_names_the_file_it_is_about(run: Any, tmp_path: Path) -> None:
    source = tmp_path / "edubasealldata20260101.csv"
    source.write_text("x1,Bad\n")
    result = run("import", "gias", str(source))
    assert result.exit_code == 3
    assert result.stderr.startswith("Error: edubasealldata20260101.csv: ")
    assert "nothing to import" in result.stderr


def test_a_period_for_a_file_that_dates_itself_is_a_usage_error(run: Any, tmp_path: Path) -> None:
    source = tmp_path / "gias.csv"
    source.write_text("200001,A\n")
    result = run("import", "gias", str(source), "--period", "2023/24")
    assert result.exit_code == 2
    assert "--period does not apply to 'gias'" in result.stderr


def test_a_real_import_into_the_demo_says_it_removed_the_demo(tmp_path: Path) -> None:
    demo_app = bootstrap_memory()
    invented = [School(urn=Urn(100001), name="Invented Primary", status="Open")]
    demo_app.import_dataset.execute(
        kind=DatasetKind.SCHOOLS,
        items=invented,
        log=RejectLog(),
        record=attrs.evolve(RECORD, synthetic=True, demo=True),
    )
    runtime = CliRuntime(
        load_settings=lambda environ=None, **overrides: Settings(home=tmp_path),
        build_app=lambda settings, **_: demo_app,
        serve=print,
        upgrade=print,
        importers=lambda: {"gias": FakeGias()},
        load_sample=lambda a: [],
    )
    source = tmp_path / "edubasealldata20260101.csv"
    source.write_text("126370,Westbury Leigh CofE Primary School\n")
    result = CliRunner().invoke(
        cli, ["--format", "json", "import", "gias", str(source)], obj=runtime
    )
    assert result.exit_code == 0, result.stderr
    assert "Removed the bundled demo (gias_establishments)" in result.stderr
    [report] = json.loads(result.stdout)
    assert report["removed_demo_datasets"] == ["gias_establishments"]
    assert [s.urn.value for s in demo_app.ports.schools.iter_all()] == [126370]


def test_import_sample_loads_the_bundled_data(run: Any, app: Application, calls: Calls) -> None:
    result = run("--format", "csv", "import", "sample")
    assert result.exit_code == 0, result.stderr
    assert calls.samples == [app]
    assert result.stdout.splitlines() == [
        "dataset,rows_read,rows_imported,rows_skipped,rows_rejected,records_stored",
        "gias_establishments,3,3,0,0,3",
    ]


# ------------------------------------------------------------------ schema and server


def test_db_upgrade_runs_the_migrations(run: Any, calls: Calls) -> None:
    result = run("db", "upgrade")
    assert result.exit_code == 0, result.stderr
    assert len(calls.upgraded) == 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_serve_passes_host_port_and_workers(run: Any, calls: Calls) -> None:
    port = free_port()
    result = run("serve", "--host", "0.0.0.0", "--port", str(port), "--workers", "4")
    assert result.exit_code == 0, result.stderr
    [settings] = calls.served
    assert (settings.host, settings.port, settings.workers) == ("0.0.0.0", port, 4)
    bad = run("serve", "--port", "70000")
    assert bad.exit_code == 2
    assert len(bad.stderr.splitlines()) == 1


def test_serve_refuses_a_port_another_server_listens_on(run: Any, calls: Calls) -> None:
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        result = run("serve", "--host", "127.0.0.1", "--port", str(port))
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: cannot serve on 127.0.0.1:{port}: Address already in use. Is another server "
        "running there? Stop it or choose another --port."
    ]
    assert calls.served == []


def test_serve_refuses_a_host_it_cannot_resolve(run: Any, calls: Calls) -> None:
    result = run("serve", "--host", "no-such-host.invalid", "--port", str(free_port()))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: cannot listen on 'no-such-host.invalid': ")
    assert calls.served == []


# ------------------------------------------------------------------ the installed command


def test_the_console_script_wiring_offers_the_registered_importers() -> None:
    from schooldata.__main__ import runtime

    names = set(runtime().importers())
    assert {"gias", "links", "postcodes", "ks4-info"} <= names


def test_shell_completion_script_is_generated() -> None:
    env = {**os.environ, "_SCHOOLDATA_COMPLETE": "bash_source"}
    completed = subprocess.run(
        [sys.executable, "-m", "schooldata"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "_schooldata_completion" in completed.stdout


# ------------------------------------------------------------------ global options


def test_db_and_config_reach_the_settings(app: Application, tmp_path: Path) -> None:
    seen: list[tuple[Any, dict[str, Any]]] = []

    def load_settings(environ: Any = None, **overrides: Any) -> Settings:
        seen.append((environ, overrides))
        return Settings(home=tmp_path)

    runtime = CliRuntime(
        load_settings=load_settings,
        build_app=lambda settings, **_: app,
        serve=print,
        upgrade=print,
        importers=dict,
        load_sample=lambda a: [],
    )
    config = tmp_path / "schooldata.toml"
    config.write_text("")
    args = ["--db", "sqlite:///x.db", "--config", str(config), "meta"]
    result = CliRunner().invoke(cli, args, obj=runtime)
    assert result.exit_code == 0, result.stderr
    [(environ, overrides)] = seen
    assert overrides == {"database_url": "sqlite:///x.db"}
    assert environ["SCHOOLDATA_CONFIG"] == str(config)

    seen.clear()
    env = {"SCHOOLDATA_DATABASE_URL": "postgresql+psycopg://db/schooldata"}
    assert CliRunner().invoke(cli, ["meta"], obj=runtime, env=env).exit_code == 0
    assert seen[0][1] == {"database_url": "postgresql+psycopg://db/schooldata"}


def test_help_and_version_need_no_database(tmp_path: Path) -> None:
    def explode(*_: Any, **__: Any) -> Any:
        raise AssertionError("nothing may be built for --help")

    runtime = CliRuntime(
        load_settings=explode,
        build_app=explode,
        serve=explode,
        upgrade=explode,
        importers=explode,
        load_sample=explode,
    )
    for args in (["--help"], ["search", "--help"], ["keys", "create", "--help"], ["--version"]):
        assert CliRunner().invoke(cli, args, obj=runtime).exit_code == 0


def test_a_database_given_with_db_and_no_key_secret_is_named_in_the_error(tmp_path: Path) -> None:
    from schooldata.__main__ import runtime

    database = f"sqlite:///{tmp_path / 'real.sqlite3'}"
    env = {
        "SCHOOLDATA_KEY_SECRET": None,
        "SCHOOLDATA_DATABASE_URL": None,
        "SCHOOLDATA_CONFIG": None,
    }
    # The database exists: a missing one is reported before the secret (test_cli_configuration).
    upgraded = CliRunner().invoke(cli, ["--db", database, "db", "upgrade"], obj=runtime(), env=env)
    assert upgraded.exit_code == 0, upgraded.stderr
    result = CliRunner().invoke(cli, ["--db", database, "meta"], obj=runtime(), env=env)
    assert result.exit_code == 3
    assert "SCHOOLDATA_KEY_SECRET is required" in result.stderr
    assert database in result.stderr
    assert "SCHOOLDATA_DATABASE_URL" not in result.stderr
