"""The build backend: setuptools', asking for the compiled build's requirements only when the
build will compile (`compile_plan`).

setuptools' static `requires` list cannot depend on the machine: listing mypy and the
package's dependencies there would make every pure-Python build install them for nothing,
and leaving them out makes the compiled build's type check see every library as `Any` and
fail. PEP 517's `get_requires_for_build_*` hooks are the standard place for such a choice.
"""

from __future__ import annotations

from typing import Any

from compile_plan import compile_requirements
from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (every hook not defined here is setuptools')


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*build_meta.get_requires_for_build_wheel(config_settings), *compile_requirements()]


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*build_meta.get_requires_for_build_editable(config_settings), *compile_requirements()]
