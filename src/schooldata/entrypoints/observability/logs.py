"""Logs go through the standard library, one configuration for the whole process.

`logging_config(format)` is a `dictConfig` with a JSON (`json`) or plain (`text`) formatter;
`configure_logging(format)` applies it. Both formatters pass every line through `redact`, a
last line of defence that masks anything shaped like an API key, a bearer token or a key in a
query string: the service itself never logs a key (DECISIONS: Authentication 2 and 5). Every
string value of a line (a query string, a path) is capped at `MAX_LOGGED_VALUE` characters,
redacted whole before it is cut (`capped`).
"""

from __future__ import annotations

import datetime as dt
import logging
import logging.config
import math
import re
from collections.abc import Mapping
from typing import Any, Final

import msgspec
from mypy_extensions import mypyc_attr

# --------------------------------------------------------------------------------------------
# Redaction: the safety net under every log line.

# No word boundary before the prefix: a key glued to other text (`abcsvc_live_...` in a path)
# is still a key (as in domain/errors.py).
_KEY_SHAPED = re.compile(r"(svc_(?:live|test)_[0-9A-Za-z]{4})[0-9A-Za-z]+")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+")
_QUERY_SECRET = re.compile(r"(?i)([?&;](?:api_?key|key|access_token|token)=)[^&\s\"'#]*")
_HEADER_SECRET = re.compile(r"(?i)(x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]+")
REDACTED = "[redacted]"
# Every pattern above needs one of these (case-insensitively) to match: more of a key than
# its display prefix (which keyed access lines always carry), the bearer scheme, a key-named
# query parameter followed by "=", the X-API-Key header's name.
_REDACTION_MARKER = re.compile(r"(?i)svc_(?:live|test)_[0-9a-z]{5}|bearer|key=|token=|x-api-key")
# _KEY_SHAPED's matches, found without substituting anything: a literal prefix, a fast scan.
_KEY_SHAPED_SCREEN = re.compile(r"svc_(?:live|test)_[0-9A-Za-z]{5}")


def _mask_prefix(match: re.Match[str]) -> str:
    return f"{match.group(1)}{REDACTED}"


def redact(text: str) -> str:
    """Mask key-shaped strings (keeping the display prefix), bearer tokens, `X-API-Key`
    values and key-named query parameters."""
    if not text:
        return text
    if not text.isascii():  # (O(1)) case-insensitive matching beyond ASCII: the full screen
        return redact_fully(text) if _REDACTION_MARKER.search(text) else text
    # Every log line passes here: each pattern runs only where its own literal part occurs
    # (ASCII: lower() is exactly what (?i) matches), four substring scans instead of regexes.
    if "svc_" in text and _KEY_SHAPED_SCREEN.search(text) is not None:
        text = _KEY_SHAPED.sub(_mask_prefix, text)
    lowered = text.lower()
    if "bearer" in lowered:
        text = _BEARER.sub(_mask_prefix, text)
    if "key=" in lowered or "token=" in lowered:
        text = _QUERY_SECRET.sub(_mask_prefix, text)
    if "x-api-key" in lowered:
        text = _HEADER_SECRET.sub(_mask_prefix, text)
    return text


# The longest string value a log line carries: a longer one (a 60 KB query string, a path, a
# user agent) keeps its first MAX_LOGGED_VALUE characters and a marker saying how many went.
MAX_LOGGED_VALUE: Final = 1024


def capped(value: str, limit: int = MAX_LOGGED_VALUE) -> str:
    """`value` itself when it is at most `limit` characters; else redacted whole first (so a
    cut can never leave part of a key that redaction would have masked), then cut:
    `<first limit characters>...[cut N chars]`."""
    if len(value) <= limit:
        return value
    text = redact(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...[cut {len(text) - limit} chars]"


def cap_strings(fields: dict[str, Any]) -> None:
    """Every string value of `fields` through `capped`, in place."""
    for name, value in fields.items():
        if type(value) is str and len(value) > MAX_LOGGED_VALUE:
            fields[name] = capped(value)


def redact_fully(text: str) -> str:
    """Every pattern over the whole text: the rule `redact` must always agree with."""
    text = _KEY_SHAPED.sub(_mask_prefix, text)
    text = _BEARER.sub(_mask_prefix, text)
    text = _QUERY_SECRET.sub(_mask_prefix, text)
    return _HEADER_SECRET.sub(_mask_prefix, text)


# --------------------------------------------------------------------------------------------
# Logging: JSON or text, one configuration for the whole process.

_RECORD_ATTRIBUTES: Final = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _RECORD_ATTRIBUTES}


# Python classes in this compiled module (setup.py): a native class cannot extend `logging`'s.
@mypyc_attr(native_class=False)
class JsonFormatter(logging.Formatter):
    """One JSON object per line: `ts`, `level`, `logger`, `message`, any `extra` fields, and
    `exception` (the formatted traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        message = capped(record.getMessage())
        entry = json_entry(record.created, record.levelname, record.name, message)
        extras = _extras(record)
        cap_strings(extras)
        for name, value in extras.items():
            entry.setdefault(name, value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json_line(entry)


def json_entry(created: float, level: str, logger: str, message: str) -> dict[str, Any]:
    """The fields every JSON log line starts with."""
    return {
        "ts": timestamp(created),
        "level": level.lower(),
        "logger": logger,
        "message": message,
    }


_last_second: tuple[int, str] = (-1, "")


def timestamp(created: float) -> str:
    """ISO 8601 UTC to the millisecond, exactly as `datetime.fromtimestamp(created, UTC)
    .isoformat(timespec="milliseconds")` writes it; the date and time to the second are
    reused within their second (a busy server logs thousands of lines a second)."""
    global _last_second
    # fromtimestamp rounds the fraction to whole microseconds (half to even), then isoformat
    # truncates to milliseconds: the same steps here give the same millisecond.
    whole = math.floor(created)
    micro = round((created - whole) * 1e6)
    if micro >= 1_000_000:
        whole, micro = whole + 1, micro - 1_000_000
    last = _last_second
    if last[0] != whole:
        moment = dt.datetime.fromtimestamp(whole, dt.UTC)
        last = _last_second = (whole, moment.isoformat(timespec="seconds")[:19])
    return last[1] + _MILLISECONDS[micro // 1000]


# `.000+00:00` to `.999+00:00`: formatting `:03d` is a method call per line.
_MILLISECONDS: Final = tuple(f".{milli:03d}+00:00" for milli in range(1000))


# One encoder for every log line: `json.dumps` with options builds a new encoder per call
# (~2 us of the ~6 us a line costs).
_LINE_ENCODER: Final = msgspec.json.Encoder(enc_hook=str)


def json_line(entry: Mapping[str, Any] | msgspec.Struct) -> str:
    """One compact JSON object (msgspec: several times the standard encoder's speed, and
    every request writes one), redacted; a Struct gives its fields in their order."""
    return redact(_LINE_ENCODER.encode(entry).decode())


@mypyc_attr(native_class=False)
class TextFormatter(logging.Formatter):
    """`2025-01-01T00:00:00.000Z info schooldata.access request key=value ...`"""

    def format(self, record: logging.LogRecord) -> str:
        stamp = dt.datetime.fromtimestamp(record.created, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        extras = _extras(record)
        cap_strings(extras)
        fields = " ".join(f"{k}={v}" for k, v in extras.items() if v is not None)
        line = f"{stamp}.{int(record.msecs):03d}Z {record.levelname.lower()} {record.name} "
        line += capped(record.getMessage()) + (f" {fields}" if fields else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return redact(line)


FORMATTERS: Final[Mapping[str, type[logging.Formatter]]] = {
    "json": JsonFormatter,
    "text": TextFormatter,
}


def logging_config(log_format: str = "json", level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the process: one stderr handler with the chosen
    formatter on the root logger; uvicorn's loggers propagate to it, and uvicorn's own access
    log is silenced (it would print query strings; `schooldata.access` replaces it). Hand it
    to `uvicorn.run(log_config=...)` so that every worker process applies it."""
    if log_format not in FORMATTERS:
        raise ValueError(f"log format must be one of {sorted(FORMATTERS)}, got {log_format!r}")
    quiet = {"level": "WARNING", "handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": {"()": FORMATTERS[log_format]}},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"level": level, "handlers": ["default"]},
        "loggers": {
            "uvicorn": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.error": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
            "httpx": quiet,
            "httpcore": quiet,
            # Alembic says at INFO which of its plugins it set up, on every migration (a first start).
            "alembic.runtime.plugins": quiet,
        },
    }


def configure_logging(log_format: str = "json", level: str = "INFO") -> None:
    logging.config.dictConfig(logging_config(log_format, level))
    # Neither format shows thread or process names, and the access log writes a record per
    # request: do not collect them (the logging HOWTO's "Optimization" switches).
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
