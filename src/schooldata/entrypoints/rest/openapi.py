"""The OpenAPI 3.1 document REST serves at /api/v1/openapi.json.

It is generated (`entrypoints.schemas.document`) from the operation declarations and the
output Structs that encode every answer, so it cannot drift from what the app does; the test
suite checks the running app against it with schemathesis, and it against the contract's
snapshot (tests/contract/test_schema_equivalence.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schooldata.domain.plans import DEFAULT_PLANS, Plan
from schooldata.entrypoints.schemas import document


def build_document(
    *, server_url: str | None = None, plans: Sequence[Plan] = DEFAULT_PLANS
) -> dict[str, Any]:
    """The document; pass the served plans (`app.plans.all()`) so `per_page` and compare
    bounds are theirs."""
    return document.build(plans=plans, server_url=server_url)
