"""pyproject.toml declares what the code imports, ships the files it reads, and the lock files
`make` installs from still satisfy it (a dependency added without `make lock` fails here)."""

from __future__ import annotations

import ast
import glob
import importlib.metadata
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
PACKAGE = ROOT / "src" / "schooldata"
# What each optional extra is for: code importing these must say which extra it needs.
EXTRA_OF = {
    "psycopg": "postgres",
    "redis": "redis",
    "opentelemetry": "otel",
    "pandas": "pandas",
    "polars": "polars",
    "pyarrow": "parquet",
}
EXTRAS = ("postgres", "redis", "otel", "pandas", "polars", "parquet")


def requirements(extra: str | None = None) -> list[Requirement]:
    declared = PROJECT["dependencies"] if extra is None else PROJECT["optional-dependencies"][extra]
    return [Requirement(text) for text in declared]


def imported_top_level_modules() -> set[str]:
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"schooldata", "__future__"}


def test_every_directly_imported_distribution_is_declared() -> None:
    distributions = importlib.metadata.packages_distributions()
    runtime = {canonicalize_name(r.name) for r in requirements()}
    undeclared = []
    for module in sorted(imported_top_level_modules()):
        owners = {canonicalize_name(d) for d in distributions.get(module, [])}
        assert owners, f"{module} is imported but no installed distribution provides it"
        extra = EXTRA_OF.get(module)
        declared = (
            runtime if extra is None else {canonicalize_name(r.name) for r in requirements(extra)}
        )
        if not owners & declared:
            undeclared.append(
                f"{module} ({', '.join(sorted(owners))}) in {extra or 'dependencies'}"
            )
    assert not undeclared, undeclared


def test_the_embedded_default_installs_none_of_the_extras() -> None:
    runtime = {canonicalize_name(r.name) for r in requirements()}
    for extra in EXTRAS:
        assert not runtime & {canonicalize_name(r.name) for r in requirements(extra)}
    assert "uvicorn" not in runtime  # granian serves; uvicorn is for tests only
    [itself] = [r for r in requirements("dev") if r.name == "schooldata"]
    assert itself.extras == set(EXTRAS)  # CI tests every one


def test_every_package_data_pattern_matches_a_file() -> None:
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]
    for pattern in tool["setuptools"]["package-data"]["schooldata"]:
        assert glob.glob(str(PACKAGE / pattern), recursive=True), pattern


def pins(lock: str) -> dict[str, list[tuple[str, str]]]:
    """name -> [(version, marker)]: a universal lock may pin one name per Python version."""
    found: dict[str, list[tuple[str, str]]] = {}
    for line in (ROOT / "requirements" / lock).read_text("utf-8").splitlines():
        if not line or not line[0].isalpha():
            continue
        requirement = Requirement(line.rstrip(" \\"))
        [specifier] = requirement.specifier
        assert specifier.operator == "==", line
        marker = str(requirement.marker) if requirement.marker else ""
        found.setdefault(canonicalize_name(requirement.name), []).append(
            (specifier.version, marker)
        )
    return found


def pinned_here(lock: dict[str, list[tuple[str, str]]], name: str) -> str | None:
    """The version pinned for this interpreter, if any."""
    environment = default_environment()
    for version, marker in lock.get(canonicalize_name(name), []):
        if not marker or Requirement(f"x; {marker}").marker.evaluate(environment):  # type: ignore[union-attr]
            return version
    return None


@pytest.mark.parametrize(
    ("lock", "extras"),
    [("runtime.txt", ()), ("dev.txt", (*EXTRAS, "dev"))],
)
def test_each_lock_file_satisfies_pyproject(lock: str, extras: tuple[str, ...]) -> None:
    locked = pins(lock)
    stale = []
    for requirement in [r for e in (None, *extras) for r in requirements(e)]:
        if canonicalize_name(requirement.name) == "schooldata":
            continue  # the dev extra's own extras, checked above
        if requirement.marker and not requirement.marker.evaluate():
            continue
        version = pinned_here(locked, requirement.name)
        if version is None or version not in requirement.specifier:
            stale.append(f"{requirement} (locked: {version})")
    assert not stale, f"run `make lock`: {stale}"


def test_the_runtime_lock_is_the_dev_lock_without_the_extras_and_tools() -> None:
    runtime, dev = pins("runtime.txt"), pins("dev.txt")

    def versions(lock: dict[str, list[tuple[str, str]]], name: str) -> set[str]:
        return {version for version, _ in lock[name]}

    assert all(versions(runtime, name) == versions(dev, name) for name in runtime)
    for extra in ("postgres", "redis", "pandas", "polars", "parquet"):
        for requirement in requirements(extra):
            assert canonicalize_name(requirement.name) not in runtime
    assert "opentelemetry-sdk" not in runtime and "pytest" not in runtime
