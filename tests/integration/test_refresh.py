"""`schooldata refresh` against a publisher on loopback (issue 25's acceptance), on SQLite and
PostgreSQL: the command with the production wiring, "today" from an injected clock.

The publisher serves the files in the publishers' layouts (tests/support/publisher.py): a GIAS
extract (cp1252, quoted, CRLF) and its links under dated names, and Code-Point Open as a zip
behind a redirect. No test reaches the internet: the addresses are the loopback server's.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient
from tests.support.publisher import (
    CODEPOINT_RELEASE,
    CODEPOINT_ZIP,
    Publisher,
    codepoint_zip,
    gias_file,
    links_file,
    served_urns,
    serving,
)

from schooldata.__main__ import runtime
from schooldata.adapters.http.downloads import HttpDownloader
from schooldata.adapters.importers.readers import ImporterFiles
from schooldata.adapters.sample import demo
from schooldata.adapters.sql.refresh_lock import refresh_lock
from schooldata.adapters.sql.store import SqlStore
from schooldata.application.import_dataset import ImportDataset
from schooldata.application.publishers import Locations
from schooldata.application.refresh import RefreshSources, Status
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap, build_refresh
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.rest.app import create_app
from schooldata.ports.imports import Progress, RejectLog
from schooldata.settings import (
    CODEPOINT_URL,
    GIAS_BASE_URL,
    Settings,
    SettingsError,
    load_settings,
)

pytestmark = pytest.mark.integration

SECRET = "refresh-tests-secret-of-at-least-32-chars"
TODAY = dt.date(2026, 11, 27)
GIAS = gias_file(300)
SERVED = served_urns(GIAS)
LINKS = links_file()
ZIP = codepoint_zip()
FIRST_URN = SERVED[0]  # an open school of the file


class Clock:
    """The injected clock: "today" for GIAS's dated names, and the check times."""

    def __init__(self) -> None:
        self.now_at = dt.datetime.combine(TODAY, dt.time(6, 0), tzinfo=dt.UTC)

    def now(self) -> dt.datetime:
        return self.now_at

    def timestamp(self) -> float:
        return self.now().timestamp()

    def next_day(self) -> dt.date:
        self.now_at += dt.timedelta(days=1)
        return self.now_at.date()


@attrs.define
class Deployment:
    """A database, the publisher, and `schooldata` run against both."""

    url: str
    publisher: Publisher
    clock: Clock
    home: Path

    @property
    def env(self) -> dict[str, str | None]:
        return {
            "SCHOOLDATA_KEY_SECRET": SECRET,
            "SCHOOLDATA_DATABASE_URL": None,
            "SCHOOLDATA_CONFIG": None,
            "SCHOOLDATA_HOME": str(self.home),
            "SCHOOLDATA_GIAS_BASE_URL": self.publisher.gias_base_url,
            "SCHOOLDATA_CODEPOINT_URL": self.publisher.codepoint_url,
        }

    def settings(self) -> Settings:
        environ = {k: v for k, v in self.env.items() if v is not None}
        return load_settings(environ, database_url=self.url)

    def build(self, app: Application, settings: Settings) -> RefreshSources:
        fast = HttpDownloader(backoff_seconds=0.01)
        return build_refresh(app, settings, clock=self.clock, downloader=fast)

    def __call__(self, *args: str) -> Result:
        wired = attrs.evolve(runtime(), refresh=self.build)
        return CliRunner().invoke(cli, ["--db", self.url, *args], obj=wired, env=self.env)

    def refresh(self, *args: str) -> tuple[int, list[str]]:
        result = self("refresh", *args)
        assert result.exception is None or isinstance(result.exception, SystemExit), result
        return result.exit_code, result.stdout.splitlines()

    def app(self) -> Application:
        return bootstrap(self.settings(), create_database=False)

    def version(self) -> str:
        store = SqlStore(self.url)
        try:
            return store.version()
        finally:
            store.close()

    def served(self) -> list[int]:
        result = self("--format", "json", "schools", "--all")
        assert result.exit_code in (0, 1), result.stderr  # 1: none served
        return sorted(item["urn"] for item in json.loads(result.stdout))

    def freshness(self) -> dict[str, dict[str, Any]]:
        result = self("--format", "json", "freshness")
        assert result.exit_code in (0, 1), result.stderr  # 1: nothing imported yet
        return {item["dataset"]: item for item in json.loads(result.stdout)}


@pytest.fixture
def publisher() -> Iterator[Publisher]:
    with serving() as running:
        running.publish_gias(TODAY, GIAS, links=LINKS)
        running.files[CODEPOINT_ZIP] = ZIP
        yield running


@pytest.fixture
def deployment(sql_url: str, publisher: Publisher, tmp_path: Path) -> Deployment:
    return Deployment(url=sql_url, publisher=publisher, clock=Clock(), home=tmp_path / "home")


def gias_url(deployment: Deployment, day: dt.date, *, links: bool = False) -> str:
    return deployment.publisher.base + deployment.publisher.gias_path(day, links=links)


def first_refresh(deployment: Deployment) -> None:
    code, lines = deployment.refresh()
    assert code == 0, lines


# ---- the acceptance runs -------------------------------------------------------------------


def test_a_first_refresh_imports_gias_links_and_postcodes(deployment: Deployment) -> None:
    code, lines = deployment.refresh()
    assert code == 0
    assert lines[:2] == [
        f"gias: imported {len(SERVED)} rows ({TODAY})",
        f"links: imported 3 rows ({TODAY})",
    ]
    assert re.fullmatch(rf"postcodes: imported \d+ rows \({CODEPOINT_RELEASE}\)", lines[2])
    assert len(lines) == 3
    assert deployment.served() == SERVED
    # Code-Point's address redirects to the release's zip: followed.
    assert deployment.publisher.asked(CODEPOINT_ZIP)


def test_a_second_refresh_says_unchanged_for_each_and_changes_nothing(
    deployment: Deployment,
) -> None:
    first_refresh(deployment)
    version = deployment.version()
    first_check = deployment.clock.now()
    deployment.clock.now_at += dt.timedelta(hours=3)

    code, lines = deployment.refresh()

    assert (code, lines) == (0, ["gias: unchanged", "links: unchanged", "postcodes: unchanged"])
    assert deployment.version() == version
    # Asked conditionally, with what the last fetch kept: 304, nothing downloaded.
    last = deployment.publisher.asked(deployment.publisher.gias_path(TODAY))[-1]
    assert last["if-none-match"].startswith('"')
    gias = deployment.freshness()["gias_establishments"]
    assert gias["checked_at"] == "2026-11-27T09:00:00Z"
    assert gias["changed_at"] == first_check.isoformat().replace("+00:00", "Z")


def test_the_file_imported_last_is_known_by_its_date_and_sha256_without_validators(
    deployment: Deployment,
) -> None:
    deployment.publisher.etags = False
    first_refresh(deployment)
    version = deployment.version()
    code, lines = deployment.refresh()
    assert (code, lines) == (0, ["gias: unchanged", "links: unchanged", "postcodes: unchanged"])
    assert deployment.version() == version
    assert (
        "if-none-match" not in deployment.publisher.asked(deployment.publisher.gias_path(TODAY))[-1]
    )


def test_a_newer_gias_file_is_imported_on_the_next_run(deployment: Deployment) -> None:
    first_refresh(deployment)
    tomorrow = deployment.clock.next_day()
    deployment.publisher.publish_gias(tomorrow, gias_file(300, renamed={FIRST_URN: "New Name"}))

    code, lines = deployment.refresh()

    # Tomorrow's links are not out: today's are still the newest, and unchanged.
    assert (code, lines) == (
        0,
        [
            f"gias: imported {len(SERVED)} rows ({tomorrow})",
            "links: unchanged",
            "postcodes: unchanged",
        ],
    )
    school = deployment("--format", "json", "school", str(FIRST_URN))
    assert json.loads(school.stdout)["name"] == "New Name"
    gias = deployment.freshness()["gias_establishments"]
    assert gias["extract_date"] == str(tomorrow)
    assert gias["source_url"] == gias_url(deployment, tomorrow)


def test_todays_file_not_out_yet_falls_back_to_yesterdays(sql_url: str, tmp_path: Path) -> None:
    yesterday = TODAY - dt.timedelta(days=1)
    with serving() as publisher:
        publisher.publish_gias(yesterday, GIAS, links=LINKS)
        publisher.files[CODEPOINT_ZIP] = ZIP
        deployment = Deployment(sql_url, publisher, Clock(), tmp_path / "home")
        code, lines = deployment.refresh("--only", "gias,links")
        assert (code, lines) == (
            0,
            [
                f"gias: imported {len(SERVED)} rows ({yesterday})",
                f"links: imported 3 rows ({yesterday})",
            ],
        )
        assert [h["user-agent"] for h in publisher.asked(publisher.gias_path(TODAY))]  # 404 first


def test_a_503_then_a_200_succeeds_through_the_retry(deployment: Deployment) -> None:
    path = deployment.publisher.gias_path(TODAY)
    deployment.publisher.failures[path] = [503]
    code, lines = deployment.refresh("--only", "gias")
    assert (code, lines) == (0, [f"gias: imported {len(SERVED)} rows ({TODAY})"])
    assert len(deployment.publisher.asked(path)) == 2


def test_a_body_cut_short_is_refused_the_others_are_still_done_and_nothing_changes(
    deployment: Deployment,
) -> None:
    path = deployment.publisher.gias_path(TODAY)
    deployment.publisher.cut.add(path)

    code, lines = deployment.refresh()

    assert code == 3
    assert lines[0].startswith(f"gias: unreachable: {gias_url(deployment, TODAY)}: ")
    assert "gave up after 4 attempts" in lines[0]
    assert lines[1] == f"links: imported 3 rows ({TODAY})"
    assert lines[2].startswith("postcodes: imported ")
    assert "gias_establishments" not in deployment.freshness()
    assert deployment.served() == []


def test_a_csv_cut_mid_row_is_refused_and_the_register_stays(deployment: Deployment) -> None:
    first_refresh(deployment)
    version, served = deployment.version(), deployment.served()
    tomorrow = deployment.clock.next_day()
    deployment.publisher.publish_gias(tomorrow, GIAS[: len(GIAS) * 2 // 3])

    code, lines = deployment.refresh("--only", "gias")

    assert code == 3
    [line] = lines
    assert line.startswith(f"gias: refused: {gias_url(deployment, tomorrow)}: ")
    assert "the file is cut off" in line
    assert (deployment.version(), deployment.served()) == (version, served)


def test_a_shrinking_file_is_refused_and_the_register_stays(deployment: Deployment) -> None:
    first_refresh(deployment)
    version, served = deployment.version(), deployment.served()
    tomorrow = deployment.clock.next_day()
    deployment.publisher.publish_gias(tomorrow, gias_file(100), links=LINKS)

    code, lines = deployment.refresh()

    assert code == 3
    assert lines[0].startswith(f"gias: refused: {gias_url(deployment, tomorrow)}: ")
    assert "gias_establishments: this file would stop serving " in lines[0]
    assert "--allow-shrink" in lines[0]
    # The links file of the same day is a new file (a new date): imported.
    assert lines[1:] == [f"links: imported 3 rows ({tomorrow})", "postcodes: unchanged"]
    assert deployment.served() == served
    assert deployment.version() != version  # (the links import)
    assert deployment.freshness()["gias_establishments"]["extract_date"] == str(TODAY)


def test_two_concurrent_refreshes_never_both_import(deployment: Deployment) -> None:
    path = deployment.publisher.gias_path(TODAY)
    hold = deployment.publisher.holds[path] = threading.Event()
    settings = deployment.settings()
    first_app = bootstrap(settings, create_database=True)
    outcome: list[Any] = []
    first = threading.Thread(
        target=lambda: outcome.append(deployment.build(first_app, settings).execute())
    )
    first.start()
    try:
        wait_until(lambda: deployment.publisher.asked(path))
        # A second refresh, from the command line and from another application.
        second = deployment("refresh")
        assert (second.exit_code, second.stdout) == (0, "already running\n")
        other = deployment.build(deployment.app(), settings).execute()
        assert other.already_running and other.outcomes == ()
    finally:
        hold.set()
        first.join(timeout=60)
    [report] = outcome
    assert [o.status for o in report.outcomes] == [Status.IMPORTED] * 3
    assert len(deployment.publisher.asked(path)) == 1
    # The lock went with the first refresh: the next one runs.
    assert deployment.refresh()[1][0] == "gias: unchanged"


def test_a_dry_run_says_what_it_would_do_and_changes_nothing(deployment: Deployment) -> None:
    assert deployment("db", "upgrade").exit_code == 0
    version = deployment.version()

    code, lines = deployment.refresh("--dry-run")

    assert (code, lines) == (
        0,
        [
            f"gias: would download {gias_url(deployment, TODAY)} ({TODAY}) and import it",
            f"links: would download {gias_url(deployment, TODAY, links=True)} ({TODAY}) "
            "and import it",
            f"postcodes: would download {deployment.publisher.codepoint_url} and import it",
        ],
    )
    assert deployment.version() == version
    assert deployment.freshness() == {}
    first_refresh(deployment)
    code, lines = deployment.refresh("--dry-run")
    assert (code, lines) == (0, ["gias: unchanged", "links: unchanged", "postcodes: unchanged"])


def test_only_names_the_sources_and_a_bad_name_is_a_usage_error(deployment: Deployment) -> None:
    assert deployment.refresh("--only", "postcodes")[1][0].startswith("postcodes: imported ")
    bad = deployment("refresh", "--only", "gias,schools")
    assert bad.exit_code == 2
    assert "--only" in bad.stderr and "gias, links, postcodes" in bad.stderr
    assert deployment("refresh", "--only", "").exit_code == 2


def test_a_source_nobody_publishes_is_unreachable(deployment: Deployment) -> None:
    del deployment.publisher.files[CODEPOINT_ZIP]
    deployment.publisher.files.clear()
    code, lines = deployment.refresh()
    assert code == 3
    assert lines[0] == (
        "gias: unreachable: no edubasealldataYYYYMMDD.csv is published for any day from "
        f"{TODAY} back to {TODAY - dt.timedelta(days=7)} ({gias_url(deployment, TODAY - dt.timedelta(days=7))} "
        "and the rest: 404)."
    )
    assert lines[2].startswith("postcodes: unreachable: ")


# ---- what the service shows ---------------------------------------------------------------


def test_data_freshness_shows_each_sources_last_check_and_last_change(
    deployment: Deployment,
) -> None:
    first_refresh(deployment)
    app = deployment.app()
    key = app.keys.create_key(organisation="acme", name="tests", plan="developer").key
    assert app.pipeline.reuse is not None  # answers are reused, as served by default
    asgi = create_app(app, base_url="http://testserver.local")
    with TestClient(app=asgi) as client:  # type: ignore[arg-type]

        def freshness() -> dict[str, dict[str, Any]]:
            response = client.get(
                "/api/v1/data-freshness",
                headers={"Authorization": f"Bearer {key}", "Accept-Encoding": "identity"},
            )
            assert response.status_code == 200
            return {item["dataset"]: item for item in response.json()["data"]}

        for _ in range(3):  # asked again and again: an answer reuse would keep
            assert freshness()["gias_establishments"]["checked_at"] == "2026-11-27T06:00:00Z"
            time.sleep(0.3)
        deployment.clock.now_at += dt.timedelta(hours=1)
        assert deployment.refresh()[1][0] == "gias: unchanged"
        # The check moved no data version, and the answer is not reused from before it.
        items = freshness()
    assert items["gias_establishments"]["source_url"] == gias_url(deployment, TODAY)
    assert items["codepoint_open"]["source_url"] == deployment.publisher.codepoint_url
    for item in items.values():
        assert item["checked_at"] == "2026-11-27T07:00:00Z"
        assert item["changed_at"] == "2026-11-27T06:00:00Z"
    table = deployment("freshness")
    assert "Checked at" in table.stdout and "Changed at" in table.stdout


def test_an_import_by_hand_forgets_the_source_and_the_next_refresh_takes_it_back(
    deployment: Deployment, tmp_path: Path
) -> None:
    first_refresh(deployment)
    by_hand = tmp_path / "edubasealldata20261120.csv"
    by_hand.write_bytes(gias_file(300, renamed={FIRST_URN: "Typed In"}))
    assert deployment("import", "gias", str(by_hand)).exit_code == 0
    gias = deployment.freshness()["gias_establishments"]
    assert (gias["source_url"], gias["checked_at"], gias["changed_at"]) == (None, None, None)

    code, lines = deployment.refresh("--only", "gias")

    assert (code, lines) == (0, [f"gias: imported {len(SERVED)} rows ({TODAY})"])


def test_ready_stays_200_and_readers_see_the_old_register_while_a_refresh_imports(
    deployment: Deployment,
) -> None:
    first_refresh(deployment)
    tomorrow = deployment.clock.next_day()
    deployment.publisher.publish_gias(tomorrow, gias_file(300, renamed={FIRST_URN: "New Name"}))
    halfway, go_on = threading.Event(), threading.Event()
    settings = deployment.settings()
    writer = deployment.app()
    store = writer.ports.store
    assert isinstance(store, SqlStore)
    refresh = RefreshSources(
        import_dataset=ImportDataset(store=store, clock=deployment.clock),
        registry=writer.ports.datasets,
        log=store,
        downloader=HttpDownloader(),
        files=PausingFiles(halfway, go_on),
        lock=refresh_lock(store),
        clock=deployment.clock,
        locations=Locations(
            gias_base_url=settings.gias_base_url, codepoint_url=settings.codepoint_url
        ),
    )
    done: list[Any] = []
    running = threading.Thread(target=lambda: done.append(refresh.execute(only=["gias"])))
    reader = deployment.app()
    with TestClient(app=create_app(reader, base_url="http://testserver.local")) as client:  # type: ignore[arg-type]
        running.start()
        try:
            assert halfway.wait(60), "the import never started"
            ready = client.get("/ready")
            school = client.get("/api/get-school", params={"urn": str(FIRST_URN)})
        finally:
            go_on.set()
            running.join(timeout=60)
        assert ready.status_code == 200, ready.text
        assert school.status_code == 200
        assert school.json()["name"] != "New Name"
        assert [o.status for o in done[0].outcomes] == [Status.IMPORTED]
        wait_until(
            lambda: (
                client.get("/api/get-school", params={"urn": str(FIRST_URN)}).json()["name"]
                == "New Name"
            )
        )


class PausingFiles(ImporterFiles):
    """The importers, pausing half way through the rows (inside the import's transaction)."""

    def __init__(self, halfway: threading.Event, go_on: threading.Event) -> None:
        super().__init__()
        self._halfway = halfway
        self._go_on = go_on

    def parse(
        self, *, reader: str, path: Path, log: RejectLog, progress: Progress | None = None
    ) -> Iterator[Any]:
        for number, item in enumerate(super().parse(reader=reader, path=path, log=log)):
            if number == 150:
                self._halfway.set()
                self._go_on.wait(60)
            yield item


def test_the_default_addresses_are_the_publishers_and_tests_never_use_them() -> None:
    settings = load_settings({})
    assert settings.gias_base_url == GIAS_BASE_URL
    assert (
        GIAS_BASE_URL == "https://ea-edubase-api-prod.azurewebsites.net/edubase/downloads/public/"
    )
    assert settings.codepoint_url == CODEPOINT_URL
    assert CODEPOINT_URL == (
        "https://api.os.uk/downloads/v1/products/CodePointOpen/downloads?area=GB&format=CSV"
        "&redirect"
    )
    # tests/conftest.py points both at a closed loopback port for every test process.
    guarded = load_settings()
    assert guarded.gias_base_url.startswith("http://127.0.0.1:")
    assert guarded.codepoint_url.startswith("http://127.0.0.1:")


def wait_until(condition: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_first_refresh_of_a_demo_database_replaces_the_demo(
    deployment: Deployment, tmp_path: Path
) -> None:
    """A database holding the bundled demo (its postcodes, and a register recorded as the
    demo's, as the embedded demo loads them): its invented schools give way to the publisher's
    fewer (not a shrink: the demo is not a register), and the command says so."""
    app = bootstrap(deployment.settings(), create_database=True)
    register = tmp_path / "gias_demo.csv"
    register.write_bytes(gias_file(700))
    entries = {e["format"]: e for e in demo.manifest()}
    for name, source in (
        ("codepoint_open", demo.DATA / entries["codepoint_open"]["file"]),
        ("gias_establishments", register),
    ):
        parse, kind = demo.LOAD_ORDER[name]
        log = RejectLog()
        app.import_dataset.execute(
            kind=kind, items=parse(source, log), log=log, record=demo._record(entries[name])
        )
    assert len(deployment.served()) > len(SERVED)

    result = deployment("refresh")

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"gias: imported {len(SERVED)} rows ({TODAY})"
    assert result.stderr.startswith(
        "Removed the bundled demo (codepoint_open, gias_establishments)"
    )
    assert deployment.served() == SERVED


def test_db_may_follow_the_command(deployment: Deployment) -> None:
    wired = attrs.evolve(runtime(), refresh=deployment.build)
    result = CliRunner().invoke(
        cli, ["refresh", "--only", "links", "--db", deployment.url], obj=wired, env=deployment.env
    )
    assert (result.exit_code, result.stdout) == (0, f"links: imported 3 rows ({TODAY})\n")
    assert deployment.freshness()["gias_links"]["source_url"] == gias_url(
        deployment, TODAY, links=True
    )


def test_the_publishers_addresses_come_from_the_environment_or_the_settings_file(
    tmp_path: Path,
) -> None:
    toml = tmp_path / "schooldata.toml"
    toml.write_text(
        '[schooldata]\ngias_base_url = "https://mirror.example/gias/"\n'
        'codepoint_url = "https://mirror.example/codepo_gb.zip"\n',
        encoding="utf-8",
    )
    from_file = load_settings({"SCHOOLDATA_CONFIG": str(toml)})
    assert from_file.gias_base_url == "https://mirror.example/gias/"
    assert from_file.codepoint_url == "https://mirror.example/codepo_gb.zip"
    from_env = load_settings(
        {"SCHOOLDATA_CONFIG": str(toml), "SCHOOLDATA_GIAS_BASE_URL": "http://10.0.0.5/gias"}
    )
    assert from_env.gias_base_url == "http://10.0.0.5/gias"
    with pytest.raises(SettingsError, match="SCHOOLDATA_CODEPOINT_URL must be an http"):
        load_settings({"SCHOOLDATA_CODEPOINT_URL": "ftp://mirror.example/codepo_gb.zip"})
