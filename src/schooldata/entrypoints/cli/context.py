"""The state every command shares: the global options, and the application built on demand.

Local use is not a plan-bounded API call: without `--as-plan` the analyst gets every feature
and pages of up to 10,000 rows (`LOCAL_PLAN`). With `--as-plan NAME` a command answers
exactly what that plan's API caller would get, or fails with exit code 4.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click
from attrs import define, field

from schooldata.application.local import LOCAL_PLAN, call_locally
from schooldata.application.pipeline import Outcome
from schooldata.application.service import Application
from schooldata.domain.plans import Plan
from schooldata.entrypoints import local
from schooldata.entrypoints.answers import Rendered
from schooldata.entrypoints.cli.output import (
    FORMATS,
    SYNTHETIC_NOTICE,
    Format,
    RowsView,
    Writer,
    opened,
)
from schooldata.entrypoints.cli.paging import Listing
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.settings import Settings

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


@define(kw_only=True)
class Session:
    runtime: CliRuntime
    database_url: str | None = None
    config: Path | None = None
    fmt: Format = "table"
    output: Path | None = None
    as_plan: str | None = None
    debug: bool = False
    create_database: bool = False  # only commands that write data may create a database
    _settings: Settings | None = field(default=None, init=False)
    _app: Application | None = field(default=None, init=False)

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            environ = dict(os.environ)
            if self.config is not None:
                environ["SCHOOLDATA_CONFIG"] = str(self.config)
            self._settings = self.runtime.load_settings(environ, database_url=self.database_url)
        return self._settings

    @property
    def app(self) -> Application:
        if self._app is None:
            self._app = self.runtime.build_app(
                self.settings,
                create_database=self.create_database,
                notify=lambda line: click.echo(line, err=True),
            )
        return self._app

    @property
    def base_url(self) -> str:
        """Where the URLs in answers point: the configured base URL, else the local server."""
        return self.settings.served_url

    @property
    def local_plan(self) -> Plan:
        """The plan this command runs under: every feature, or `--as-plan`'s."""
        return LOCAL_PLAN if self.as_plan is None else self.app.plans.get(self.as_plan)

    @property
    def every_per_page(self) -> int:
        """The page size `--all` reads a list with (memory stays flat however long it is)."""
        return local.stream_page(self.local_plan)

    def call(self, operation: str, arguments: Mapping[str, object]) -> Outcome:
        """One operation through the pipeline every face uses, as this session's plan allows
        (no key, no meter: the analyst is local). A refusal raises its domain error."""
        return call_locally(self.app.pipeline, operation, arguments, plan=self.local_plan)

    def data(self, operation: str, arguments: Mapping[str, object]) -> Rendered:
        """The operation's answer as the API's `data`, its pagination and its whole `meta`."""
        return self.rendered(self.call(operation, arguments))

    def rendered(self, outcome: Outcome) -> Rendered:
        return local.rendered(self.app, outcome, base_url=self.base_url)

    def write(
        self,
        produce: Callable[[Writer], T],
        *,
        fmt: Format | None = None,
        about_schools: bool = True,
    ) -> T:
        """Run `produce` against the output (stdout or `--output FILE`) and return its result.
        A table of school data from the bundled demo is followed by the synthetic-data notice
        on stderr (`about_schools=False`: keys, organisations, what is not school data)."""
        with opened(self.output) as stream:
            writer = Writer(fmt or self.fmt, stream)
            result = produce(writer)
        synthetic = about_schools and self._app and self._app.about.serves_synthetic_data()
        if writer.drew_table and synthetic:
            click.echo(SYNTHETIC_NOTICE, err=True)
        return result

    def write_listing(
        self, found: Listing, view: RowsView, noun: str, *, caption: str | None = None
    ) -> int:
        """Write a list answer's rows; a partial one (fewer rows than the answer holds) says
        so on stderr in CSV and JSON; an empty one exits 1 once written. Returns the rows."""
        shown = found.caption(noun) if caption is None else caption
        written = self.write(lambda w: w.rows(found.items, view, caption=shown))
        self.tell_partial(found, written)
        found.check_found(written, noun)
        return written

    def tell_partial(self, found: Listing, written: int) -> None:
        """The one line on stderr that says a CSV or JSON list is not the whole answer."""
        notice = found.partial_notice(written)
        if notice is not None and self.fmt != "table":
            click.echo(notice, err=True)


pass_session = click.make_pass_decorator(Session)


def _override(ctx: click.Context, param: click.Parameter, value: object) -> None:
    session = ctx.find_object(Session)
    if value is not None and session is not None and param.name is not None:
        setattr(session, param.name, value)


def output_options(command: F) -> F:
    """`--format`/`--output` after the command too: `schooldata search x --format csv`."""
    command = click.option(
        "-o",
        "--output",
        type=click.Path(path_type=Path),
        expose_value=False,
        callback=_override,
        help="Write the answer to FILE instead of stdout.",
    )(command)
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        expose_value=False,
        callback=_override,
        help="table (default), json or csv.",
    )(command)
