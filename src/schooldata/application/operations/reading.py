"""How each operation reads its raw arguments into the typed request its use case takes.

Each `prepare_*` checks every parameter rule, cross-parameter ones included, and looks nothing
up: whatever it raises is the caller's mistake, and a face that meters only calls whose
arguments validated (MCP) relies on it. It reads each value when its rules reach it, so a call
with several mistakes is refused for the same first one on every face. The use cases answer
the typed requests and never see raw arguments.
"""

from __future__ import annotations

from schooldata.application.changes import ChangesRequest
from schooldata.application.commercial import AuthorityQuery, ListRequest, PostcodeOrigin
from schooldata.application.lineage import HistoryRequest
from schooldata.application.lookup import LOOKUP_MINIMUM
from schooldata.application.operations.arguments import Arguments
from schooldata.application.operations.param import PlanBound
from schooldata.application.operations.params import INCLUDE_PREDECESSORS
from schooldata.application.paging import PageRequest
from schooldata.application.school_data import COMPARE_MINIMUM, RANKING_METRICS, RankingRequest
from schooldata.application.search_schools import (
    PreparedSearch,
    PublicSearchRequest,
    SearchSchools,
)
from schooldata.domain.changes import ChangeFilter
from schooldata.domain.errors import InvalidParameter, LimitExceedsPlan, MissingUrn
from schooldata.domain.geo import Location
from schooldata.domain.phase import parse_phase
from schooldata.domain.postcode import parse_postcode
from schooldata.domain.search import SortOrder, TextQuery
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn
from schooldata.domain.versions import parse_version


def prepare_nothing(_args: Arguments) -> None:
    """An operation without parameters."""
    return None


def prepare_page(args: Arguments) -> PageRequest:
    return PageRequest(page=args.page(), per_page=args.per_page())


def prepare_public_search(args: Arguments) -> PreparedSearch:
    return SearchSchools.prepare(PublicSearchRequest.from_params(args.raw))


def prepare_urn(args: Arguments) -> Urn:
    if "urn" not in args:
        raise MissingUrn()
    return Urn.parse(args.given("urn"))


def prepare_history(args: Arguments) -> HistoryRequest:
    return HistoryRequest(
        urn=prepare_urn(args), include_predecessors=args.flag(INCLUDE_PREDECESSORS.name)
    )


def prepare_lookup(args: Arguments) -> tuple[Urn, ...]:
    """The URNs to look up, in the order asked."""
    raw_urns = _urn_list(args)
    maximum = args.plan_limit(PlanBound.LOOKUP)
    if len(raw_urns) > maximum:
        raise LimitExceedsPlan("urns", maximum, args.bounded_plan().name)
    if len(raw_urns) < LOOKUP_MINIMUM:
        raise InvalidParameter("urns", "A lookup needs at least 1 URN.")
    return _distinct_urns(raw_urns)


def prepare_compare(args: Arguments) -> tuple[Urn, ...]:
    """The URNs to compare, in the order asked; every rule but "is it open" checked."""
    plan = args.bounded_plan()
    raw_urns = _urn_list(args)
    if len(raw_urns) > plan.compare_max:
        raise LimitExceedsPlan("urns", plan.compare_max, plan.name)
    if len(raw_urns) < COMPARE_MINIMUM:
        raise InvalidParameter("urns", "Compare needs at least 2 URNs.")
    return _distinct_urns(raw_urns)


def _urn_list(args: Arguments) -> list[object]:
    raw_urns = args.given("urns")
    if raw_urns is None:
        raise InvalidParameter("urns", "urns is required.")
    if not isinstance(raw_urns, list):
        raise InvalidParameter("urns", "urns must be an array of six-digit URNs.")
    return raw_urns


def _distinct_urns(raw_urns: list[object]) -> tuple[Urn, ...]:
    urns = tuple(Urn.parse(u, parameter="urns") for u in raw_urns)
    if len(set(urns)) != len(urns):
        raise InvalidParameter("urns", "Each URN may appear only once.")
    return urns


def prepare_rankings(args: Arguments) -> RankingRequest:
    metric = args.choice("metric")
    if metric is None:
        raise InvalidParameter(
            "metric", f"metric is required: one of {', '.join(RANKING_METRICS)}."
        )
    raw_phase = args.text("phase")
    if raw_phase is None:
        raise InvalidParameter("phase", "phase is required.")
    phase = parse_phase(raw_phase)
    local_authority = args.text("local_authority")
    order = args.choice("order") or "desc"
    page = args.page()
    per_page = args.per_page()
    return RankingRequest(
        metric=metric,
        phase=phase,
        local_authority=normalise(local_authority) if local_authority else None,
        descending=order == "desc",
        page=page,
        per_page=per_page,
    )


def prepare_changes(args: Arguments) -> ChangesRequest:
    if "since" not in args:
        raise InvalidParameter(
            "since", "since (a data version, as meta.data_version gives it) is required."
        )
    since = parse_version(args.given("since"), parameter="since")
    until = None if "until" not in args else parse_version(args.given("until"), parameter="until")
    if until is not None and until.sequence < since.sequence:
        raise InvalidParameter("until", "until must not be a version before since.")
    phase = args.text("phase")
    local_authority = args.text("local_authority")
    return ChangesRequest(
        since=since,
        until=until,
        wanted=ChangeFilter.of(
            kind=args.choice("kind"),
            local_authority=local_authority,
            phase=None if phase is None else parse_phase(phase),
        ),
        page=args.page(),
        per_page=args.per_page(),
    )


def prepare_list(args: Arguments) -> ListRequest:
    """`/schools`: any filter, any origin, or none."""
    return _list_request(args)


def prepare_search(args: Arguments) -> ListRequest:
    if "q" not in args:
        raise InvalidParameter("q", "q (at least 2 characters) is required for search.")
    return _list_request(args)


def prepare_nearby(args: Arguments) -> ListRequest:
    if "postcode" not in args and "latitude" not in args:
        raise InvalidParameter("postcode", "nearby needs a postcode, or latitude and longitude.")
    return _list_request(args)


def prepare_authorities(args: Arguments) -> AuthorityQuery:
    text = args.text("q")
    return AuthorityQuery(text=text, page=prepare_page(args))


def _list_request(args: Arguments) -> ListRequest:
    query_text = args.text("q")
    # Parsed as sent (its two-character minimum counts the text as sent, as the public
    # query's does); normalising drops the spaces.
    text = TextQuery.parse(str(args.given("q"))) if query_text is not None else None
    origin, radius = _origin(args)
    phase = args.text("phase")
    sort_name = args.choice("sort")
    sort = SortOrder(sort_name) if sort_name is not None else None
    if sort is SortOrder.DISTANCE and origin is None:
        raise InvalidParameter("sort", "sort=distance needs a postcode or latitude/longitude.")
    if sort is SortOrder.RELEVANCE and text is None:
        raise InvalidParameter("sort", "sort=relevance needs q.")
    page = args.page()
    per_page = args.per_page()
    local_authority = args.text("local_authority")
    type_name = args.text("type")
    return ListRequest(
        text=text,
        origin=origin,
        radius_miles=radius,
        phases=frozenset({parse_phase(phase)}) if phase is not None else frozenset(),
        local_authority=normalise(local_authority) if local_authority is not None else None,
        type_name=normalise(type_name) if type_name is not None else None,
        gender=args.choice("gender"),
        ofsted_rating=args.integer("ofsted_rating"),
        min_score=args.number("min_score"),
        sort=sort,
        page=page,
        per_page=per_page,
    )


def _origin(args: Arguments) -> tuple[Location | PostcodeOrigin | None, float | None]:
    postcode = args.text("postcode")
    latitude = args.number("latitude")
    longitude = args.number("longitude")
    radius = args.number("radius_miles")
    if (latitude is None) != (longitude is None):
        raise InvalidParameter("latitude", "latitude and longitude go together.")
    if postcode is not None and latitude is not None:
        raise InvalidParameter("postcode", "Give a postcode or latitude/longitude, not both.")
    if postcode is not None:
        return PostcodeOrigin(raw=postcode, parsed=parse_postcode(postcode)), radius
    if latitude is not None and longitude is not None:
        return Location(latitude, longitude), radius
    if radius is not None:
        raise InvalidParameter(
            "radius_miles", "radius_miles needs a postcode or latitude/longitude."
        )
    return None, None
