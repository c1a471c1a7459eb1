"""The drivers: one per face, all with the same methods, so a scenario is written once.

A driver turns a domain question ("search for st mary", "the results of school 100002") into
its face's request, and the face's reply back into an `Answer`:

- `body` is the JSON every face must agree on: the public `SearchResponse`/`SchoolRecord`
  whole, or the commercial envelope's `data`.
- a refusal carries the contract's error `code` (`invalid_urn`, `feature_not_in_plan`, ...),
  its `message`, `details` and, when limited, `retry_after` in seconds.

Each driver also checks its own face's translation of that code (the HTTP status on REST,
`isError` results or HTTP 401 on MCP, the exit code on the CLI), so the feature files can
speak about the domain and still prove the transport. Every answer of the REST, MCP and CLI
faces is cross-checked against the domain library's answer to the same question (see
`Driver._agree`): a rule implemented in one face and not the others fails there.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from attrs import evolve, field, frozen

from features.drivers.world import World

if TYPE_CHECKING:
    from features.drivers.stage import Stage

Params = Mapping[str, str]

# Codes a face produces before or beside the use cases (keys, meters, the transport, a failing
# dependency's documented status): not compared with the domain library's answer.
FACE_CODES = frozenset(
    {
        "missing_api_key",
        "invalid_api_key",
        "api_key_revoked",
        "conflicting_credentials",
        "api_key_in_query",
        "rate_limit_exceeded",
        "quota_exceeded",
        "service_unavailable",
        "search_unavailable",
    }
)
DATASET_TOPICS = ("results", "admissions", "finance", "inspections")
# The page links of a pagination: URLs where a face pages by URL (REST), null elsewhere.
PAGE_LINKS = ("next", "prev")


def counts(pagination: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A pagination's counts, which every face agrees on (the page links are the face's)."""
    if pagination is None:
        return None
    return {k: v for k, v in pagination.items() if k not in PAGE_LINKS}


def csv_rows(text: str) -> list[dict[str, str]]:
    """CSV text as the rows a spreadsheet reads from it: column name -> cell text."""
    return list(csv.DictReader(io.StringIO(text, newline="")))


def with_not_found(answer: Answer) -> Answer:
    """A lookup's answer as every face shows it: its data and the URNs not found."""
    if not answer.ok:
        return answer
    assert answer.meta is not None, f"{answer.face}: a lookup answered without its meta"
    return evolve(answer, body={"data": answer.body, "not_found": answer.meta["not_found"]})


@frozen(kw_only=True)
class Refusal:
    """A refusal at the HTTP transport, before any face read the request: its status, its
    error code (in the face's error shape), its request id, and everything it showed."""

    status: int
    code: str
    request_id: str
    shown: str  # the body and every header, as one text


class FaceCannot(Exception):
    """This face has no way to ask this question; the scenario is skipped on it."""


@frozen(kw_only=True)
class Credentials:
    """Who is asking. `plan` is what the CLI's `--as-plan` uses; the key faces send the keys."""

    plan: str | None = None
    organisation: str | None = None
    bearer: str | None = None
    x_api_key: str | None = None


@frozen(kw_only=True)
class Answer:
    face: str
    ok: bool
    body: Any = None
    pagination: dict[str, Any] | None = None
    # The commercial `meta`: whole on the HTTP faces, its members beside the request id,
    # sources and pagination on the domain face (a ranking's summary, a lookup's not_found).
    meta: dict[str, Any] | None = None
    code: str | None = None
    message: str = ""
    details: dict[str, Any] = field(factory=dict)
    retry_after: int | None = None
    status: int | None = None  # the face's own signal: HTTP status or exit code
    headers: dict[str, str] = field(factory=dict)  # HTTP faces only, names lower-cased

    def describe(self) -> str:
        if self.ok:
            return f"{self.face}: answered ({self.status})"
        return f"{self.face}: refused {self.code!r} ({self.status}): {self.message}"


class Driver:
    """The operations every face offers. Subclasses implement the `_name` methods."""

    face: ClassVar[str]
    capabilities: ClassVar[frozenset[str]]

    def __init__(
        self, world: World, *, stage: Stage | None = None, home: Path | None = None
    ) -> None:
        """`stage` holds the served HTTP apps (REST, MCP); `home` is a scratch folder (CLI)."""
        self.world = world
        self.credentials: Credentials | None = None
        self._reference: Driver | None = None
        self._stage = stage
        self._home = home

    # ------------------------------------------------------------------ public tier

    def search(self, params: Params, *, keyed: bool = False) -> Answer:
        """Public search; anonymous unless `keyed` (then the current credentials are sent)."""
        return self._checked("search", params, keyed=keyed)

    def school(self, urn: str) -> Answer:
        """The public record of one school, asked anonymously."""
        return self._checked("school", urn)

    # ------------------------------------------------------------------ commercial tier

    def profile(self, urn: str) -> Answer:
        return self._checked("profile", urn)

    def list_schools(self, params: Params) -> Answer:
        return self._checked("list_schools", params)

    def nearby(self, params: Params) -> Answer:
        return self._checked("nearby", params)

    def dataset(self, topic: str, urn: str, *, predecessors: bool = False) -> Answer:
        """A school's `topic`; with `predecessors`, its predecessors' too (results and
        inspections: `include_predecessors`)."""
        if topic not in DATASET_TOPICS:
            raise ValueError(f"no dataset topic {topic!r}")
        return self._checked("dataset", topic, urn, predecessors=predecessors)

    def compare(self, urns: Sequence[str | int]) -> Answer:
        """URNs as text, or as JSON numbers where the face carries JSON."""
        return self._checked("compare", list(urns))

    def lookup(self, urns: Sequence[str | int]) -> Answer:
        """The bulk lookup; its body is `{"data": [profiles], "not_found": [urns]}` on every
        face (the envelope's data and `meta.not_found`; the CLI's JSON as it prints it)."""
        return self._checked("lookup", list(urns))

    def rankings(self, params: Params) -> Answer:
        return self._checked("rankings", params)

    def freshness(self) -> Answer:
        return self._checked("freshness")

    def changes(self, params: Params) -> Answer:
        """What changed since a data version (`since`, and `until`, `kind`, the filters)."""
        return self._checked("changes", params)

    def meta(self) -> Answer:
        return self._checked("meta")

    # ------------------------------------------------------------------ tables (CSV)

    def search_table(self, params: Params) -> list[dict[str, str]]:
        """The public search as CSV, each row as a spreadsheet reads it (column -> cell)."""
        raise FaceCannot(f"the {self.face} face writes no CSV")

    def list_table(self, params: Params) -> list[dict[str, str]]:
        """The commercial school list as CSV (the current caller's key or plan)."""
        raise FaceCannot(f"the {self.face} face writes no CSV")

    # ------------------------------------------------------------------ transport only

    def key_in_query(self) -> Answer:
        """Send the current key in the query string (`api_key=`) on the public search."""
        raise FaceCannot(f"the {self.face} face has no query string")

    def legacy_school(self, urn: str) -> Answer:
        """The deprecated compatibility route `/api/get-school?urn=`."""
        raise FaceCannot(f"the {self.face} face has no legacy route")

    def tools(self) -> list[dict[str, Any]]:
        """The MCP tools the current caller is offered (`tools/list`)."""
        raise FaceCannot(f"the {self.face} face has no tools")

    def discover(self) -> int:
        """MCP `server/discover` with the current credentials; the HTTP status."""
        raise FaceCannot(f"the {self.face} face has no discovery")

    def oversized_call(self, kib: int) -> tuple[int, dict[str, Any]]:
        """A `tools/call` whose body is `kib` KiB: (HTTP status, the JSON answer)."""
        raise FaceCannot(f"the {self.face} face has no request bodies")

    def school_for_host(self, urn: str, host: str) -> Refusal:
        """The school's record asked with `Host: host` (HTTP faces): how it was refused."""
        raise FaceCannot(f"the {self.face} face has no Host header")

    # ------------------------------------------------------------------ the cross-check

    def use_reference(self, reference: Driver) -> None:
        self._reference = reference

    def _checked(self, operation: str, *args: Any, **kwargs: Any) -> Answer:
        run: Callable[..., Answer] = getattr(self, f"_{operation}")
        answer = run(*args, **kwargs)
        if self._reference is not None:
            self._reference.credentials = self.credentials
            expected: Answer = getattr(self._reference, f"_{operation}")(*args, **kwargs)
            self._agree(operation, answer, expected)
        return answer

    def _agree(self, operation: str, answer: Answer, expected: Answer) -> None:
        """The face and the domain library give the same answer to the same question."""
        if answer.code in FACE_CODES:
            return  # the face's own gate or its documented translation, not the use case's
        where = f"{self.face} {operation}"
        if answer.ok:
            assert expected.ok, f"{where}: answered, but the domain refuses: {expected.describe()}"
            assert answer.body == expected.body, f"{where}: the body differs from the domain's"
            if answer.pagination is not None:
                assert counts(answer.pagination) == counts(expected.pagination), (
                    f"{where}: pagination differs"
                )
        else:
            assert answer.code == expected.code, (
                f"{where}: refused {answer.code!r}, the domain says {expected.describe()}"
            )

    # ------------------------------------------------------------------ for subclasses

    def _search(self, params: Params, *, keyed: bool = False) -> Answer:
        raise NotImplementedError

    def _school(self, urn: str) -> Answer:
        raise NotImplementedError

    def _profile(self, urn: str) -> Answer:
        raise NotImplementedError

    def _list_schools(self, params: Params) -> Answer:
        raise NotImplementedError

    def _nearby(self, params: Params) -> Answer:
        raise NotImplementedError

    def _dataset(self, topic: str, urn: str, *, predecessors: bool = False) -> Answer:
        raise NotImplementedError

    def _changes(self, params: Params) -> Answer:
        raise NotImplementedError

    def _compare(self, urns: list[str | int]) -> Answer:
        raise NotImplementedError

    def _lookup(self, urns: list[str | int]) -> Answer:
        raise NotImplementedError

    def _rankings(self, params: Params) -> Answer:
        raise NotImplementedError

    def _freshness(self) -> Answer:
        raise NotImplementedError

    def _meta(self) -> Answer:
        raise NotImplementedError


FACES = ("domain", "rest", "mcp", "cli")


def driver_class(face: str) -> type[Driver]:
    from features.drivers.cli import CliDriver
    from features.drivers.domain import DomainDriver
    from features.drivers.mcp import McpDriver
    from features.drivers.rest import RestDriver

    classes: dict[str, type[Driver]] = {
        "domain": DomainDriver,
        "rest": RestDriver,
        "mcp": McpDriver,
        "cli": CliDriver,
    }
    return classes[face]


def make_driver(face: str, world: World, stage: Stage, home: Path) -> Driver:
    """The driver of `face`; every face but the domain is cross-checked against the domain."""
    from features.drivers.domain import DomainDriver

    stage.world = world
    driver = driver_class(face)(world, stage=stage, home=home)
    if face != "domain":
        driver.use_reference(DomainDriver(world, reference=True))
    return driver
