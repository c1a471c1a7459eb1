"""What the publishers' files say beyond their figures: the facts of every establishment a
register lists (closed ones included), and the release of each results year."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from schooldata.adapters.importers.gias import parse_servable_gias
from schooldata.adapters.importers.ks4_info import parse_ks4_information
from schooldata.adapters.importers.performance.datasets import KS4_RESULTS, KS5_DESTINATIONS
from schooldata.adapters.importers.performance.reader import parse_table
from schooldata.domain.links import Establishment
from schooldata.domain.releases import ReleaseStatus
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"


def test_a_register_lists_the_facts_of_every_establishment_closed_ones_included(
    tmp_path: Path,
) -> None:
    path = tmp_path / "edubasealldata20260901.csv"
    path.write_text(
        "URN,EstablishmentName,EstablishmentStatus (name),OpenDate,CloseDate\n"
        "100001,Open School,Open,01-09-2010,\n"
        "100002,Old School,Closed,01-09-1990,31-08-2010\n"
    )
    log = RejectLog()
    assert [s.urn.value for s in parse_servable_gias(path, log)] == [100001]
    assert log.listed == {
        Urn(100001): Establishment(
            urn=Urn(100001), name="Open School", status="Open", opened=dt.date(2010, 9, 1)
        ),
        Urn(100002): Establishment(
            urn=Urn(100002),
            name="Old School",
            status="Closed",
            opened=dt.date(1990, 9, 1),
            closed=dt.date(2010, 8, 31),
        ),
    }


def test_a_register_without_dates_lists_its_establishments_without_them(tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text("URN,EstablishmentName,EstablishmentStatus (name)\n100003,A,Closed\n")
    log = RejectLog()
    assert list(parse_servable_gias(path, log)) == []
    assert log.listed == {Urn(100003): Establishment(urn=Urn(100003), name="A", status="Closed")}


def ks4_file(path: Path, versions: dict[str, str]) -> Path:
    lines = ["time_period,school_urn,attainment8_average" + (",version" if versions else "")]
    for urn, (period, version) in enumerate(versions.items(), start=100001):
        lines.append(f"{period},{urn},45.1" + (f",{version}" if version else ""))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_each_year_takes_the_release_its_rows_state(tmp_path: Path) -> None:
    path = ks4_file(tmp_path / "ks4.csv", {"202324": "Final", "202425": "Revised"})
    log = RejectLog()
    held = {(r.urn.value, r.period) for r in parse_table(KS4_RESULTS, path, log)}
    assert held == {(100001, "2023/24"), (100002, "2024/25")}
    assert log.releases == {"2023/24": ReleaseStatus.FINAL, "2024/25": ReleaseStatus.REVISED}


def test_without_a_version_column_the_file_name_says_the_release(tmp_path: Path) -> None:
    named = tmp_path / "202425_performance_tables_schools_revised.csv"
    named.write_text("time_period,school_urn,attainment8_average\n202425,100001,45.1\n")
    log = RejectLog()
    list(parse_table(KS4_RESULTS, named, log))
    assert log.releases == {"2024/25": ReleaseStatus.REVISED}
    unnamed = tmp_path / "ks4.csv"
    unnamed.write_text(named.read_text())
    log = RejectLog()
    list(parse_table(KS4_RESULTS, unnamed, log))
    assert log.releases == {"2024/25": None}  # the file does not say: unknown, never a guess


def test_a_row_contradicting_its_years_release_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "ks4.csv"
    path.write_text(
        "time_period,school_urn,attainment8_average,version\n"
        "202425,100001,45.1,Provisional\n"
        "202425,100002,46.2,Revised\n"
    )
    log = RejectLog()
    assert {r.urn.value for r in parse_table(KS4_RESULTS, path, log)} == {100001}
    assert log.releases == {"2024/25": ReleaseStatus.PROVISIONAL}
    assert log.rejects == [
        (3, "URN 100002: version 'revised' for 2024/25, whose earlier rows say 'provisional'")
    ]


def test_the_publishers_files_state_their_releases() -> None:
    log = RejectLog()
    list(parse_ks4_information(FIXTURES / "202425_information_about_schools_provisional.csv", log))
    assert log.releases["2024/25"] is ReleaseStatus.PROVISIONAL
    log = RejectLog()
    list(parse_table(KS5_DESTINATIONS, FIXTURES / "1618_dm_institution_level_202223.csv", log))
    assert set(log.releases.values()) <= {ReleaseStatus.FINAL, ReleaseStatus.REVISED}
    assert log.releases
