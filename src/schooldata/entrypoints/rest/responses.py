"""The pipeline's answers and refusals as HTTP: statuses, headers, bodies.

A `Reply` is bytes and encoded headers: the registry's GETs send it as it is (`dispatch`), a
Litestar handler hands it over as Litestar's low-level `ASGIResponse`; a `Response` would be
converted on every request (about half of a small answer's cost in Litestar, measured in
docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from litestar import Response
from litestar.response.base import ASGIResponse

from schooldata.application.pipeline import Outcome, Refused
from schooldata.domain.keys import AuthenticationFailed
from schooldata.domain.metering import METER_HEADERS, MeterReading
from schooldata.entrypoints.refusals import error_body, status_of
from schooldata.entrypoints.rest.transport import Send

# A list answer as CSV: RFC 4180 rows in UTF-8.
CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
NO_STORE = {"Cache-Control": "no-store"}
AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="schooldata"'}
JSON = "application/json"


class Reply:
    """A whole HTTP answer, its headers encoded (content type and length included)."""

    __slots__ = ("body", "headers", "status")

    def __init__(
        self,
        status: int,
        body: bytes,
        media_type: str,
        headers: Mapping[str, str] | None,
        encoded: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """`encoded`: more headers, already encoded, sent after `headers`."""
        self.status = status
        self.body = body
        self.headers = [
            (b"content-type", media_type.encode()),
            (b"content-length", b"%d" % len(body)),
        ]
        if headers:
            self.headers += [(_name(k), v.encode("latin-1")) for k, v in headers.items()]
        if encoded:
            self.headers += encoded

    async def send(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})

    def asgi(self) -> ASGIResponse:
        """As a Litestar route handler answers."""
        headers = [(k.decode(), v.decode("latin-1")) for k, v in self.headers]
        return ASGIResponse(body=self.body, status_code=self.status, headers=headers)


_NAMES: dict[str, bytes] = {}  # the app's own header names (constants), lowered and encoded
MAX_NAMES = 64


def _name(name: str) -> bytes:
    lowered = _NAMES.get(name)
    if lowered is None:
        lowered = name.lower().encode("latin-1")
        if len(_NAMES) < MAX_NAMES:
            _NAMES[name] = lowered
    return lowered


def success_response(
    outcome: Outcome,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    media_type: str = JSON,
) -> Reply:
    """`body` is the answer already encoded (JSON, or a list's CSV)."""
    if not outcome.keyed:
        return Reply(200, body, media_type, headers)
    reading = outcome.reading
    encoded = [] if reading is None else meter_headers(reading)
    encoded.append(_NO_STORE)
    return Reply(200, body, media_type, headers, encoded)


_METER_NAMES = tuple(name.lower().encode("latin-1") for name in METER_HEADERS)
_NO_STORE = (b"cache-control", b"no-store")


def meter_headers(reading: MeterReading) -> list[tuple[bytes, bytes]]:
    """`reading.headers()` encoded, written here: every keyed answer sends them."""
    return [
        (name, b"%d" % (value if value > 0 else 0))
        for name, value in zip(_METER_NAMES, reading, strict=True)
    ]


def refusal_response(
    refused: Refused, *, request_id: str, headers: Mapping[str, str] | None = None
) -> Reply:
    status, body, extra = _refusal(refused, request_id=request_id, headers=headers)
    return Reply(status, body, JSON, extra)


def refusal_as_response(refused: Refused, *, request_id: str) -> Response[bytes]:
    """The same refusal as a `Response`, for Litestar's exception handlers (which must
    answer with one)."""
    status, body, extra = _refusal(refused, request_id=request_id, headers=None)
    return Response(body, media_type=JSON, status_code=status, headers=extra or None)


def _refusal(
    refused: Refused, *, request_id: str, headers: Mapping[str, str] | None
) -> tuple[int, bytes, dict[str, str]]:
    error = refused.error
    extra = dict(headers or {})
    if refused.keyed:
        if refused.reading is not None:
            extra.update(refused.reading.headers())
        if refused.retry_after is not None:
            extra["Retry-After"] = str(refused.retry_after)
        if isinstance(error, AuthenticationFailed):
            extra.update(AUTHENTICATE)
        extra.update(NO_STORE)
    details = {k: v for k, v in error.details.items() if k != "retry_after"}
    body = msgspec.json.encode(error_body(refused, request_id=request_id, details=details))
    return status_of(error), body, extra
