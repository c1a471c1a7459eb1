"""Turn a user's postcode into a location, or say precisely why not."""

from __future__ import annotations

from schooldata.domain.errors import UnknownPostcode
from schooldata.domain.geo import Location
from schooldata.domain.postcode import PostcodeQuery
from schooldata.ports.postcodes import PostcodeDirectory


def locate_parsed(postcodes: PostcodeDirectory, parsed: PostcodeQuery, raw: str) -> Location:
    """Where a parsed postcode is (`raw` is what the caller typed, for the error): an outward
    code resolves to the centroid of its live postcodes; a postcode not in the imported
    directory is unknown, never (0, 0). Shape errors belong to parsing (`parse_postcode`)."""
    location = postcodes.locate(postcode=parsed)
    if location is None:
        raise UnknownPostcode(raw)
    return location
