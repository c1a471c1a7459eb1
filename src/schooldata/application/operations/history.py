"""What changed since a data version (the sync of a client that keeps a copy)."""

from __future__ import annotations

from schooldata.application import changes
from schooldata.application.operations.declaration import Operation, Port
from schooldata.application.operations.param import Kind, Param
from schooldata.application.operations.params import LOCAL_AUTHORITY, PAGING, PHASE
from schooldata.application.operations.reading import prepare_changes
from schooldata.application.operations.uses import UseCases
from schooldata.domain.changes import CHANGE_KINDS
from schooldata.domain.errors import SinceExpired
from schooldata.domain.plans import Feature


def _changes(uses: UseCases, request: changes.ChangesRequest) -> changes.ChangesPage:
    return uses.changes.execute(request)


CHANGES: Operation[changes.ChangesRequest, changes.ChangesPage] = Operation(
    name="listChanges",
    summary="What changed since a data version, school by school",
    method="GET",
    path="/api/v1/changes",
    feature=Feature.CHANGES,
    params=(
        Param(
            name="since",
            kind=Kind.VERSION,
            description=(
                "The data version your copy is of: `meta.data_version` of the answers you "
                "read it from, or `meta.until` of your last sync's pages."
            ),
            required=True,
        ),
        Param(
            name="until",
            kind=Kind.VERSION,
            description=(
                "The version the pages list changes up to: the current one when left out. "
                "Page links carry it, so every page of one sync lists the same changes."
            ),
        ),
        Param(
            name="kind",
            kind=Kind.CHOICE,
            description="Only changes of this kind: " + ", ".join(CHANGE_KINDS) + ".",
            choices=CHANGE_KINDS,
        ),
        LOCAL_AUTHORITY,
        PHASE,
        *PAGING,
    ),
    prepare=prepare_changes,
    run=_changes,
    reads=frozenset({Port.CHANGES}),
    paged=True,
    # Read from the shared store as it stands (every instance alike); the retention window
    # moves with the clock.
    reusable=False,
    refuses=(SinceExpired,),
    rules=(
        "- Every change of the data versions after `since` up to `until` (default: the "
        "current version), in version order, then URN order: `opened`, `closed`, `updated` "
        "(with the `fields` that changed, as the profile names them), `inspection_added`, "
        "`results_added` (with `key_stage` and `year`; a revised year too), `linked` (with "
        "`linked_urn` and `link_type`).\n"
        "- `since` = the current version: an empty page. Malformed or unknown: 400. Older "
        "than the changes kept (the retention, 400 days by default): 410 `since_expired` "
        "with `details.oldest`, the oldest version to read afresh from.\n"
        "- `meta.until` is the version the pages go up to: the next sync's `since`.\n"
        "- Filters match the school as the register last listed it (a closed school where "
        "it was)."
    ),
)

HISTORY_OPERATIONS = (CHANGES,)
