"""How long data versions and their changes are kept: a setting, checked at start, that the
server hands to every worker (each decides which `since` has expired)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schooldata.bootstrap.server import _settings_environment
from schooldata.domain.versions import DEFAULT_RETENTION_DAYS
from schooldata.settings import SettingsError, load_settings


def test_the_changes_are_kept_at_least_400_days_by_default(tmp_path: Path) -> None:
    assert DEFAULT_RETENTION_DAYS >= 400
    assert load_settings({}, home=tmp_path).change_retention_days == DEFAULT_RETENTION_DAYS


def test_the_retention_is_read_from_the_environment(tmp_path: Path) -> None:
    environ = {"SCHOOLDATA_CHANGE_RETENTION_DAYS": "730"}
    assert load_settings(environ, home=tmp_path).change_retention_days == 730


@pytest.mark.parametrize(("value", "message"), [("0", "must be 1-36500"), ("soon", "integer")])
def test_a_bad_retention_is_refused_by_name(tmp_path: Path, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message) as refused:
        load_settings({"SCHOOLDATA_CHANGE_RETENTION_DAYS": value}, home=tmp_path)
    assert "SCHOOLDATA_CHANGE_RETENTION_DAYS" in str(refused.value)


def test_served_workers_get_the_retention(tmp_path: Path) -> None:
    settings = load_settings({}, home=tmp_path, change_retention_days=900)
    handed = _settings_environment(settings)
    assert handed["SCHOOLDATA_CHANGE_RETENTION_DAYS"] == "900"
    assert load_settings(handed).change_retention_days == 900
