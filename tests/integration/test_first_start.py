"""A first start builds the embedded demo once and says so while it does; later starts are
silent (the only step of a start that takes more than a moment)."""

from __future__ import annotations

from pathlib import Path

from schooldata.bootstrap import bootstrap
from schooldata.settings import Settings


def test_the_first_build_of_the_demo_says_what_it_is_doing_and_later_starts_say_nothing(
    tmp_path: Path,
) -> None:
    settings = Settings(home=tmp_path)
    said: list[str] = []
    app = bootstrap(settings, notify=said.append)
    assert said[0] == (
        f"Building the synthetic demo database in {settings.demo_database_path} "
        "(first use only, ~10 s)..."
    )
    assert said[1].startswith("Demo database built in ")
    assert len(said) == 2
    assert app.about.serves_synthetic_data()
    again: list[str] = []
    bootstrap(settings, notify=again.append)
    assert again == []
