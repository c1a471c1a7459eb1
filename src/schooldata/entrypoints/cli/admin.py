"""Operating the service: API keys, organisations' plans, the database schema and the server."""

from __future__ import annotations

import socket
from typing import Any

import click

from schooldata import build_info
from schooldata.domain.keys import ApiKeyRecord
from schooldata.entrypoints import wire
from schooldata.entrypoints.cli import views
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.errors import CliError, ExitCode, NoResult
from schooldata.entrypoints.cli.output import Writer
from schooldata.settings import with_overrides

ONCE_WARNING = (
    "Warning: store this key now. It is shown once and cannot be shown again "
    "(only its display prefix is kept)."
)


def key_item(record: ApiKeyRecord) -> dict[str, Any]:
    """What may be shown about a stored key: never the key, never its hash."""
    return {
        "display_prefix": record.display_prefix,
        "organisation": record.organisation,
        "name": record.name,
        "kind": record.kind.value,
        "created_at": wire.instant(record.created_at),
        "revoked_at": wire.instant(record.revoked_at),
    }


@click.group()
def keys() -> None:
    """Create, list and revoke API keys."""


@keys.command("create")
@click.option("--org", "organisation", required=True, help="Organisation id (a-z, 0-9, . _ -).")
@click.option("--name", required=True, help="What the key is for, e.g. 'production'.")
@click.option("--plan", help="Put the organisation on this plan (new organisations: developer).")
@click.option("--test", is_flag=True, help="Issue an svc_test_ key instead of svc_live_.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (same as --format json).")
@output_options
@pass_session
def create_key(
    session: Session, organisation: str, name: str, plan: str | None, test: bool, as_json: bool
) -> None:
    """Issue a key for an organisation. The key is printed ONCE: store it straight away.

    \b
    Examples:
      schooldata keys create --org acme --name production --plan professional
      schooldata keys create --org acme --name ci --test --json
    """
    issued = session.app.keys.create_key(organisation=organisation, name=name, plan=plan, test=test)
    item = {"key": issued.key, **key_item(issued.record)}
    fmt = "json" if as_json else session.fmt

    def write(writer: Writer) -> None:
        if writer.fmt == "table":
            writer.message(f"API key for {item['organisation']} ({item['name']}):")
            writer.message(issued.key)
        else:
            writer.record(item)

    session.write(write, fmt=fmt, about_schools=False)
    click.echo(ONCE_WARNING, err=True)


@keys.command("list")
@click.option("--org", "organisation", help="Only this organisation's keys.")
@output_options
@pass_session
def list_keys(session: Session, organisation: str | None) -> None:
    """List keys by display prefix (the keys themselves are never stored or shown).

    \b
    Example:
      schooldata keys list --org acme
    """
    items = [key_item(r) for r in session.app.keys.list_keys(organisation=organisation)]
    session.write(lambda w: w.rows(items, views.KEYS), about_schools=False)
    if not items:
        raise NoResult("No keys.")


@keys.command("revoke")
@click.argument("prefix")
@output_options
@pass_session
def revoke_key(session: Session, prefix: str) -> None:
    """Revoke every live key with this display prefix (e.g. svc_live_AbC1).

    \b
    Example:
      schooldata keys revoke svc_live_AbC1
    """
    count = session.app.keys.revoke(display_prefix=prefix)
    result = {"display_prefix": prefix.strip(), "revoked": count}
    message = f"Revoked {count} key(s) with prefix {prefix}."
    session.write(lambda w: _report(w, result, message), about_schools=False)


@click.group()
def orgs() -> None:
    """Organisations and their plans."""


@orgs.command("list")
@output_options
@pass_session
def list_orgs(session: Session) -> None:
    """List organisations and their plans.

    \b
    Example:
      schooldata orgs list --format csv
    """
    items = [
        {"organisation": o.slug, "name": o.name, "plan": o.plan}
        for o in session.app.keys.list_organisations()
    ]
    session.write(lambda w: w.rows(items, views.ORGS), about_schools=False)
    if not items:
        raise NoResult("No organisations.")


@orgs.command("set-plan")
@click.argument("org")
@click.argument("plan")
@output_options
@pass_session
def set_plan(session: Session, org: str, plan: str) -> None:
    """Move an organisation (and so all its keys) to another plan.

    \b
    Example:
      schooldata orgs set-plan acme enterprise
    """
    updated = session.app.keys.set_plan(organisation=org, plan=plan)
    result = {"organisation": updated.slug, "name": updated.name, "plan": updated.plan}
    message = f"{updated.slug} is now on the {updated.plan} plan."
    session.write(lambda w: _report(w, result, message), about_schools=False)


@click.group()
def db() -> None:
    """The database schema."""


@db.command("upgrade")
@pass_session
def upgrade(session: Session) -> None:
    """Apply every pending schema migration (safe to run repeatedly).

    \b
    Example:
      SCHOOLDATA_DATABASE_URL=postgresql+psycopg://u@db/schooldata schooldata db upgrade
    """
    session.runtime.upgrade(session.settings)
    click.echo("The database schema is up to date.", err=True)


@click.command()
@click.option("--host", help="Interface to listen on (default 127.0.0.1; SCHOOLDATA_HOST).")
@click.option("--port", type=click.IntRange(1, 65535), help="Port (default 8000).")
@click.option("--workers", type=click.IntRange(1, 64), help="Worker processes (default 1).")
@pass_session
def serve(session: Session, host: str | None, port: int | None, workers: int | None) -> None:
    """Run the REST API and the MCP endpoint.

    \b
    Example:
      schooldata serve --host 0.0.0.0 --port 8080 --workers 4
    """
    settings = with_overrides(session.settings, host=host, port=port, workers=workers)
    require_free_port(settings.host, settings.port)
    click.echo(f"Starting schooldata ({build_info.build_name()}) ...", err=True)
    session.runtime.serve(settings, notify=lambda line: click.echo(line, err=True))


def require_free_port(host: str, port: int) -> None:
    """Fail before anything is built when the address is taken (another server, or an earlier
    `schooldata serve`), with the one line that says so rather than the server's traceback."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise CliError(f"cannot listen on {host!r}: {error.strerror}.", ExitCode.USAGE) from None
    with socket.socket(family, kind, proto) as probe:
        # As a server binds: a port left in TIME_WAIT by a stopped server is free; one with a
        # listener is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise CliError(
                f"cannot serve on {host}:{port}: {error.strerror or error}. Is another server "
                "running there? Stop it or choose another --port.",
                ExitCode.UNAVAILABLE,
            ) from None


def _report(writer: Writer, result: dict[str, Any], sentence: str) -> None:
    if writer.fmt == "table":
        writer.message(sentence)
    else:
        writer.record(result)
