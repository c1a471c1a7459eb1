"""Turn a user's postcode into a location, or say precisely why not."""

from __future__ import annotations

from schooldata.domain.errors import UnknownPostcode
from schooldata.domain.geo import Location
from schooldata.domain.postcode import PostcodeQuery, parse_postcode
from schooldata.ports.postcodes import PostcodeDirectory


def locate_postcode(postcodes: PostcodeDirectory, raw: str) -> Location:
    """Rules: case and spaces are ignored; an outward code resolves to the centroid of its
    live postcodes; a postcode not in the imported directory is unknown (never (0, 0))."""
    return locate_parsed(postcodes, parse_postcode(raw), raw)


def locate_parsed(postcodes: PostcodeDirectory, parsed: PostcodeQuery, raw: str) -> Location:
    """The lookup alone, for a postcode already parsed (`raw` is what the caller typed, for
    the error). Shape errors belong to parsing; "unknown" is what a lookup finds."""
    location = postcodes.locate(postcode=parsed)
    if location is None:
        raise UnknownPostcode(raw)
    return location
