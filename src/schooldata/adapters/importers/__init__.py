"""Driven-side importers: publishers' real files -> domain objects, lazily, row by row.

Every parser has the shape `parse(source, log, *, progress=None) -> Iterator[...]`: `source`
is a file, a directory, a glob or several of those; rows read, skipped and rejected (with
line and reason) are recorded in `log` as the items are consumed. `registry.IMPORTERS` is the
table the CLI uses: name -> parser, DatasetKind and provenance record.
"""

from schooldata.adapters.importers.codepoint import parse_codepoint
from schooldata.adapters.importers.gias import parse_gias
from schooldata.adapters.importers.ks4_info import parse_ks4_information
from schooldata.adapters.importers.links import parse_links
from schooldata.adapters.importers.onspd import parse_onspd
from schooldata.adapters.importers.postcodes import parse_postcodes
from schooldata.adapters.importers.registry import IMPORTERS, Importer

__all__ = [
    "IMPORTERS",
    "Importer",
    "parse_codepoint",
    "parse_gias",
    "parse_ks4_information",
    "parse_links",
    "parse_onspd",
    "parse_postcodes",
]
