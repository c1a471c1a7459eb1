"""Options shared by the list commands. Values stay text: the use cases parse and bound them,
so the CLI reports exactly the API's validation messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
from click.shell_completion import CompletionItem

from schooldata.application.operations.params import GENDERS
from schooldata.domain.phase import PHASE_VALUES
from schooldata.domain.search import SORT_VALUES

F = TypeVar("F", bound=Callable[..., Any])

# CLI option (python name) -> API parameter name.
FILTER_PARAMETERS = {
    "query": "q",
    "postcode": "postcode",
    "lat": "latitude",
    "lon": "longitude",
    "radius": "radius_miles",
    "local_authority": "local_authority",
    "phase": "phase",
    "type_name": "type",
    "gender": "gender",
    "ofsted_rating": "ofsted_rating",
    "min_score": "min_score",
    "sort": "sort",
}


def completer(values: Sequence[str]) -> Callable[..., list[CompletionItem]]:
    def complete(
        ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        return [CompletionItem(v) for v in values if v.startswith(incomplete.lower())]

    return complete


def phase_option(
    help_text: str = "primary, secondary, nursery, 'sixth form' or all-through.",
) -> Callable[[F], F]:
    return click.option(
        "--phase", metavar="PHASE", help=help_text, shell_complete=completer(PHASE_VALUES)
    )


def radius_option() -> Callable[[F], F]:
    return click.option("--radius", metavar="MILES", help="At most this far (0.1-100 miles).")


def filter_options(*, postcode: bool) -> Callable[[F], F]:
    """The commercial list filters (`nearby` takes its postcode as an argument instead)."""

    def decorate(command: F) -> F:
        options = [
            click.option(
                "-q", "--query", metavar="TEXT", help="Name, local authority or type (2+ chars)."
            ),
            *(
                [click.option("--postcode", metavar="POSTCODE", help="Near this postcode.")]
                if postcode
                else []
            ),
            click.option("--lat", metavar="DEGREES", help="Near this latitude (with --lon)."),
            click.option("--lon", metavar="DEGREES", help="Near this longitude (with --lat)."),
            radius_option(),
            click.option("--local-authority", metavar="NAME|CODE", help="e.g. Camden or 202."),
            phase_option(),
            click.option("--type", "type_name", metavar="TYPE", help="e.g. 'Academy converter'."),
            click.option(
                "--gender",
                metavar="GENDER",
                help="mixed, boys or girls.",
                shell_complete=completer(GENDERS),
            ),
            click.option(
                "--ofsted-rating", metavar="1-4", help="Historic graded outcome (1 Outstanding)."
            ),
            click.option("--min-score", metavar="0-100", help="svcScore at least this."),
            click.option(
                "--sort",
                metavar="ORDER",
                help=f"One of: {', '.join(SORT_VALUES)}.",
                shell_complete=completer(SORT_VALUES),
            ),
        ]
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def paging_options(command: F) -> F:
    command = click.option(
        "--all", "every", is_flag=True, help="Every page, streamed as it is read."
    )(command)
    command = click.option(
        "--per-page", metavar="N", help="Rows per page (default 20; up to 10,000 locally)."
    )(command)
    return click.option("--page", metavar="N", help="Page number (default 1).")(command)


def api_parameters(values: dict[str, Any]) -> dict[str, object]:
    """The given CLI options as the API's query parameters (unset ones left out)."""
    return {
        FILTER_PARAMETERS[name]: value
        for name, value in values.items()
        if name in FILTER_PARAMETERS and value is not None
    }
