"""`schooldata where`: the state a command would use, found without creating any of it.

The embedded demo database and the key secret live in the data home (`SCHOOLDATA_HOME`, else
`$XDG_DATA_HOME/schooldata`, else `~/.local/share/schooldata`), which every checkout and
every virtual environment of one user shares unless told otherwise: this says which one, so
that it can be seen, backed up or reset (`rm -rf "$(schooldata where --home)"`).
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Any

import click

from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.settings import ENV_PREFIX, Settings, default_home


@click.command()
@click.option("--home", "home_only", is_flag=True, help="Print only the data home's path.")
@output_options
@pass_session
def where(session: Session, home_only: bool) -> None:
    """Where the data home, the database and the key secret are; whether the demo is built.

    Looks only: nothing is created or built (the first other command builds the demo).

    \b
    Examples:
      schooldata where
      schooldata where --home
    """
    settings = session.settings
    if home_only:
        click.echo(str(settings.home))
        return
    state = describe(settings, config=_config_file(session))
    session.write(lambda w: w.record(state, title="schooldata"), about_schools=False)


def describe(settings: Settings, *, config: str | None) -> dict[str, Any]:
    """Where each piece of state is, as found now (never a secret's value)."""
    demo = settings.demo_database_path
    if os.environ.get(f"{ENV_PREFIX}HOME"):
        home_from = f"{ENV_PREFIX}HOME"
    elif settings.home != default_home():
        home_from = "settings file"
    else:
        home_from = "default: shared by every checkout of this user (set SCHOOLDATA_HOME)"
    return {
        "data_home": str(settings.home),
        "data_home_from": home_from,
        "database": _masked(settings.effective_database_url),
        "embedded_demo": settings.uses_embedded_demo,
        "demo_built": settings.uses_embedded_demo and demo.is_file() and demo.stat().st_size > 0,
        "key_secret": _key_secret(settings),
        "settings_file": config,
    }


def _key_secret(settings: Settings) -> str:
    if settings.key_secret:
        return f"{ENV_PREFIX}KEY_SECRET (set; never shown)"
    if settings.uses_embedded_demo:
        path = settings.home / "key-secret"
        return str(path) if path.is_file() else f"{path} (created on first use)"
    return f"not set: {ENV_PREFIX}KEY_SECRET is required for this database"


def _config_file(session: Session) -> str | None:
    if session.config is not None:
        return str(session.config)
    named = os.environ.get(f"{ENV_PREFIX}CONFIG")
    if named:
        return named
    return "schooldata.toml" if os.path.isfile("schooldata.toml") else None


def _masked(url: str) -> str:
    """The database URL with any password hidden."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
