"""Every curl and Python example in README.md and docs/ runs, as written, against a live demo
server (`schooldata serve` on a free port, its own embedded demo): `http://127.0.0.1:8000` is
that server and `svc_live_...` a key made for the test, so anonymous examples run without a
key and keyed ones with it. The CLI examples are run by test_cli_doc_examples.py; the docs
pages' doctests by test_library_docs.py. What cannot run here is listed with its reason."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.servers import free_port

ROOT = Path(__file__).parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SCHOOLDATA = Path(sys.executable).parent / "schooldata"
DOCUMENTED_SERVER = "http://127.0.0.1:8000"
KEY_PLACEHOLDER = "svc_live_..."
KEYS_CREATE = (str(SCHOOLDATA), "keys", "create", "--org", "docs", "--name", "examples")
KEYS_CREATE += ("--plan", "enterprise")

# Python blocks that cannot run here, by their first line, and why.
NOT_RUN = {
    "from schooldata import open_database": "opens a deployment's own SQLite and PostgreSQL "
    "databases (the embedded demo line is run by test_library_docs.py)",
    'CliRunner().invoke(cli, ["--format", "json", "search", "st mary"], obj=runtime)': (
        "a fragment of the CLI's tests: `runtime` is the test's injected object"
    ),
    "import pandas as pd": "cli.md's walk-through reads the files its CLI examples write: "
    "test_cli_doc_examples.py runs it after them",
}
# What a block needs defined before it runs: the placeholders the page's prose explains.
PRELUDE = {
    "from schooldata.bootstrap import bootstrap_memory": (
        "from tests.support.dataset import build_store\nmy_store = build_store()\n"
    ),
}


def code_blocks(path: Path, language: str) -> Iterator[str]:
    """The code blocks of one language in a document (doctest blocks, `>>>`, excepted)."""
    block: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if block is None:
            if line.strip() == f"```{language}":
                block = []
        elif line.strip() == "```":
            text = "\n".join(block)
            if not text.lstrip().startswith(">>>"):
                yield text
            block = None
        else:
            block.append(line)


def curl_commands(path: Path) -> Iterator[str]:
    """Each `curl` command of the sh blocks, with its continuation lines and any quoted text
    spanning lines (a JSON body)."""
    for block in code_blocks(path, "sh"):
        lines = iter(block.splitlines())
        for line in lines:
            if not line.startswith("curl "):
                continue
            command = line
            while command.endswith("\\") or not _balanced(command):
                command = command.removesuffix("\\") + "\n" + next(lines)
            yield command


def _balanced(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:
        return False
    return True


ALL_CURL = [(path.name, command) for path in DOCUMENTS for command in curl_commands(path)]
ALL_PYTHON = [(path.name, block) for path in DOCUMENTS for block in code_blocks(path, "python")]


def _first_line(block: str) -> str:
    return block.strip().splitlines()[0]


# architecture.md quotes the source (its worked example), checked against it below.
RUN_PYTHON = [
    (doc, block)
    for doc, block in ALL_PYTHON
    if _first_line(block) not in NOT_RUN and doc != "architecture.md"
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, dict[str, str]]]:
    """(base URL, a key, the environment) of a demo server built and served as a user would."""
    home = tmp_path_factory.mktemp("demo-home")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SCHOOLDATA_")},
        "SCHOOLDATA_HOME": str(home),
        "SCHOOLDATA_LOG_FORMAT": "text",
    }
    created = subprocess.run(
        [*KEYS_CREATE, "--json"],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    key = json.loads(created.stdout)["key"]
    port = free_port()
    server = subprocess.Popen(
        [str(SCHOOLDATA), "serve", "--port", str(port)],
        env=env,
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/ready", timeout=2) as ready:
                    if ready.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None, "schooldata serve stopped"
            assert time.monotonic() < deadline, "schooldata serve did not become ready"
            time.sleep(0.3)
        yield base, key, env
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_documents_hold_the_examples_this_test_runs() -> None:
    assert len(ALL_CURL) >= 6 and len(RUN_PYTHON) >= 3
    assert any("Authorization: Bearer svc_live_..." in c for _, c in ALL_CURL)
    python_first_lines = {_first_line(block) for _, block in ALL_PYTHON}
    assert set(NOT_RUN) <= python_first_lines  # no stale exclusion hides a removed example
    assert set(PRELUDE) <= python_first_lines


INCLUDE_HEADERS = ("-i", "--include")
ASKS_FOR_CSV = "Accept: text/csv"


@pytest.mark.parametrize(("document", "command"), ALL_CURL, ids=lambda v: str(v)[:60])
def test_every_curl_example_answers_2xx_with_json(
    demo: tuple[str, str, dict[str, str]], document: str, command: str
) -> None:
    """A 2xx with its JSON, or its CSV when the example asks for CSV; an example that shows
    the headers (`-i`) shows a status line and headers before that body."""
    base, key, env = demo
    assert DOCUMENTED_SERVER in command, "an example for the local server"
    text = command.replace(DOCUMENTED_SERVER, base).replace(KEY_PLACEHOLDER, key)
    words = shlex.split(text)
    argv = [*words, "--silent", "--show-error", "--write-out", "\n%{http_code}"]
    finished = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr
    body, _, status = finished.stdout.rpartition("\n")
    assert status.startswith("2"), f"{document}: {status} {body[:300]}"
    if set(words) & set(INCLUDE_HEADERS):
        head, _, body = body.partition("\n\n")  # (text mode reads CRLF as LF)
        assert head.startswith("HTTP/") and "x-request-id:" in head.lower(), head[:300]
    if ASKS_FOR_CSV in command:
        rows = list(csv.reader(io.StringIO(body)))
        assert len(rows) >= 2 and rows[0][0] == "urn", body[:300]
        assert all(len(row) == len(rows[0]) for row in rows), "every row has every column"
        return
    answer = json.loads(body)
    assert "error" not in answer, answer
    assert answer.get("result", {}).get("isError") is not True, answer
    if KEY_PLACEHOLDER in command:  # a keyed example is answered in the commercial tier
        assert "meta" in answer or "result" in answer


@pytest.mark.parametrize(("document", "block"), RUN_PYTHON, ids=lambda v: str(v)[:50])
def test_every_python_example_runs(
    demo: tuple[str, str, dict[str, str]], document: str, block: str, tmp_path: Path
) -> None:
    first = _first_line(block)
    base, key, env = demo
    program = PRELUDE.get(first, "") + block.replace(DOCUMENTED_SERVER, base)
    program = program.replace(f'"{KEY_PLACEHOLDER}"', repr(key))
    script = tmp_path / "example.py"
    script.write_text(program, encoding="utf-8")
    finished = subprocess.run(
        [sys.executable, str(script)],
        env={**env, "PYTHONPATH": str(ROOT), "SCHOOLDATA_API_KEY": key},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, f"{document}:\n{finished.stderr[-2000:]}"
    assert not re.search(r"\b(Error|Traceback)\b", finished.stderr), finished.stderr


ARCHITECTURE = ROOT / "docs" / "architecture.md"
# The worked example's excerpts and the files they are taken from.
EXCERPT_SOURCES = {
    "def look_up(": "src/schooldata/application/lookup.py",
    "LOOKUP: Operation[": "src/schooldata/application/operations/records.py",
    '"lookupSchools": _keyed(': "src/schooldata/entrypoints/answers.py",
}


def test_the_architecture_guides_worked_example_is_the_code_in_the_repository() -> None:
    excerpts = list(code_blocks(ARCHITECTURE, "python"))
    assert {next(p for p in EXCERPT_SOURCES if b.startswith(p)) for b in excerpts} == set(
        EXCERPT_SOURCES
    )
    for excerpt in excerpts:
        source = next(
            path for prefix, path in EXCERPT_SOURCES.items() if excerpt.startswith(prefix)
        )
        code = (ROOT / source).read_text(encoding="utf-8")
        assert excerpt in code, f"{source} no longer holds:\n{excerpt}"
