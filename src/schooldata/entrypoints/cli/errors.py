"""Exit codes and the one translation of every failure into one line on stderr.

0 ok; 1 no result or not found (a school, key or organisation; changes no longer kept);
2 usage error (a bad option, parameter, URN or unknown postcode); 3 data, a dependency or the
configuration unavailable (a missing database, a refused import, an unwritable output, a taken
port, or an unexpected failure); 4 not permitted by the plan chosen with `--as-plan`; 130 interrupted.
docs/cli.md tables the same codes (a test holds them together).
"""

from __future__ import annotations

import enum
import errno
from typing import IO, Any

import click

from schooldata.domain.errors import (
    DataUnavailable,
    DomainError,
    FeatureNotInPlan,
    ImportRejected,
    LimitExceedsPlan,
    SchoolNotFound,
    SinceExpired,
)
from schooldata.settings import SettingsError


class ExitCode(enum.IntEnum):
    OK = 0
    NO_RESULT = 1
    USAGE = 2
    UNAVAILABLE = 3
    NOT_IN_PLAN = 4
    INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl+C; click's own Abort would say 1


class CliError(click.ClickException):
    """Every failure the CLI reports: one line, a documented exit code, no traceback."""

    def __init__(self, message: str, code: ExitCode, *, prefix: str = "Error: ") -> None:
        super().__init__(" ".join(message.split()))
        self.code = code
        self.prefix = prefix

    @property  # click reads it as an attribute; here it varies per instance
    def exit_code(self) -> int:  # type: ignore[override]
        return int(self.code)

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"{self.prefix}{self.format_message()}", file=file, err=file is None)


class NoResult(CliError):
    """The question was fine; nothing answers it (after any empty output was written)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.NO_RESULT, prefix="")


def is_broken_pipe(error: BaseException) -> bool:
    """`schooldata search ... | head`: click quiets these itself."""
    return isinstance(error, OSError) and error.errno == errno.EPIPE


def translate(error: Exception) -> CliError:
    """The exit code and message for any exception a command raised."""
    if isinstance(error, CliError):
        return error
    if isinstance(error, click.UsageError):
        hint = ""
        if error.ctx is not None:
            hint = f" (see '{error.ctx.command_path} --help')"
        return CliError(error.format_message() + hint, ExitCode.USAGE)
    if isinstance(error, click.ClickException):
        return CliError(error.format_message(), ExitCode.USAGE)
    if isinstance(error, DomainError) and error.code == SchoolNotFound.code:
        # A school, an organisation or a key that is not there: a valid question, no answer.
        return CliError(error.message, ExitCode.NO_RESULT, prefix="")
    if isinstance(error, SinceExpired):
        # The question was fine; its answer is no longer kept (HTTP 410).
        return CliError(error.message, ExitCode.NO_RESULT)
    if isinstance(error, FeatureNotInPlan | LimitExceedsPlan):
        return CliError(error.message, ExitCode.NOT_IN_PLAN)
    if isinstance(error, DataUnavailable | ImportRejected):
        return CliError(error.message, ExitCode.UNAVAILABLE)
    if isinstance(error, DomainError):
        return CliError(error.message, ExitCode.USAGE)
    if isinstance(error, SettingsError):
        return CliError(f"configuration: {error}", ExitCode.UNAVAILABLE)
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return CliError(f"{where}{error.strerror or error}", ExitCode.UNAVAILABLE)
    return CliError(
        f"unexpected {type(error).__name__}: {error} (run with --debug for details)",
        ExitCode.UNAVAILABLE,
    )
