"""The `schooldata` command: global options, the command list, and the one error boundary."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from schooldata import build_info
from schooldata.entrypoints.cli import admin, call, datasets, history, queries
from schooldata.entrypoints.cli.context import Session
from schooldata.entrypoints.cli.errors import CliError, ExitCode, is_broken_pipe, translate
from schooldata.entrypoints.cli.export import export
from schooldata.entrypoints.cli.imports import import_
from schooldata.entrypoints.cli.output import FORMATS, Format, use_utf8
from schooldata.entrypoints.cli.refresh import refresh
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.entrypoints.cli.where import where
from schooldata.settings import load_settings

EPILOG = """\b
Exit codes: 0 ok, 1 no result or not found, 2 usage error (bad option,
parameter, URN or unknown postcode), 3 data, dependency or configuration
unavailable (missing database, refused import, unwritable output, taken port),
4 not permitted by the --as-plan plan, 130 interrupted.

\b
Shell completion (bash; zsh and fish alike):
  eval "$(_SCHOOLDATA_COMPLETE=bash_source schooldata)"
"""


class SchooldataGroup(click.Group):
    """Every failure leaves as one line on stderr and a documented exit code; `--debug`
    adds the traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # the order they are added in: queries first, then admin

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise translate(error) from error

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.NoArgsIsHelpError):
            raise
        except (KeyboardInterrupt, click.Abort):
            # click would report 'Aborted!' with exit code 1, the code of "no result".
            raise CliError("interrupted.", ExitCode.INTERRUPTED) from None
        except Exception as error:
            if is_broken_pipe(error):
                raise
            if ctx.params.get("debug"):
                traceback.print_exception(error)
            raise translate(error) from error


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    for line in build_info.describe():
        click.echo(line)
    click.echo(f"data home: {load_settings().home}")
    ctx.exit()


@click.group(
    "schooldata", cls=SchooldataGroup, epilog=EPILOG, context_settings={"max_content_width": 100}
)
@click.option(
    "--db",
    "database_url",
    metavar="URL",
    envvar="SCHOOLDATA_DATABASE_URL",
    help="sqlite:///path or postgresql+psycopg://... (default: the embedded demo).",
)
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A schooldata.toml settings file (also SCHOOLDATA_CONFIG).",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table for people; json (the API's data) or csv for programs.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write the answer to FILE (whole or not at all) instead of stdout.",
)
@click.option(
    "--as-plan",
    metavar="PLAN",
    help="Answer exactly as the API would for this plan (developer, professional, ...).",
)
@click.option("--debug", is_flag=True, help="Show the traceback of a failure.")
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version, the build (compiled or pure Python), the Python and the data home.",
)
@click.pass_context
def cli(
    ctx: click.Context,
    database_url: str | None,
    config: Path | None,
    fmt: Format,
    output: Path | None,
    as_plan: str | None,
    debug: bool,
) -> None:
    """UK school data from the local database: every query the API answers, as tables,
    JSON or CSV, and the commands that run the service.

    Locally every feature is available and pages go up to 10,000 rows; --as-plan shows what
    a plan's API caller would get.

    \b
    Examples:
      schooldata search "st mary" --postcode "SW1A 1AA"
      schooldata --format json school 138180
      schooldata --format csv --output camden.csv schools --local-authority Camden --all
      schooldata --as-plan developer finance 140122      # exit code 4
    """
    use_utf8(sys.stdout, sys.stderr)
    runtime = ctx.obj
    if not isinstance(runtime, CliRuntime):
        raise CliError("start schooldata through its console script.", ExitCode.UNAVAILABLE)
    ctx.obj = Session(
        runtime=runtime,
        database_url=database_url,
        config=config,
        fmt=fmt,
        output=output,
        as_plan=as_plan,
        debug=debug,
    )


COMMANDS: Sequence[click.Command] = (
    queries.search,
    queries.school,
    queries.lookup,
    queries.nearby,
    queries.schools,
    datasets.inspections,
    datasets.results,
    datasets.admissions,
    datasets.finance,
    datasets.compare,
    datasets.rankings,
    queries.authorities,
    queries.freshness,
    history.changes,
    queries.meta,
    call.call,
    export,
    import_,
    refresh,
    admin.keys,
    admin.orgs,
    admin.db,
    admin.serve,
    where,
)
for command in COMMANDS:
    cli.add_command(command)
