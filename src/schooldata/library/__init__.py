"""schooldata as a Python library: open a database, search it, look a school up, find schools
near a postcode. Typed, synchronous, and the same rules as the public API and the CLI.

Quick start (the embedded demo dataset, built on first use)::

    from schooldata import open_database

    with open_database() as client:
        for hit in client.search("st mary", limit=3):
            print(hit.school.urn, hit.school.name)

The answers are the domain's own frozen objects (`School`, `SearchHit`) wrapped in
`SearchResults`; `call` answers any operation with the API's JSON and its `meta`. A list
answer becomes a pandas or polars DataFrame (or an Arrow table) in one call, with the CSV's
columns (the optional extras `schooldata[pandas]`, `[polars]`, `[parquet]`). Fields the service
never serves (personal data such as `head_name`, the independent inspectorate) are blank in
every object this module returns. docs/library.md has runnable examples.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from itertools import islice
from types import TracebackType
from typing import Any

import attrs

from schooldata.application.changes import ChangesPage
from schooldata.application.local import LOCAL_PLAN, call_locally
from schooldata.application.pipeline import LIBRARY
from schooldata.application.search_schools import PublicSearchAnswer
from schooldata.application.service import Application
from schooldata.domain.changes import ListedChange
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import (
    DataUnavailable,
    DomainError,
    InvalidParameter,
    InvalidUrn,
    MissingSearchInput,
    SchoolNotFound,
    SinceExpired,
    UnknownOperation,
    UnknownParameter,
    UnknownPostcode,
)
from schooldata.domain.licensing import SCHOOL_FIELDS, Licence
from schooldata.domain.plans import Plan
from schooldata.domain.school import School
from schooldata.domain.search import PUBLIC_DEFAULT_LIMIT, PUBLIC_MAX_LIMIT, SearchHit
from schooldata.entrypoints import local
from schooldata.entrypoints.answers import Rendered
from schooldata.entrypoints.exports import export_frame
from schooldata.library.answers import Answer, ChangeSet, Export, SearchResults

__all__ = [
    "Answer",
    "ChangeSet",
    "DataUnavailable",
    "DomainError",
    "Export",
    "InvalidParameter",
    "InvalidUrn",
    "MissingSearchInput",
    "Rendered",
    "School",
    "SchoolDataClient",
    "SchoolNotFound",
    "SearchHit",
    "SearchResults",
    "SinceExpired",
    "UnknownOperation",
    "UnknownParameter",
    "UnknownPostcode",
    "open_database",
]

_SCHOOL_ATTRIBUTES = frozenset(a.name for a in attrs.fields(School))
# Declared `never` in the licensing registry and present on the record: blanked on the way out.
WITHHELD_FIELDS: frozenset[str] = frozenset(
    f.name for f in SCHOOL_FIELDS if f.licence is Licence.NEVER and f.name in _SCHOOL_ATTRIBUTES
)


def _served(school: School) -> School:
    blank = {name: None for name in WITHHELD_FIELDS if getattr(school, name) is not None}
    return attrs.evolve(school, **blank) if blank else school  # type: ignore[arg-type]


def _served_hit(hit: SearchHit) -> SearchHit:
    return attrs.evolve(hit, school=_served(hit.school))


class SchoolDataClient:
    """Read-only access to one schooldata database.

    Build it with `open_database(url)` (or `from_application(app)` over an application you
    wired yourself, e.g. `bootstrap_memory()` in tests). Errors are the domain's:
    `InvalidParameter` (and its kinds `InvalidUrn`, `UnknownPostcode`, `MissingSearchInput`),
    `SchoolNotFound`, `DataUnavailable`; all are `DomainError`s with a `code` and a `message`.
    Safe to share between threads. Close it (or use `with`) to release database connections.
    """

    def __init__(
        self,
        app: Application,
        *,
        on_close: Callable[[], None] | None = None,
        base_url: str = "",
    ) -> None:
        self._app = app
        self._on_close = on_close
        self._base_url = base_url

    @classmethod
    def from_application(cls, app: Application, *, base_url: str = "") -> SchoolDataClient:
        """A client over an already-wired application; closing it does not close `app`.
        `base_url` starts the URLs answers carry (none: they start at the path)."""
        return cls(app, base_url=base_url)

    def call(
        self, operation: str, /, *, as_plan: str | None = None, all: bool = False, **arguments: Any
    ) -> Answer:
        """Any operation of the service by its OpenAPI `operationId` (`"getRankings"`,
        `"lookupSchools"`, ...; any case when that names one), with the API's parameter
        names, through the pipeline every face runs. The answer is the API's: `data`,
        `pagination` and `meta` as plain Python values. Local use gets every feature and
        pages of up to 10,000 rows; `as_plan="starter"` answers as that plan's API caller
        would get. `all=True` reads every page of a list (or every match of the public
        search) into one answer. A refusal raises its `DomainError` (`FeatureNotInPlan`,
        `InvalidParameter`, `UnknownParameter` naming the nearest names, ...)."""
        plan = self._plan(as_plan)
        if all:
            every = self._every(operation, plan, arguments)
            items = list(every.items)
            return Answer(
                operation=every.operation,
                data=items,
                pagination=None if every.operation == local.PUBLIC_SEARCH else _whole(items),
                meta=every.first.meta,
            )
        outcome = call_locally(self._app.pipeline, operation, arguments, plan=plan, face=LIBRARY)
        shown = local.rendered(self._app, outcome, base_url=self._base_url)
        return Answer(
            operation=outcome.operation.name,
            data=shown.data,
            pagination=shown.pagination,
            meta=shown.meta,
        )

    def iter_all(
        self, operation: str, /, *, as_plan: str | None = None, **arguments: Any
    ) -> Iterator[dict[str, Any]]:
        """Every item of a paged list (or of the public search), page after page, as they are
        read: a whole national list is never held at once. The first page is asked for at
        once, so a bad argument raises here, not on the first `next()`."""
        return self._every(operation, self._plan(as_plan), arguments).items

    def export(
        self, dataset: str, *, local_authority: str | None = None, phase: str | None = None
    ) -> Export:
        """A whole dataset in long, tidy form, as `schooldata export` writes it: `schools`
        (one row per open school), `results` (per school, key stage, period and measure, with
        its release status where known), `inspections`, `admissions`, `finance`; only one
        local authority's schools (a name or a code) and/or one phase's. Bad arguments raise
        `InvalidParameter` here; the rows are read when the export is used."""
        request = self._app.exports.prepare(dataset, local_authority=local_authority, phase=phase)
        filters = {"local_authority": local_authority, "phase": phase}
        frame = export_frame(self._app, request, base_url=self._base_url, filters=filters)
        return Export(frame)

    def _every(self, operation: str, plan: Plan, arguments: dict[str, Any]) -> local.Every:
        return local.every_item(
            self._app, operation, arguments, plan=plan, face=LIBRARY, base_url=self._base_url
        )

    def _plan(self, as_plan: str | None) -> Plan:
        return LOCAL_PLAN if as_plan is None else self._app.plans.get(as_plan)

    def search(
        self,
        query: str | None = None,
        *,
        postcode: str | None = None,
        phase: str | None = None,
        radius_miles: float | None = None,
        limit: int = PUBLIC_DEFAULT_LIMIT,
        all: bool = False,
    ) -> SearchResults:
        """Open schools by name, local authority or type (`query`), and/or nearest `postcode`.

        The public search's rules: at least one of `query` or `postcode`, each at least two
        characters; `postcode` a full postcode or an outward code (`"SW1A"`); `phase` one of
        `primary`, `secondary`, `nursery`, `sixth form`, `all-through`; `radius_miles`
        0.1-100 (needs a postcode). `limit` 1-25 as the public API, and locally any number
        above (the same question read on, in the same order); `all=True`: every match."""
        given = {"query": query, "postcode": postcode, "phase": phase, "radius_miles": radius_miles}
        arguments: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        beyond = isinstance(limit, int) and not isinstance(limit, bool) and limit > PUBLIC_MAX_LIMIT
        asked = PUBLIC_MAX_LIMIT if beyond else limit
        answer: PublicSearchAnswer = self._result("searchSchools", limit=asked, **arguments)
        hits = answer.page.hits
        if all or beyond:
            every = self._app.search_schools.every(answer.request)
            hits = tuple(every if all else islice(every, limit))
        return SearchResults(
            total=answer.page.total,
            limit=answer.page.total if all else limit if beyond else answer.limit,
            hits=tuple(_served_hit(hit) for hit in hits),
            base_url=self._base_url,
            with_distance=answer.with_distance,
        )

    def nearby(
        self,
        postcode: str,
        *,
        radius_miles: float | None = None,
        limit: int = PUBLIC_DEFAULT_LIMIT,
        all: bool = False,
    ) -> SearchResults:
        """Open schools nearest `postcode`, nearest first, each with `distance_miles`."""
        return self.search(postcode=postcode, radius_miles=radius_miles, limit=limit, all=all)

    def get_school(self, urn: str | int) -> School:
        """One open school by its six-digit URN (`"100000"` or `100000`).

        Raises `InvalidUrn` for anything but six digits, `SchoolNotFound` for a URN that is
        unknown or not open."""
        school: School = self._result("getSchool", urn=urn)
        return _served(school)

    def data_version(self) -> str | None:
        """The data version answers are served from now (every commercial answer's
        `meta.data_version`): note it with a copy, to ask `changes(since=...)` later. None
        until an import has made one."""
        current = self._app.ports.datasets.data_version()
        return None if current is None else current.id

    def changes(
        self,
        since: str,
        *,
        kind: str | None = None,
        local_authority: str | None = None,
        phase: str | None = None,
    ) -> ChangeSet:
        """What changed since the data version `since` (a `meta.data_version`, or the `until`
        of the last ChangeSet), every page of it, up to the version current now.

        The API's rules (`GET /api/v1/changes`): `kind` one of opened, closed, updated,
        inspection_added, results_added, linked; `local_authority` a name or DfE code;
        `phase` an API phase. Raises `InvalidParameter` for a malformed or unknown version,
        `SinceExpired` (its `oldest`: the version to read afresh from) for one older than the
        changes kept."""
        given = {"since": since, "kind": kind, "local_authority": local_authority, "phase": phase}
        arguments: dict[str, object] = {k: v for k, v in given.items() if v is not None}
        found: list[ListedChange] = []
        page, per_page = 1, LOCAL_PLAN.per_page_max
        while True:
            answer: ChangesPage = call_locally(
                self._app.pipeline,
                "listChanges",
                {**arguments, "page": page, "per_page": per_page},
                plan=LOCAL_PLAN,
                face=LIBRARY,
            ).result
            arguments["until"] = answer.until.id  # every page lists the same changes
            found += answer.items
            if page * per_page >= answer.total:
                return ChangeSet(since=answer.since.id, until=answer.until.id, changes=tuple(found))
            page += 1

    def _result(self, operation: str, **arguments: object) -> Any:
        """The domain's answer to a public operation, through the pipeline."""
        return call_locally(self._app.pipeline, operation, arguments, face=LIBRARY).result

    def sources(self) -> list[DatasetRecord]:
        """The imported datasets behind the answers: publisher, licence, attribution, dates.
        Open Government Licence data must be attributed wherever you publish it."""
        return list(self._app.ports.datasets.current())

    def close(self) -> None:
        if self._on_close is not None:
            on_close, self._on_close = self._on_close, None
            on_close()

    def __enter__(self) -> SchoolDataClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def open_database(
    url: str | None = None, *, create: bool = False, base_url: str | None = None
) -> SchoolDataClient:
    """Open a schooldata database for reading.

    - `url=None`: the configured database (`SCHOOLDATA_DATABASE_URL`, `schooldata.toml`), and
      by default the embedded demo, built under `SCHOOLDATA_HOME` on first use.
    - `url="sqlite:///path/to/schooldata.sqlite3"` or
      `url="postgresql+psycopg://user@host/db"`: that database, which `schooldata import`
      filled. Its schema is brought up to date on open (as the server does). A database that
      does not exist is refused (`DataUnavailable`, naming it), and nothing is created,
      unless `create=True` (an empty database, to import into).
    - `base_url`: where the URLs in answers point (default: the configured
      `SCHOOLDATA_BASE_URL`, else the local server's address, as `schooldata serve` would
      answer).

    The library never reads or creates API keys, so no key secret is needed; one configured
    in the environment is used as it is.
    """
    from schooldata.bootstrap import bootstrap
    from schooldata.settings import load_settings, with_overrides

    settings = load_settings(database_url=url, base_url=base_url)
    if settings.key_secret is None and not settings.uses_embedded_demo:
        # bootstrap insists on a stable secret for a real database because stored key hashes
        # depend on it; a reader that never touches keys can use a throwaway one.
        settings = with_overrides(settings, key_secret=secrets.token_urlsafe(48))
    app = bootstrap(settings, create_database=create)
    return SchoolDataClient(app, on_close=_closer(app), base_url=settings.served_url)


def _whole(items: list[Any]) -> dict[str, Any]:
    """The pagination of a list read whole: one page holding every item."""
    return {
        "page": 1,
        "per_page": max(len(items), 1),
        "total": len(items),
        "total_pages": 1 if items else 0,
        "next": None,
        "prev": None,
    }


def _closer(app: Application) -> Callable[[], None] | None:
    close = getattr(app.ports.store, "close", None)
    return close if callable(close) else None
