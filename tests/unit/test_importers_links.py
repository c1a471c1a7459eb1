"""GIAS links: cp1252, CRLF, quoted; both ends must be URNs and the link must say what it is."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from schooldata.adapters.importers.links import parse_links
from schooldata.domain.errors import ImportRejected
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

LINKS = Path(__file__).parent.parent / "fixtures" / "importers" / "links_edubasealldata20250422.csv"


def test_links_are_read_with_names_in_cp1252() -> None:
    log = RejectLog()
    links = list(parse_links(LINKS, log))
    assert links[0] == EstablishmentLink(
        Urn(100006),
        Urn(134643),
        "CCfL Key Stage 3 PRU",
        "Predecessor - merged",
        dt.date(2022, 1, 1),
    )
    assert (
        links[1].linked_name == "St Thomas à Becket Catholic Secondary School, A Voluntary Academy"
    )
    assert links[2].established is None
    assert log.rows_read == 5


def test_bad_urns_and_blank_link_types_are_rejected() -> None:
    log = RejectLog()
    list(parse_links(LINKS, log))
    assert log.rejects == [
        (5, "URN: URN must be exactly six digits; got 'ABC'."),
        (6, "URN 100013: LinkType is blank"),
    ]


def test_a_bad_link_urn_names_its_column(tmp_path: Path) -> None:
    path = tmp_path / "links.csv"
    path.write_text("URN,LinkURN,LinkName,LinkType,LinkEstablishedDate\n100001,9,X,Successor,\n")
    log = RejectLog()
    assert list(parse_links(path, log)) == []
    assert log.rejects == [(2, "LinkURN: URN must be exactly six digits; got '9'.")]


def test_a_file_that_is_not_a_links_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "links.csv"
    path.write_text("URN,EstablishmentName\n100001,X\n")
    with pytest.raises(ImportRejected, match="not a GIAS links file"):
        parse_links(path, RejectLog())
