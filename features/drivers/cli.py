"""The CLI face: `schooldata --format json ...` through click's CliRunner, with the runtime
object injected as `obj` (the same way `schooldata.__main__` injects the production one).

The CLI is local: it has no API keys and meters nothing; a caller's plan is `--as-plan PLAN`.
JSON output is the API's data (the public SearchResponse/SchoolRecord whole, a commercial
answer's `data`). A refusal is one line on stderr and an exit code (1 no result, 2 usage,
3 unavailable, 4 not in the plan); the contract's code is read back from the API's message,
which the CLI passes on unchanged, and the exit code is checked against it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import evolve
from click.testing import CliRunner, Result

from features.drivers import Answer, Driver, FaceCannot, Params, csv_rows
from features.drivers.stage import Stage
from features.drivers.world import World
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.settings import Settings

# API parameter -> CLI option. A parameter without an option is passed as `--name` anyway,
# so an unsupported parameter is refused by the CLI as it is by the API.
OPTIONS = {
    "q": "query",
    "latitude": "lat",
    "longitude": "lon",
    "radius_miles": "radius",
}
SEARCH_OPTIONS = {"radius_miles": "radius"}
NOT_WIRED = "this build has no dataset queries."

# The API's messages (domain errors), as the CLI prints them, and the codes they stand for.
MESSAGES: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"URN must be exactly six digits"), "invalid_urn", ()),
    (re.compile(r"Unknown postcode: "), "unknown_postcode", ()),
    (re.compile(r"No open school has URN (\d+)\."), "not_found", ("urn",)),
    (
        re.compile(r"The '(\w+)' capability is not included in the (\S+) plan\."),
        "feature_not_in_plan",
        ("feature", "plan"),
    ),
    (
        re.compile(r"'(\w+)' may be at most (\d+) on the \S+ plan\."),
        "limit_exceeds_plan",
        ("parameter", "max"),
    ),
    (re.compile(r"Unsupported parameter\(s\): (.+)\."), "unknown_parameter", ()),
    (re.compile(r"No such option '--([\w-]+)'"), "unknown_parameter", ()),
    (
        re.compile(r"Changes since (\S+) are no longer kept; the oldest version .* is (\S+)\."),
        "since_expired",
        ("since", "oldest"),
    ),
)
EXIT_OF_CODE = {
    "not_found": 1,
    "since_expired": 1,
    "service_unavailable": 3,
    "feature_not_in_plan": 4,
    "limit_exceeds_plan": 4,
}


def _unused(*_: Any) -> Any:
    raise AssertionError("the features never serve, migrate or import through the CLI")


def code_of(message: str) -> tuple[str, dict[str, Any]]:
    for pattern, code, names in MESSAGES:
        found = pattern.match(message)
        if found is not None:
            details: dict[str, Any] = dict(zip(names, found.groups(), strict=False))
            if "max" in details:
                details["max"] = int(details["max"])
            return code, details
    return "invalid_parameter", {}


def options(params: Params, renamed: Mapping[str, str]) -> list[str]:
    return [
        f"--{renamed.get(name, name).replace('_', '-')}={value}" for name, value in params.items()
    ]


class CliDriver(Driver):
    face = "cli"
    capabilities = frozenset()

    def __init__(
        self, world: World, *, stage: Stage | None = None, home: Path | None = None
    ) -> None:
        super().__init__(world, stage=stage, home=home)
        assert home is not None, "the CLI needs a home folder"
        settings = Settings(home=home, base_url=world.base_url)
        self._runtime = CliRuntime(
            load_settings=lambda environ=None, **overrides: settings,
            build_app=lambda _settings, **_: world.app,
            serve=_unused,
            upgrade=_unused,
            importers=dict,
            load_sample=_unused,
        )

    # ------------------------------------------------------------------ operations

    def _search(self, params: Params, *, keyed: bool = False) -> Answer:
        if keyed:
            raise FaceCannot("the cli face has no API keys")
        rest = dict(params)
        query = rest.pop("query", None)
        words = [] if query is None else [query]
        return self._run(["search", *words, *options(rest, SEARCH_OPTIONS)], as_plan=False)

    def _school(self, urn: str) -> Answer:
        return self._run(["school", urn, "--public"], as_plan=False)

    def _profile(self, urn: str) -> Answer:
        return self._run(["school", urn])

    def _list_schools(self, params: Params) -> Answer:
        return self._run(["schools", *options(params, OPTIONS)])

    def _nearby(self, params: Params) -> Answer:
        rest = dict(params)
        postcode = rest.pop("postcode", None)
        words = [] if postcode is None else [postcode]
        return self._run(["nearby", *words, *options(rest, OPTIONS)])

    def _dataset(self, topic: str, urn: str, *, predecessors: bool = False) -> Answer:
        return self._run([topic, urn, *(["--include-predecessors"] if predecessors else [])])

    def _changes(self, params: Params) -> Answer:
        """`schooldata changes` prints {"data", "since", "until"}: the data is the body."""
        answer = self._run(["changes", *options(params, {})])
        if not answer.ok:
            return answer
        document = answer.body
        return evolve(
            answer,
            body=document["data"],
            meta={"since": document["since"], "until": document["until"]},
        )

    def _compare(self, urns: list[str | int]) -> Answer:
        return self._run(["compare", *map(str, urns)])  # a command line is text

    def _lookup(self, urns: list[str | int]) -> Answer:
        return self._run(["lookup", *map(str, urns)])  # prints {"data", "not_found"} as JSON

    def _rankings(self, params: Params) -> Answer:
        return self._run(["rankings", *options(params, {})])

    def _freshness(self) -> Answer:
        return self._run(["freshness"])

    def _meta(self) -> Answer:
        return self._run(["meta"])

    # ------------------------------------------------------------------ tables (CSV)

    def search_table(self, params: Params) -> list[dict[str, str]]:
        rest = dict(params)
        query = rest.pop("query", None)
        words = [] if query is None else [query]
        return self._csv(["search", *words, *options(rest, SEARCH_OPTIONS)], as_plan=False)

    def list_table(self, params: Params) -> list[dict[str, str]]:
        return self._csv(["schools", *options(params, OPTIONS)])

    def _csv(self, words: Sequence[str], *, as_plan: bool = True) -> list[dict[str, str]]:
        plan = self.credentials.plan if self.credentials and as_plan else None
        args = [*(["--as-plan", plan] if plan else []), "--format", "csv", *words]
        result: Result = CliRunner().invoke(cli, args, obj=self._runtime)
        assert result.exit_code == 0, f"`schooldata {' '.join(args)}`: {result.output}"
        return csv_rows(result.stdout)

    # ------------------------------------------------------------------ the command line

    def _run(self, words: Sequence[str], *, as_plan: bool = True) -> Answer:
        plan = self.credentials.plan if self.credentials and as_plan else None
        args = [*(["--as-plan", plan] if plan else []), "--format", "json", *words]
        result: Result = CliRunner().invoke(cli, args, obj=self._runtime)
        shown = " ".join(["schooldata", *args])
        if result.exit_code == 0 or (result.exit_code == 1 and result.stdout.strip()):
            # exit 1 after writing an empty answer: nothing matched, or a page past the end
            return Answer(
                face=self.face, ok=True, body=json.loads(result.stdout), status=result.exit_code
            )
        lines = result.stderr.splitlines()
        assert len(lines) == 1, f"`{shown}` should fail in one line: {result.stderr!r}"
        assert result.stdout == "", f"`{shown}` failed after writing output"
        message = lines[0].removeprefix("Error: ")
        if result.exit_code == 3 and message == NOT_WIRED:
            raise FaceCannot("the CLI's dataset queries are not wired (Application.datasets_api)")
        code, details = ("service_unavailable", {}) if result.exit_code == 3 else code_of(message)
        expected = EXIT_OF_CODE.get(code, 2)
        assert result.exit_code == expected, f"`{shown}`: {code!r} exited {result.exit_code}"
        return Answer(
            face=self.face,
            ok=False,
            code=code,
            message=message,
            details=details,
            status=result.exit_code,
        )
