"""Every CLI example in README.md, docs/*.md and the commands' --help runs, as written, on
the embedded demo database, and exits as it says (0 unless a `# exit code N` comment says
otherwise). The few that cannot run here are named, with the reason."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import click
import pytest
from click.testing import CliRunner

from schooldata.__main__ import runtime
from schooldata.entrypoints.cli.app import cli

ROOT = Path(__file__).parents[2]
PROMPT = re.compile(r"^(?:\.venv/bin/)?schooldata\s")
EXPECTED_CODE = re.compile(r"#\s*exit code (\d)")

# Examples that cannot run in a test, and why; everything else must run.
NOT_RUN = {
    "import postcodes codepo_gb.zip": "needs the publisher's download",
    "import gias edubasealldata20251101.csv": "needs the publisher's download",
    "import gias edubasealldata20251101.csv --allow-shrink": "needs the publisher's download",
    "import links links_edubasealldata20250422.csv": "needs the publisher's download",
    "import ks4-info 202425_information_about_schools_provisional.csv": "needs the download",
    "import ks4-info 202425_information_about_schools_provisional.csv --extract-date "
    "2025-10-16": "needs the publisher's download",
    "import ks4-results 202425_performance_tables_schools_revised.csv": "needs the download",
    "import ks4-results england_ks4final.csv --period 2018/19": "needs the publisher's download",
    "import ks4-results 2018-2019/england_ks4final.csv": "needs the publisher's download",
    "import ks2-results ks2_school_attainment_data.csv": "needs the publisher's download",
    "import ks5-results institution_performance_202225.csv": "needs the publisher's download",
    "import ofsted Management_information_-_state-funded_schools_-_latest_inspections_as_at_"
    "31_Jan_2026.csv": "needs the publisher's download",
    "import admissions AppsandOffers_2025_SchoolLevel.csv": "needs the publisher's download",
    "import finance 2022-2023/england_cfr.csv": "needs the publisher's download",
    "import gias edubasealldata20250422.csv": "needs the publisher's download",
    "import postcodes codepo_gb/Data/CSV": "needs the publisher's download",
    "--db postgresql+psycopg://app@db/schooldata db upgrade": "a deployment's own server",
    "serve --host 0.0.0.0 --port 8080 --workers 4": "runs until stopped",
    "serve": "runs until stopped",
    "import postcodes codepo_gb/Data/CSV/": "needs the publisher's download",
    "keys revoke svc_live_AbC1": "a placeholder for a prefix `keys list` shows",
    "changes --since 20261207T060000Z-000041": "a placeholder for a version an answer's "
    "meta.data_version gives",
    "changes --since 20261207T060000Z-000041 --kind closed --all -f csv": "a placeholder for "
    "a version an answer's meta.data_version gives",
    "refresh": "downloads from the publishers (tests/integration/test_refresh.py serves them)",
    "refresh --only gias,links --dry-run": "asks the publishers",
    "--format json refresh --only postcodes": "downloads from the publisher",
    "--db postgresql+psycopg://app@db/schooldata refresh --only postcodes": "a deployment's "
    "own server, and the publisher's download",
}


def examples_in_markdown(path: Path) -> Iterator[str]:
    """The command lines of a document's sh code blocks."""
    in_block = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_block = line.strip() == "```sh"
            continue
        if in_block and PROMPT.match(line):
            yield line


def examples_in_help(command: click.Command = cli) -> Iterator[str]:
    for line in (command.help or "").splitlines():
        if PROMPT.match(line.strip()):
            yield line.strip()
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            yield from examples_in_help(sub)


def split(example: str) -> tuple[list[str], int]:
    """The arguments after `schooldata` (a shell redirection left out) and the exit code the
    example promises."""
    code, comment = 0, ""
    if "#" in example:
        example, comment = example.split("#", 1)
        if found := EXPECTED_CODE.search("#" + comment):
            code = int(found.group(1))
    words = shlex.split(example)[1:]
    if ">" in words:
        words = words[: words.index(">")]
    return words, code


ALL_EXAMPLES = [
    *examples_in_markdown(ROOT / "README.md"),
    *(e for page in sorted((ROOT / "docs").glob("*.md")) for e in examples_in_markdown(page)),
    *examples_in_help(),
]


def test_the_documents_and_help_hold_cli_examples() -> None:
    assert len(list(examples_in_markdown(ROOT / "README.md"))) >= 10
    assert len(list(examples_in_markdown(ROOT / "docs" / "cli.md"))) >= 25
    assert len(list(examples_in_help())) >= 25
    shown = {" ".join(shlex.quote(w) for w in split(e)[0]) for e in ALL_EXAMPLES}
    assert set(NOT_RUN) <= shown  # no stale exclusion hides a removed example


def test_every_cli_example_runs_on_the_demo_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write `-o camden.csv` write here
    home = tmp_path / "data"
    env = {
        "XDG_DATA_HOME": str(home),
        "SCHOOLDATA_HOME": None,
        "SCHOOLDATA_DATABASE_URL": None,
        "SCHOOLDATA_KEY_SECRET": None,
        "SCHOOLDATA_CONFIG": None,
    }
    production = runtime()
    # The production bootstrap, built once for all the examples (the demo build is the slow
    # part): each example still runs through the CLI, its options and its error boundary.
    build = functools.cache(production.build_app)
    wired = attrs.evolve(production, build_app=lambda settings, **kw: build(settings, **kw))
    failures: list[str] = []
    ran = 0
    for example in ALL_EXAMPLES:
        words, code = split(example)
        if " ".join(shlex.quote(w) for w in words) in NOT_RUN:
            continue
        result: Any = CliRunner().invoke(cli, words, obj=wired, env=env)
        ran += 1
        if result.exit_code != code:
            failures.append(f"{example!r}: exit {result.exit_code}: {result.output[-300:]}")
    assert not failures, "\n".join(failures)
    assert ran >= 50
    assert (tmp_path / "camden.csv").read_text(encoding="utf-8").startswith("urn,name,")
    # cli.md's walk-through goes on in Python over the files its examples wrote.
    for block in walkthrough_python(ROOT / "docs" / "cli.md"):
        finished = subprocess.run(
            [sys.executable, "-c", block],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert finished.returncode == 0, finished.stderr[-2000:]
        assert finished.stdout.strip(), "the walk-through printed nothing"


def walkthrough_python(path: Path) -> list[str]:
    """The Python blocks of a document's walk-through section."""
    section = path.read_text(encoding="utf-8").split("### Walk-through", 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]


def test_the_cli_guide_has_a_walk_through_in_python() -> None:
    [block] = walkthrough_python(ROOT / "docs" / "cli.md")
    assert "read_parquet" in block and "pivot" in block
