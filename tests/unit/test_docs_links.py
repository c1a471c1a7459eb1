"""The README and docs/ stand alone: every relative link resolves to a file of this
repository, and nothing points at files a clone does not have (the contract's working copies
live outside it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\.\./shared/|\bDECISIONS\.md|[^a-z/]MCP\.md")


def relative_links(page: Path) -> list[str]:
    targets = [m.group(1) for m in LINK.finditer(page.read_text("utf-8"))]
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        resolved = (page.parent / target.split("#", 1)[0]).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert not broken, f"{page.name}: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_refers_to_files_outside_the_repository(page: Path) -> None:
    lines = page.read_text("utf-8").splitlines()
    outside = [f"{n}: {line}" for n, line in enumerate(lines, 1) if OUTSIDE.search(line)]
    assert not outside, outside
