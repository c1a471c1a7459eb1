"""Raw parameters from any face -> validated values. One set of rules for REST, MCP and CLI."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping

from schooldata.domain.errors import InvalidParameter

Params = Mapping[str, object]
# Any page past the last is answered (empty data, true totals: DECISIONS); the bound only keeps
# page numbers in a 32-bit integer for every store and client.
MAX_PAGE = 2_147_483_647
# One optional sign, then ASCII digits: `--5`, `١٢` and `1e3` are not integers here.
_INTEGER = re.compile(r"[+-]?[0-9]+")
# Beyond any bound a parameter has; an integer written longer than this is refused by its
# bound, unread (reading one costs time in the square of its length).
_MAX_DIGITS = 100
# A plain ASCII decimal, optionally with an exponent. Python's float() also takes `1_0`,
# full-width and other Unicode digits, `inf` and `nan`: none of those is a number here.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")


def decimal(name: str, raw: str) -> float:
    """The number a parameter's text spells (surrounding spaces allowed), or a clear 400."""
    stripped = raw.strip()
    # ASCII digits alone (a radius, a page) are a decimal without asking the regex.
    if not (stripped.isascii() and stripped.isdigit()) and _DECIMAL.fullmatch(stripped) is None:
        raise InvalidParameter(name, f"{name} must be a number.")
    value = float(stripped)
    if not math.isfinite(value):
        raise InvalidParameter(name, f"{name} must be a finite number.")
    return value


def text(
    params: Params, name: str, *, min_length: int = 1, max_length: int | None = 200
) -> str | None:
    """A text parameter without its surrounding spaces. Its length bounds count the text as
    sent (the contract's and the documents' minLength/maxLength), as the public query's do."""
    value = params.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidParameter(name, f"{name} must be a string.")
    if len(value) < min_length:
        raise InvalidParameter(name, f"{name} must be at least {min_length} characters long.")
    if max_length is not None and len(value) > max_length:
        raise InvalidParameter(name, f"{name} must be at most {max_length} characters long.")
    return value.strip()


def integer(
    params: Params, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidParameter(name, f"{name} must be an integer.")
    if isinstance(value, str):
        stripped = value.strip()
        if _INTEGER.fullmatch(stripped) is None:
            raise InvalidParameter(name, f"{name} must be an integer.")
        if len(stripped.lstrip("+-").lstrip("0")) > _MAX_DIGITS:
            raise _too_long(name, stripped.startswith("-"), minimum, maximum)
        value = int(stripped)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise InvalidParameter(name, f"{name} must be an integer.")
    _bounds(name, value, minimum, maximum)
    return value


def number(
    params: Params, name: str, *, minimum: float | None = None, maximum: float | None = None
) -> float | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidParameter(name, f"{name} must be a number.")
    if isinstance(value, str):
        value = decimal(name, value)
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidParameter(name, f"{name} must be a finite number.")
    _bounds(name, float(value), minimum, maximum)
    return float(value)


_TRUTH = {"true": True, "false": False}


def boolean(params: Params, name: str) -> bool:
    """true or false: a JSON boolean, or the text `true` / `false` in any case."""
    value = params.get(name)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUTH:
        return _TRUTH[value.strip().lower()]
    raise InvalidParameter(name, f"{name} must be true or false.")


def choice(params: Params, name: str, options: Collection[str]) -> str | None:
    value = text(params, name)
    if value is None:
        return None
    lowered = value.lower()
    if lowered not in options:
        raise InvalidParameter(name, f"{name} must be one of: {', '.join(options)}.")
    return lowered


def _too_long(
    name: str, negative: bool, minimum: float | None, maximum: float | None
) -> InvalidParameter:
    """An integer of more than _MAX_DIGITS digits: the bound it is beyond, when there is one."""
    if (minimum if negative else maximum) is None:
        return InvalidParameter(name, f"{name} must be an integer of at most {_MAX_DIGITS} digits.")
    return InvalidParameter(name, _range(name, minimum, maximum, below=negative))


def _bounds(name: str, value: float, minimum: float | None, maximum: float | None) -> None:
    below = minimum is not None and value < minimum
    if below or (maximum is not None and value > maximum):
        raise InvalidParameter(name, _range(name, minimum, maximum, below=below))


def _range(name: str, minimum: float | None, maximum: float | None, *, below: bool) -> str:
    if minimum is not None and maximum is not None:
        return f"{name} must be between {_num(minimum)} and {_num(maximum)}."
    if below and minimum is not None:
        return f"{name} must be at least {_num(minimum)}."
    assert maximum is not None, "a value beyond its bounds is below a minimum or above a maximum"
    return f"{name} must be at most {_num(maximum)}."


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
