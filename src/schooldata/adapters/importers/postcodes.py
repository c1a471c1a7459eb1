"""The one postcode importer over two directories: OS Code-Point Open or ONSPD, told apart by
their first row, so `schooldata import postcodes` takes either."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from schooldata.adapters.importers.codepoint import first_row, looks_like_codepoint, parse_codepoint
from schooldata.adapters.importers.files.sources import DataPath, Source, expand_sources
from schooldata.adapters.importers.onspd import looks_like_onspd, parse_onspd
from schooldata.domain.errors import ImportRejected
from schooldata.ports.imports import Progress, RejectLog

PostcodeFormat = Literal["codepoint", "onspd"]


def detect_postcode_format(paths: list[DataPath]) -> PostcodeFormat:
    """ONSPD has a header naming `pcd`/`pcds` and `lat`/`long`; Code-Point has no header."""
    row = first_row(paths[0])
    if looks_like_onspd(row):
        return "onspd"
    if looks_like_codepoint(row):
        return "codepoint"
    raise ImportRejected(
        f"{paths[0].name} is neither OS Code-Point Open (no header; postcode, quality, "
        "eastings, northings) nor ONSPD (a header with pcd/pcds, lat and long)."
    )


def parse_postcodes(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[Any]:
    """Code-Point Open or ONSPD, whichever the files are."""
    paths = expand_sources(source)
    if detect_postcode_format(paths) == "onspd":
        return parse_onspd(onspd_release_files(paths), log, progress=progress)
    return parse_codepoint(paths, log, progress=progress)


def onspd_release_files(paths: list[DataPath]) -> list[DataPath]:
    """The postcode files of an unpacked ONSPD release: its `Documents/` lookup tables are
    not postcodes (left out), and its `Data/` holds the whole directory twice, as one national
    file and as per-area files in `multi_csv/`: the national file is read, not both."""
    onspd = [path for path in paths if looks_like_onspd(first_row(path))]
    whole = [path for path in onspd if "multi_csv" not in (p.lower() for p in path.parts)]
    chosen = whole or onspd
    return chosen if chosen else paths
