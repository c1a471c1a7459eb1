"""A commercial list's items (`commercial.SchoolListItem`) built from search hits: a school's
item once per data version (`memo`), its distance per answer. Compiled (setup.py)."""

from __future__ import annotations

from msgspec.structs import replace

from schooldata.domain.geo import shown_distance
from schooldata.domain.school import School
from schooldata.domain.search import SearchHit
from schooldata.entrypoints.wire.commercial import SchoolListItem
from schooldata.entrypoints.wire.common import (
    historic_grade,
    location,
    phase,
    school_url,
    suppressed_reason,
)
from schooldata.entrypoints.wire.fragments import Members, cut_at_distance
from schooldata.entrypoints.wire.memo import PerSchool


def _list_item(s: School, base_url: str) -> SchoolListItem:
    return SchoolListItem(
        urn=s.urn.value,
        name=s.name,
        phase=phase(s.phase),
        type=s.type_name,
        local_authority=s.la_name,
        local_authority_code=s.la_code,
        town=s.town,
        postcode=s.postcode,
        location=location(s.location),
        gender=s.gender,
        statutory_low_age=s.statutory_low_age,
        statutory_high_age=s.statutory_high_age,
        pupils=s.pupils,
        ofsted_rating=s.ofsted_rating,
        ofsted_historic_grade=historic_grade(s.ofsted),
        svc_score=s.svc_score,
        score_suppressed=s.score_suppressed,
        score_suppressed_reason=suppressed_reason(s),
        url=school_url(base_url, s.urn),
    )


_LIST_ITEMS = PerSchool(_list_item)


def list_item(hit: SearchHit, *, base_url: str, with_distance: bool) -> SchoolListItem:
    item = _LIST_ITEMS(hit.school, base_url)
    if with_distance and hit.distance_miles is not None:
        return replace(item, distance_miles=shown_distance(hit.distance_miles))
    return item


_DISTANCE = b',"distance_miles":'
_ITEM_CUTS = PerSchool(lambda s, base_url: cut_at_distance(_list_item(s, base_url), _DISTANCE))


def add_list_item(items: Members, hit: SearchHit, *, base_url: str, with_distance: bool) -> None:
    """`list_item` as JSON (`fragments`), from the school's item encoded once per version."""
    distance = hit.distance_miles
    shown = shown_distance(distance) if with_distance and distance is not None else None
    before, after = _ITEM_CUTS(hit.school, base_url)
    items.add(before, after, _DISTANCE, shown)
