"""A JSON request body read as Litestar's request would read it: by its first Content-Type."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Request

from schooldata.domain.errors import InvalidParameter
from schooldata.entrypoints.http.request import read
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.rest.bodies import json_body

TABLE = RouteTable()


def _scope(*content_types: bytes) -> dict[str, Any]:
    headers = [(b"host", b"example.org")] + [(b"content-type", c) for c in content_types]
    return {"type": "http", "method": "POST", "path": "/", "query_string": b"", "headers": headers}


@pytest.mark.parametrize(
    "content_types",
    [
        (b"application/json",),
        (b"Application/JSON; charset=utf-8",),
        (b"application/vnd.api+json",),
        (b"application/json", b"text/plain"),
        (b"text/plain", b"application/json"),
        (b"text/plain",),
        (),
    ],
)
def test_the_body_is_json_exactly_when_litestar_would_read_its_content_type_as_json(
    content_types: tuple[bytes, ...],
) -> None:
    scope = _scope(*content_types)
    litestar_reads = Request(scope).headers.get("content-type", "")  # type: ignore[arg-type]
    is_json = litestar_reads.partition(";")[0].strip().lower() in (
        "application/json",
        "application/vnd.api+json",
    )
    content_type = read(scope, "req_" + "A" * 20, TABLE).content_type
    if is_json:
        assert json_body(content_type, b'{"urns": ["100000"]}') == {"urns": ["100000"]}
    else:
        with pytest.raises(InvalidParameter):
            json_body(content_type, b'{"urns": ["100000"]}')
