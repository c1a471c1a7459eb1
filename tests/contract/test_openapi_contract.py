"""The running app against its own OpenAPI document (schemathesis, in process).

Anonymous over the public operations; keyed over the commercial ones. Any 5xx, any status
the document does not list, any body or header that breaks its schema fails the test.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks
from tests.support.dataset import build_store

from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.plans import DEFAULT_PLANS, PlanCatalogue
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.rest.app import create_app

# A plan with the enterprise entitlements and no practical rate limit, so fuzzing exercises
# the operations rather than the limiter (the limiter has its own tests).
UNLIMITED = PlanCatalogue(
    tuple(
        plan
        if plan.name != "enterprise"
        else type(plan)(
            name="enterprise",
            per_page_max=100,
            compare_max=25,
            rate_per_second=10**9,
            monthly_quota=10**9,
            features=plan.features,
        )
        for plan in DEFAULT_PLANS
    )
)
APP = bootstrap_memory(store=build_store(), plans=UNLIMITED)
KEY = APP.keys.create_key(organisation="fuzz", name="schemathesis", plan="enterprise").key
# schemathesis's in-process client names the host `testserver`: allowed as a deployment
# would allow its own names (a request may only name a host the server answers to).
ASGI = create_app(
    APP,
    base_url="http://testserver.local",
    allowed_hosts=HostPolicy.configured(
        base_url="http://testserver.local", allowed_hosts=("testserver", "localhost")
    ),
)

schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", ASGI)

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
]
# CI runs a slice; `make fuzz` sets SCHOOLDATA_FUZZ_EXAMPLES for the long run.
EXAMPLES = int(os.environ.get("SCHOOLDATA_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@schema.include(tag="public").parametrize()
@FUZZ
def test_public_operations_conform_to_the_document(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)


@schema.include(tag="commercial").parametrize()
@FUZZ
def test_commercial_operations_conform_to_the_document_when_keyed(case: schemathesis.Case) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {KEY}"}, checks=CHECKS)


@schema.include(tag="commercial").parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_commercial_operations_refuse_anonymous_callers(case: schemathesis.Case) -> None:
    if case.method.upper() != case.operation.method.upper():
        return  # schemathesis also probes other methods: 405 (or 204 for CORS preflight)
    response = case.call()
    assert response.status_code in (400, 401), (case.method, case.path, response.text)


@schema.include(operation_id="getSchool").parametrize()
@FUZZ
def test_the_public_record_path_conforms_to_the_document_when_keyed(
    case: schemathesis.Case,
) -> None:
    """One path, two tiers: the document describes the keyed profile and errors too."""
    case.call_and_validate(headers={"Authorization": f"Bearer {KEY}"}, checks=CHECKS)
