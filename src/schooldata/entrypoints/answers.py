"""An outcome of the pipeline as JSON, the same for every face: the public shapes whole, or the
commercial envelope (`data`, and `meta` with request id, dataset time, pagination, sources).

`OUTPUTS` says, for each operation of the registry, which declared Struct its answer is (the
public body, or the envelope of its `data`) and how its result fills it: the same Structs
encode the answer and give the OpenAPI document and the MCP tools their output schemas. A
list answer also says which rows and columns it is as a table (`Table`): what REST sends for
`Accept: text/csv`, in the CLI's columns (`entrypoints.tables`).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import msgspec
from attrs import frozen
from msgspec import Struct

from schooldata.application.lookup import Lookup
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import Outcome
from schooldata.entrypoints import tables
from schooldata.entrypoints.wire import (
    changes,
    commercial,
    comparisons,
    datasets,
    envelope,
    public,
)
from schooldata.entrypoints.wire.envelope import ListMeta, LookupMeta, Meta, Pagination
from schooldata.entrypoints.wire.fragments import Members, encode
from schooldata.entrypoints.wire.list_items import add_list_item, list_item
from schooldata.entrypoints.wire.meta import (
    AttributionOf,
    EncodedAttributionOf,
    joined,
    linked,
    pagination,
)
from schooldata.entrypoints.wire.records import SchoolProfile, SchoolRecord

Json = dict[str, Any]
Render = Callable[[Any, str], "Shown"]
# (result, base URL, synthetic) -> the public body's JSON, byte for byte `render`'s encoded.
Encode = Callable[[Any, str, bool], bytes]
PageUrl = Callable[[int], str]


@frozen(kw_only=True)
class Shown:
    """A result as Structs: `data`, and for lists its pagination and any other members of
    `meta` (how a ranking ranked, what a lookup did not find). `pins`: arguments every other
    page of this list must repeat to list the same items (the changes' `until`), which a
    face paging by URL adds to its page links where the request did not give them."""

    data: Any
    pagination: Pagination | None = None
    meta: dict[str, Any] | None = None
    pins: dict[str, str] | None = None


@frozen
class Table:
    """A list answer as a table: its rows (from its `data`) and their stated columns (None:
    every flattened key of every row, in the order first seen)."""

    columns: tuple[str, ...] | None
    rows: Callable[[Any], Any] = lambda data: data


@frozen
class Output:
    """One operation's answer: the Struct of its body, and how its result fills it. `meta`
    is None for a public shape (the body is `data` itself), else the envelope's meta.
    `table` None: the answer is one document, never a table (it stays JSON). `labelled`: how
    a shape that can say so renders a result of synthetic data. `encode`: a public body's
    JSON from fragments encoded once per data version, where a face sends bytes (REST);
    `members`: as `render`, its `data` list as such fragments (`wire.fragments.Members`)."""

    body: Any
    render: Render
    meta: type[Struct] | None = None
    table: Table | None = None
    labelled: Render | None = None
    encode: Encode | None = None
    members: Render | None = None

    def render_of(self, outcome: Outcome, base_url: str, *, as_json: bool = False) -> Shown:
        if as_json and self.members is not None:
            return self.members(outcome.result, base_url)
        render = self.labelled if outcome.synthetic and self.labelled is not None else self.render
        return render(outcome.result, base_url)


def _keyed(
    name: str, data: Any, meta: type[Struct], render: Render, table: Table | None = None
) -> Output:
    return Output(envelope.envelope_of(name, data, meta), render, meta, table)


def _document(build: Callable[[Any], Any]) -> Render:
    return lambda result, _base_url: Shown(data=build(result))


def _page(build: Callable[[Any], Any]) -> Render:
    def shown(page: Any, _base_url: str) -> Shown:
        return Shown(
            data=[build(item) for item in page.items],
            pagination=pagination(page.page, page.per_page, page.total),
        )

    return shown


def _schools(answer: Any, base_url: str) -> Shown:
    with_distance = answer.with_distance
    return Shown(
        data=[
            list_item(hit, base_url=base_url, with_distance=with_distance)
            for hit in answer.result.hits
        ],
        pagination=pagination(answer.page, answer.per_page, answer.result.total),
    )


def _schools_json(answer: Any, base_url: str) -> Shown:
    items = Members()
    with_distance = answer.with_distance
    for hit in answer.result.hits:
        add_list_item(items, hit, base_url=base_url, with_distance=with_distance)
    return Shown(
        data=items, pagination=pagination(answer.page, answer.per_page, answer.result.total)
    )


def _rankings(ranking: Any, _base_url: str) -> Shown:
    return Shown(
        data=comparisons.ranked_schools(ranking),
        pagination=pagination(ranking.page, ranking.per_page, ranking.total),
        meta={"ranking": comparisons.ranking_summary(ranking)},
    )


def _lookup(answer: Lookup, base_url: str) -> Shown:
    """Every profile found, as one page of as many items as were asked for."""
    return Shown(
        data=[commercial.profile(profile, base_url=base_url) for profile in answer.profiles],
        pagination=pagination(1, answer.asked, len(answer.profiles)),
        meta={"not_found": [str(urn) for urn in answer.not_found]},
    )


def _changes(page: Any, _base_url: str) -> Shown:
    """The changes after `since` up to `until`; later pages are pinned to `until`."""
    return Shown(
        data=changes.changes(page),
        pagination=pagination(page.page, page.per_page, page.total),
        meta={"since": page.since.id, "until": page.until.id},
        pins={"until": page.until.id},
    )


def _search(answer: Any, base_url: str) -> Shown:
    return Shown(data=public.search_response(answer, base_url=base_url))


def _record(school: Any, base_url: str) -> Shown:
    return Shown(data=public.school_record(school, base_url=base_url))


def _synthetic_record(school: Any, base_url: str) -> Shown:
    return Shown(data=public.school_record(school, base_url=base_url, synthetic=True))


def _search_json(answer: Any, base_url: str, _synthetic: bool) -> bytes:
    return public.search_response_json(answer, base_url=base_url)


def _profile(answer: Any, base_url: str) -> Shown:
    return Shown(data=commercial.profile(answer, base_url=base_url))


SCHOOL_PAGE = envelope.envelope_of("SchoolPage", list[commercial.SchoolListItem], ListMeta)
SCHOOL_TABLE = Table(tables.SCHOOLS_COLUMNS)
SCHOOLS = Output(SCHOOL_PAGE, _schools, ListMeta, SCHOOL_TABLE, members=_schools_json)
# The profile is a Struct built at start from the licensing registry: a value to mypy.
PROFILES = list[SchoolProfile]  # type: ignore[valid-type]

OUTPUTS: dict[str, Output] = {
    "searchSchools": Output(
        public.SearchResponse,
        _search,
        table=Table(tables.SEARCH_COLUMNS, lambda response: response.results),
        encode=_search_json,
    ),
    "getSchool": Output(SchoolRecord, _record, labelled=_synthetic_record),
    "getSchoolLegacy": Output(SchoolRecord, _record, labelled=_synthetic_record),
    "getMeta": _keyed(
        "ServiceAnswer", commercial.ServiceDocument, Meta, _document(commercial.meta_document)
    ),
    "getDataFreshness": _keyed(
        "FreshnessPage",
        list[commercial.FreshnessItem],
        ListMeta,
        _page(commercial.freshness_item),
        Table(tables.FRESHNESS_COLUMNS),
    ),
    "listSchools": SCHOOLS,
    "searchSchoolsCommercial": SCHOOLS,
    "nearbySchools": SCHOOLS,
    "listLocalAuthorities": _keyed(
        "AuthorityPage",
        list[commercial.Authority],
        ListMeta,
        _page(commercial.authority),
        Table(tables.AUTHORITIES_COLUMNS),
    ),
    "getSchoolProfile": _keyed("SchoolProfileAnswer", SchoolProfile, Meta, _profile),
    "lookupSchools": _keyed("SchoolLookupPage", PROFILES, LookupMeta, _lookup, Table(None)),
    "getSchoolInspections": _keyed(
        "InspectionHistoryAnswer",
        datasets.InspectionHistoryDocument,
        Meta,
        _document(datasets.inspection_history),
    ),
    "getSchoolResults": _keyed(
        "SchoolResultsAnswer", datasets.ResultsDocument, Meta, _document(datasets.school_topics)
    ),
    "getSchoolAdmissions": _keyed(
        "SchoolAdmissionsAnswer",
        datasets.AdmissionsDocument,
        Meta,
        _document(datasets.school_topics),
    ),
    "getSchoolFinance": _keyed(
        "SchoolFinanceAnswer", datasets.FinanceDocument, Meta, _document(datasets.school_topics)
    ),
    "compareSchools": _keyed(
        "ComparisonAnswer", comparisons.ComparisonDocument, Meta, _document(comparisons.comparison)
    ),
    "getRankings": _keyed(
        "RankingPage",
        list[comparisons.RankedSchool],
        comparisons.RankingMeta,
        _rankings,
        Table(tables.RANKINGS_COLUMNS),
    ),
    "listChanges": _keyed(
        "ChangesPage",
        list[changes.Change],
        changes.ChangesMeta,
        _changes,
        Table(tables.CHANGES_COLUMNS),
    ),
}


def _every_operation_has_an_output() -> None:
    """An operation the registry declares but no row here renders fails at start, named."""
    missing = {op.name for op in REGISTRY.operations} - set(OUTPUTS)
    if missing:
        raise RuntimeError(f"no output declared in entrypoints/answers.py for {sorted(missing)}")


_every_operation_has_an_output()


_ATTRIBUTION = AttributionOf()
_ENCODED_ATTRIBUTION = EncodedAttributionOf()


def shown(outcome: Outcome, *, base_url: str, as_json: bool = False) -> Shown:
    """The result as Structs; `as_json`: a list's `data` may be JSON fragments instead, for
    `encode_shown` alone."""
    return OUTPUTS[outcome.operation.name].render_of(outcome, base_url, as_json=as_json)


def public_json(outcome: Outcome, *, base_url: str) -> bytes | None:
    """A public answer's JSON from its fragments (None: its output has none, or it is keyed):
    the same bytes `encoded` gives, made without the Structs."""
    output = OUTPUTS[outcome.operation.name]
    if output.encode is None or outcome.keyed:
        return None
    return output.encode(outcome.result, base_url, outcome.synthetic)


def shape(
    outcome: Outcome, *, base_url: str, request_id: str, page_url: PageUrl | None = None
) -> Any:
    """The whole answer as its declared Struct: a public shape, or the commercial envelope.
    `page_url(n)` is the address of page n of this list, for faces that page by URL (REST);
    without it `meta.pagination.next`/`prev` are null."""
    return shaped(
        outcome,
        shown(outcome, base_url=base_url),
        request_id=request_id,
        page_url=page_url,
    )


def shaped(
    outcome: Outcome, result: Shown, *, request_id: str, page_url: PageUrl | None = None
) -> Any:
    """`shape` of a result already shown (a face that reads its pagination first)."""
    output = OUTPUTS[outcome.operation.name]
    if output.meta is None or not outcome.keyed:
        return result.data
    meta = _meta(output.meta, outcome, result, request_id, page_url)
    return output.body(data=result.data, meta=meta)


def _meta(
    meta: type[Struct], outcome: Outcome, result: Shown, request_id: str, page_url: PageUrl | None
) -> Struct:
    sources, updated = _ATTRIBUTION(outcome.sources)
    members = _meta_members(result, request_id, page_url)
    return meta(**members, data_updated_at=updated, sources=sources, data_version=_version(outcome))


def _version(outcome: Outcome) -> str | None:
    version = outcome.version
    return None if version is None else version.id


def _meta_members(result: Shown, request_id: str, page_url: PageUrl | None) -> dict[str, Any]:
    """A keyed answer's `meta` but its sources and their time (the same for a whole version)."""
    members: dict[str, Any] = {"request_id": request_id}
    if result.pagination is not None:
        paging = result.pagination
        members["pagination"] = paging if page_url is None else linked(paging, page_url)
    if result.meta:
        members.update(result.meta)
    return members


def encode_shown(
    outcome: Outcome, result: Shown, *, request_id: str, page_url: PageUrl | None = None
) -> bytes:
    """`shaped` as JSON bytes. An envelope (`envelope_of`: `data`, then `meta`) is joined from
    its members encoded (`wire.meta.joined`; the sources once per data version), a `data` of
    fragments (`Members`) included as they are."""
    output = OUTPUTS[outcome.operation.name]
    data = result.data
    if output.meta is None or not outcome.keyed:
        return data.array() if isinstance(data, Members) else encode(data)
    sources, updated = _ENCODED_ATTRIBUTION(outcome.sources)
    members = {k: encode(v) for k, v in _meta_members(result, request_id, page_url).items()}
    members["data_updated_at"] = updated
    members["sources"] = sources
    members["data_version"] = encode(_version(outcome))
    meta = joined(output.meta, members)
    if isinstance(data, Members):
        return b"".join((b'{"data":[', *data.parts, b'],"meta":', meta, b"}"))
    return b"".join((b'{"data":', encode(data), b',"meta":', meta, b"}"))


def body(outcome: Outcome, *, base_url: str, request_id: str) -> Json:
    """The whole answer as plain JSON values (MCP's structuredContent, the CLI)."""
    return msgspec.to_builtins(shape(outcome, base_url=base_url, request_id=request_id))  # type: ignore[no-any-return]


def encoded(
    outcome: Outcome, *, base_url: str, request_id: str, page_url: PageUrl | None = None
) -> bytes:
    """The whole answer as JSON bytes, ready to send (REST): from fragments where the
    answer has them, the same bytes as its Structs encoded."""
    whole = public_json(outcome, base_url=base_url)
    if whole is not None:
        return whole
    result = shown(outcome, base_url=base_url, as_json=True)
    return encode_shown(outcome, result, request_id=request_id, page_url=page_url)


def table_of(operation: str) -> Table | None:
    """How the operation's answer is a table (None: it is one document, never a table)."""
    return OUTPUTS[operation].table


def csv_text(outcome: Outcome, result: Shown, *, line_end: str = "\r\n") -> str:
    """A list answer's rows as CSV (`entrypoints.tables`): a header, then one row per item
    of its `data`, in order. The envelope's meta is not part of it."""
    table = OUTPUTS[outcome.operation.name].table
    if table is None:  # pragma: no cover - callers ask only answers that are tables
        raise ValueError(f"{outcome.operation.name} is not a table")
    rows = msgspec.to_builtins(table.rows(result.data))
    stream = io.StringIO()
    tables.write_csv(stream, rows, table.columns, line_end=line_end)
    return stream.getvalue()


@frozen(kw_only=True)
class Rendered:
    """`data`, its pagination and any extra members of `meta`, as plain JSON values: what a
    face that lays answers out itself (the CLI, the BDD driver) reads."""

    data: Any
    pagination: dict[str, Any] | None = None
    meta: Json | None = None


def render(outcome: Outcome, *, base_url: str) -> Rendered:
    result = shown(outcome, base_url=base_url)
    return Rendered(
        data=msgspec.to_builtins(result.data),
        pagination=None if result.pagination is None else msgspec.to_builtins(result.pagination),
        meta=None if not result.meta else msgspec.to_builtins(result.meta),
    )
