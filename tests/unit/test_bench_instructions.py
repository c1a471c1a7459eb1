"""bench.instructions reads callgrind's dumps right: per variant, the second dump (twice the
requests) less the first, over the request count, is one request's instructions."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench import instructions


def _dump(directory: Path, number: int, trigger: str, total: int) -> None:
    (directory / f"callgrind.out.123.{number}").write_text(
        f"version: 1\ncreator: callgrind-3.19.0\ndesc: Trigger: dump {trigger}\n"
        f"events: Ir\nsummary: {total}\ntotals: {total + 5}\n"
    )


def test_the_dumps_are_read_by_variant_and_step(tmp_path: Path) -> None:
    _dump(tmp_path, 1, "v0-1", 1_000_000)
    _dump(tmp_path, 2, "v0-2", 2_100_000)
    _dump(tmp_path, 3, "v2-1", 7)
    (tmp_path / "callgrind.out.123").write_text("desc: Trigger: Program termination\nsummary: 9\n")
    totals = instructions._totals(tmp_path)
    assert totals == {
        "anonymous twin": {1: 1_000_000, 2: 2_100_000},
        "keyed, whole admission free": {1: 7},
    }


def test_a_variant_without_both_dumps_is_an_error_not_a_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(instructions.shutil, "which", lambda _name: "/usr/bin/true")
    monkeypatch.setattr(instructions.dataset, "build", lambda *_a, **_k: {})
    monkeypatch.setattr(instructions.subprocess, "run", lambda *_a, **_k: None)
    with pytest.raises(RuntimeError, match="callgrind dumps missing"):
        instructions.measure("quick", 1000)
