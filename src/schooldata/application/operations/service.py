"""What the service says about itself: metadata and data freshness."""

from __future__ import annotations

from schooldata.application.about import Freshness, ServiceMeta
from schooldata.application.operations.declaration import Operation, Port
from schooldata.application.operations.params import PAGING
from schooldata.application.operations.reading import prepare_nothing, prepare_page
from schooldata.application.operations.uses import UseCases
from schooldata.application.paging import Page, PageRequest
from schooldata.domain.plans import Feature


def _meta(uses: UseCases, _request: None) -> ServiceMeta:
    return uses.about.meta()


def _freshness(uses: UseCases, request: PageRequest) -> Page[Freshness]:
    return uses.about.freshness_of(request)


META: Operation[None, ServiceMeta] = Operation(
    name="getMeta",
    summary="Version, source policy and API metadata",
    method="GET",
    path="/api/v1/meta",
    feature=Feature.META,
    params=(),
    prepare=prepare_nothing,
    run=_meta,
    reads=frozenset({Port.DATASETS}),
    rules="- The API and description versions, the plans, the source and null policies.",
)

FRESHNESS: Operation[PageRequest, Page[Freshness]] = Operation(
    name="getDataFreshness",
    summary="Periods, cadence and coverage of each dataset",
    method="GET",
    path="/api/v1/data-freshness",
    feature=Feature.DATA_FRESHNESS,
    params=PAGING,
    prepare=prepare_page,
    run=_freshness,
    reads=frozenset({Port.DATASETS}),
    paged=True,
    # A refresh that finds a file unchanged moves its check time, not the data version.
    reusable=False,
    rules="- Each dataset's publisher, period, cadence, coverage, extract date and import time,"
    " and when `schooldata refresh` last checked and changed it.",
)

SERVICE_OPERATIONS = (META, FRESHNESS)
