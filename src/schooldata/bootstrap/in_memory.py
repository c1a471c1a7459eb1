"""The application on in-memory fakes, built as production builds it: tests, the BDD drivers
and the library's quick start call `bootstrap_memory`. Every driven port is a dict, so every
operation may answer on the event loop."""

from __future__ import annotations

from schooldata.adapters.memory.access import (
    InMemoryKeyStore,
    InMemoryQuotaCounter,
    InMemoryRateLimiter,
)
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.system import SecureIds, SystemClock
from schooldata.application.operations.declaration import Port
from schooldata.application.service import Application, Ports, build_application
from schooldata.domain.plans import PlanCatalogue
from schooldata.ports.clock import Clock, IdSource

TEST_SECRET = b"schooldata-test-secret-not-for-production-use"
EVERY_PORT = frozenset(Port)


def bootstrap_memory(
    *,
    store: InMemoryStore | None = None,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    plans: PlanCatalogue | None = None,
    secret: bytes = TEST_SECRET,
) -> Application:
    """Everything in memory: for tests, the BDD drivers and the library's quick start."""
    data = store or InMemoryStore()
    ports = Ports(
        schools=data,
        postcodes=data,
        datasets=data,
        links=data,
        measures=data,
        inspections=data,
        store=data,
        changes=data,
        keys=InMemoryKeyStore(),
        rate=InMemoryRateLimiter(),
        quota=InMemoryQuotaCounter(),
        clock=clock or SystemClock(),
        ids=ids or SecureIds(),
    )
    return build_application(
        ports=ports,
        plans=plans or PlanCatalogue(),
        key_secret=secret,
        nonblocking=lambda: EVERY_PORT,  # every port is a dict in memory
    )
