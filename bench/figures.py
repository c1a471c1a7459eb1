"""How the small in-process benchmarks (`metrics_cost`, `refusal_cost`) hand over their
figures: JSON on stdout, and a file for the docs when asked."""

from __future__ import annotations

import json
from pathlib import Path


def emit(figures: object, path: Path | None) -> int:
    text = json.dumps(figures, indent=2)
    print(text)
    if path is not None:
        path.write_text(text + "\n")
    return 0
