"""Every operation asked on the rich dataset, anonymously and keyed, answered and refused: the
JSON bodies the faces send, by case name. `baseline/answers.json` holds these bodies as the
hand-written renderers produced them before the output shapes became declared Structs, with
each deliberate change since (see docs/testing.md, "The answers baseline").

`python -m tests.contract.answers_calls` writes the baseline again from today's answers: for
an intended change of answers only, reviewed in its diff."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.contract.answers_dataset import build_rich_store

from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import Outcome, Refused, Trusted
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints import answers
from schooldata.entrypoints.refusals import error_body, status_of

BASE_URL = "http://testserver.local"
REQUEST_ID = "req_0123456789abcdefABCD"
ANONYMOUS = "anonymous"

URNS = (100001, 100002, 100003, 100004, 100007, 100009, 100011, 100012, 100014, 100021)

# (operation, arguments, who): who is "anonymous" or the name of a plan (a trusted caller).
Call = tuple[str, dict[str, object], str]


def calls() -> Iterator[tuple[str, Call]]:
    """Each case by a name that says what it asks."""
    searches: dict[str, dict[str, object]] = {
        "by-name": {"query": "st mary"},
        "by-postcode": {"postcode": "SW1A 1AA"},
        "by-postcode-radius-phase": {"postcode": "sw1a1aa", "radius_miles": 1.5, "phase": "Primary"},
        "by-outward-code-limit": {"postcode": "B1", "limit": 2, "query": "school"},
        "nothing-found": {"query": "zzzz"},
    }  # fmt: skip
    for label, arguments in searches.items():
        yield f"searchSchools/{label}", ("searchSchools", arguments, ANONYMOUS)
    for urn in URNS:
        yield f"getSchool/{urn}", ("getSchool", {"urn": str(urn)}, ANONYMOUS)
        yield f"getSchoolProfile/{urn}", ("getSchool", {"urn": str(urn)}, "enterprise")
        for name in ("getSchoolInspections", "getSchoolResults", "getSchoolAdmissions"):
            yield f"{name}/{urn}", (name, {"urn": str(urn)}, "enterprise")
        yield f"getSchoolFinance/{urn}", ("getSchoolFinance", {"urn": urn}, "enterprise")
    for name in ("getSchoolResults", "getSchoolInspections"):
        predecessors = {"urn": "100006", "include_predecessors": True}
        yield f"{name}/100006+predecessors", (name, predecessors, "enterprise")
    yield "getSchoolLegacy/100001", ("getSchoolLegacy", {"urn": "100001"}, ANONYMOUS)
    yield "getMeta", ("getMeta", {}, "professional")
    yield "getDataFreshness", ("getDataFreshness", {"per_page": 2, "page": 2}, "developer")
    lists: dict[str, tuple[str, dict[str, object]]] = {
        "all": ("listSchools", {}),
        "page-2": ("listSchools", {"per_page": 5, "page": 2, "sort": "name"}),
        "past-the-end": ("listSchools", {"page": 40}),
        "near-postcode": ("listSchools", {"postcode": "SW1A 1AA", "radius_miles": 2}),
        "near-point": ("nearbySchools", {"latitude": 52.48, "longitude": -1.9, "per_page": 3}),
        "near-filtered": ("nearbySchools", {"postcode": "NW1 1AA", "phase": "secondary", "gender": "girls"}),
        "search": ("searchSchoolsCommercial", {"q": "westminster", "sort": "relevance"}),
        "search-scored": ("searchSchoolsCommercial", {"q": "school", "min_score": 0, "sort": "score"}),
    }  # fmt: skip
    for label, (name, arguments) in lists.items():
        yield f"{name}/{label}", (name, arguments, "enterprise")
    yield "listLocalAuthorities", ("listLocalAuthorities", {}, "developer")
    yield "listLocalAuthorities/q", ("listLocalAuthorities", {"q": "camden"}, "developer")
    yield "compareSchools", ("compareSchools", {"urns": ["100002", 100009, "100003"]}, "enterprise")
    lookup = {"urns": ["100002", 999999, "100019", 100009]}
    yield "lookupSchools", ("lookupSchools", lookup, "developer")
    for label, arguments in {
        "svc-score": {"metric": "svc_score", "phase": "secondary"},
        "attainment-asc": {
            "metric": "ks4_attainment8_average",
            "phase": "secondary",
            "order": "asc",
            "per_page": 2,
        },
        "primary-camden": {"metric": "svc_score", "phase": "primary", "local_authority": "Camden"},
    }.items():
        yield f"getRankings/{label}", ("getRankings", arguments, "professional")
    first, second = "20261101T090000Z-000001", "20261102T083015Z-000002"
    yield "listChanges", ("listChanges", {"since": first}, "professional")
    filtered = {"since": first, "kind": "updated", "local_authority": "camden"}
    yield "listChanges/filtered", ("listChanges", filtered, "enterprise")
    yield "listChanges/current", ("listChanges", {"since": second, "until": second}, "enterprise")
    yield from _refusals()


def _refusals() -> Iterator[tuple[str, Call]]:
    refused: dict[str, Call] = {
        "public-invalid-urn": ("getSchool", {"urn": "12x"}, ANONYMOUS),
        "public-not-found": ("getSchool", {"urn": "999999"}, ANONYMOUS),
        "public-closed": ("getSchoolLegacy", {"urn": "100019"}, ANONYMOUS),
        "public-no-input": ("searchSchools", {}, ANONYMOUS),
        "public-unknown-postcode": ("searchSchools", {"postcode": "ZZ99 9ZZ"}, ANONYMOUS),
        "public-bad-limit": ("searchSchools", {"query": "school", "limit": 26}, ANONYMOUS),
        "missing-key": ("getSchoolResults", {"urn": "100001"}, ANONYMOUS),
        "feature-not-in-plan": ("getSchoolFinance", {"urn": "100001"}, "professional"),
        "limit-exceeds-plan": ("listSchools", {"per_page": 26}, "developer"),
        "unknown-parameter": ("listSchools", {"colour": "red"}, "developer"),
        "invalid-parameter": ("nearbySchools", {"latitude": 91, "longitude": 0}, "developer"),
        "unknown-postcode": ("nearbySchools", {"postcode": "ZZ99 9ZZ"}, "developer"),
        "keyed-not-found": ("getSchool", {"urn": "999999"}, "developer"),
        "compare-not-found": ("compareSchools", {"urns": ["100001", "999999"]}, "enterprise"),
        "compare-too-many": ("compareSchools", {"urns": [str(100001 + i) for i in range(11)]}, "professional"),
        "lookup-too-many": ("lookupSchools", {"urns": [str(100001 + i) for i in range(26)]}, "developer"),
        "changes-not-in-plan": ("listChanges", {"since": "20261101T090000Z-000001"}, "developer"),
        "changes-malformed": ("listChanges", {"since": "yesterday"}, "professional"),
        "changes-unknown": ("listChanges", {"since": "20261101T090000Z-000003"}, "professional"),
        "changes-expired": ("listChanges", {"since": "20200101T000000Z-000001"}, "professional"),
    }  # fmt: skip
    for label, call in refused.items():
        yield f"refused/{label}", call


class FixedClock:
    """The clock the retention of versions is counted by: a month after the dataset's."""

    def now(self) -> dt.datetime:
        return dt.datetime(2026, 12, 1, tzinfo=dt.UTC)

    def timestamp(self) -> float:
        return self.now().timestamp()


def application() -> Application:
    return bootstrap_memory(store=build_rich_store(), clock=FixedClock())


def outcome(app: Application, call: Call) -> Outcome | Refused:
    name, arguments, who = call
    entry = REGISTRY.entry_of(name)
    credentials = {} if who == ANONYMOUS else {"credentials": Trusted(app.plans.get(who))}
    try:
        return app.pipeline.call(entry, arguments, **credentials)  # type: ignore[arg-type]
    except Refused as refused:
        return refused


def answer(app: Application, call: Call) -> Any:
    """The body a face sends for the call: the answer's, or the refusal's with its status."""
    result = outcome(app, call)
    if isinstance(result, Refused):
        return {
            "status": status_of(result.error),
            "refused": error_body(result, request_id=REQUEST_ID),
        }
    return answers.body(result, base_url=BASE_URL, request_id=REQUEST_ID)


def every_answer(app: Application) -> dict[str, Any]:
    return {label: answer(app, call) for label, call in calls()}


def every_encoded_answer(app: Application) -> dict[str, Any]:
    """The answers (not the refusals) as the REST face sends them: encoded bytes, decoded."""
    encoded = {}
    for label, call in calls():
        result = outcome(app, call)
        if not isinstance(result, Refused):
            raw = answers.encoded(result, base_url=BASE_URL, request_id=REQUEST_ID)
            encoded[label] = json.loads(raw)
    return encoded


BASELINE_FILE = Path(__file__).parent / "baseline" / "answers.json"
PAGE_LINKS = ("next", "prev")
ADDED_CASES = ("lookupSchools", "refused/lookup-too-many")  # (issue 23: checked, not kept)


def before_page_links(answer: Any) -> Any:
    """The answer without the page links, which must be the last members of its pagination
    and null (the baseline predates them); anything else is left as it is."""
    paging = answer.get("meta", {}).get("pagination") if isinstance(answer, dict) else None
    if paging is None:
        return answer
    assert list(paging)[-2:] == list(PAGE_LINKS), list(paging)
    assert all(paging[name] is None for name in PAGE_LINKS), paging
    kept = {k: v for k, v in paging.items() if k not in PAGE_LINKS}
    return {**answer, "meta": {**answer["meta"], "pagination": kept}}


def baseline_text(answers: dict[str, Any]) -> str:
    """The baseline's layout: one case a line, in the order asked, key order kept, each
    answer as the test compares it (page links left out; issue 23's cases not kept)."""
    lines = (
        f"{json.dumps(case, ensure_ascii=False)}: "
        f"{json.dumps(before_page_links(body), ensure_ascii=False)}"
        for case, body in answers.items()
        if case not in ADDED_CASES
    )
    return "{\n" + ",\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    BASELINE_FILE.write_text(baseline_text(every_answer(application())), encoding="utf-8")
