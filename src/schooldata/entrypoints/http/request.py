"""One HTTP request, read once at the edge into a typed value every later step reads.

The edge (`rest/edge.py`) reads the ASGI scope's headers in one pass and matches the path in
the one route table (`route_table.py`); the result is an `HttpRequest` kept in the scope
under `REQUEST_KEY`, the only key this service adds to it. Faces mounted beside REST (MCP)
read their request id and base URL from it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlunsplit

from schooldata.application.pipeline import ANONYMOUS, Credentials
from schooldata.domain.credentials import single_header_value
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.http.route_table import Route, RouteTable

REQUEST_KEY: Final = "schooldata.request"


class HttpRequest:
    """What the edge read of one request. Set once when it is read, never changed after.

    `method` is as sent (HEAD included); `routed_method` is the method its route answers
    (HEAD is GET without the body). `credentials` are the credential headers with the
    single-header-value rule applied (`conflict`: the refusal of headers that name two keys;
    then `credentials` is anonymous). `route`/`params`: the route the path names and its
    path parameters (None: no route of the table, Litestar's to answer)."""

    __slots__ = (
        "accept",
        "accept_encoding",
        "acr_headers",
        "acr_method",
        "body_expected",
        "codings",
        "conflict",
        "content_length",
        "content_type",
        "credentials",
        "has_credentials",
        "head",
        "hosts",
        "http11",
        "id",
        "id_header",
        "if_none_match",
        "method",
        "options",
        "origin",
        "params",
        "path",
        "query",
        "root_path",
        "route",
        "routed_method",
        "scheme",
        "server",
    )

    def __init__(
        self,
        *,
        method: str,
        path: str,
        query: bytes,
        request_id: str,
        http11: bool,
        hosts: list[bytes],
        codings: list[bytes],
        body_expected: bool,
        authorization: list[str],
        x_api_key: list[str],
        accept: list[str],
        headers: dict[str, bytes],
        scope: Mapping[str, Any],
        route: Route | None,
        params: dict[str, str],
    ) -> None:
        self.method = method
        self.head = method == "HEAD"
        self.options = method == "OPTIONS"
        self.routed_method = "GET" if self.head else method
        self.path = path
        self.query = query
        self.id = request_id
        self.id_header = (b"x-request-id", request_id.encode())
        self.http11 = http11
        self.hosts = hosts
        self.codings = codings
        self.body_expected = body_expected
        self.has_credentials = bool(authorization or x_api_key)
        self.credentials = ANONYMOUS
        self.conflict: AuthenticationFailed | None = None
        if self.has_credentials:
            try:
                self.credentials = Credentials(
                    authorization=single_header_value(authorization, header="Authorization"),
                    x_api_key=single_header_value(x_api_key, header="X-API-Key"),
                )
            except AuthenticationFailed as error:
                self.conflict = error
        self.accept = ", ".join(accept) if accept else None
        self.accept_encoding = headers.get("accept_encoding")
        self.origin = headers.get("origin")
        self.if_none_match = headers.get("if_none_match")
        self.acr_method = headers.get("acr_method")
        self.acr_headers = headers.get("acr_headers")
        content_type = headers.get("content_type")
        self.content_type = None if content_type is None else content_type.decode("latin-1")
        self.content_length = _length(headers.get("content_length"))
        # What the base URL is made of, asked only where no base URL is configured (the
        # scope itself is not kept: it holds this request, and a cycle outlives its request).
        self.scheme = str(scope.get("scheme", "http"))
        self.server = scope.get("server")
        self.root_path = str(scope.get("app_root_path") or scope.get("root_path", ""))
        self.route = route
        self.params = params

    def base_url(self) -> str:
        """The request's base URL without a trailing slash (`base_url_of`)."""
        host = self.hosts[0] if self.hosts else None
        return base_url_from(self.scheme, self.server, self.root_path, host)


def read(scope: Mapping[str, Any], request_id: str, table: RouteTable) -> HttpRequest:
    """The request, read from the scope's headers in one pass, its path matched once."""
    hosts: list[bytes] = []
    codings: list[bytes] = []
    authorization: list[str] = []
    x_api_key: list[str] = []
    accept: list[str] = []
    seen: dict[str, bytes] = {}
    body = False
    wanted = WANTED
    for name, value in scope.get("headers", ()):
        field = wanted.get(name if type(name) is bytes and name.islower() else bytes(name).lower())
        if field is None:
            continue
        if field == "host":
            hosts.append(bytes(value))
        elif field == "authorization":
            authorization.append(bytes(value).decode("latin-1"))
        elif field == "x_api_key":
            x_api_key.append(bytes(value).decode("latin-1"))
        elif field == "accept":
            accept.append(bytes(value).decode("latin-1"))
        elif field == "coding":
            codings.append(bytes(value))
        elif field == "chunked":
            body = True
        else:
            if field == "content_length":
                body = body or bytes(value).strip() not in (b"0", b"")
            if field not in seen:
                seen[field] = bytes(value)
    path = str(scope.get("path", ""))
    found = table.match(path, str(scope.get("root_path") or ""))
    return HttpRequest(
        method=str(scope.get("method", "GET")),
        path=path,
        query=bytes(scope.get("query_string", b"")),
        request_id=request_id,
        http11=scope.get("http_version") == "1.1",
        hosts=hosts,
        codings=codings,
        body_expected=body,
        authorization=authorization,
        x_api_key=x_api_key,
        accept=accept,
        headers=seen,
        scope=scope,
        route=None if found is None else found[0],
        params={} if found is None else found[1],
    )


def _length(value: bytes | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def request_of(scope: Mapping[str, Any]) -> HttpRequest | None:
    found = scope.get(REQUEST_KEY)
    return found if isinstance(found, HttpRequest) else None


def request_id_in(scope: Mapping[str, Any]) -> str:
    """The request id the edge gave the request ("" outside the edge)."""
    found = scope.get(REQUEST_KEY)
    return found.id if isinstance(found, HttpRequest) else ""


def first_header(scope: Mapping[str, Any], name: bytes) -> str | None:
    """The first value of a request header as sent (`name` lower case), as Litestar's
    `request.headers.get` reads it."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def base_url_of(scope: Mapping[str, Any]) -> str:
    """The request's base URL without a trailing slash, as Litestar's `request.base_url`
    derives it: scheme, the Host header (else the server's address), the root path."""
    found = scope.get(REQUEST_KEY)
    if isinstance(found, HttpRequest):
        return found.base_url()
    host = None
    for name, value in scope.get("headers", ()):
        if name == b"host":
            host = bytes(value)
            break
    scheme = str(scope.get("scheme", "http"))
    root = str(scope.get("app_root_path") or scope.get("root_path", ""))
    return base_url_from(scheme, scope.get("server"), root, host)


def base_url_from(scheme: str, server: Any, root: str, host: bytes | None) -> str:
    """`base_url_of` with the Host header already found (the edge reads it in its pass)."""
    key = (scheme, host, None if server is None else tuple(server), root)
    found = _KNOWN.get(key)
    if found is None:
        found = _base_url(*key)
        if len(_KNOWN) >= MAX_KNOWN:  # a Host header is the client's to choose
            _KNOWN.clear()
        _KNOWN[key] = found
    return found


# A server sees a few base URLs (its host names and ports), each asked on every request.
MAX_KNOWN = 256
_KNOWN: dict[tuple[str, bytes | None, tuple[Any, ...] | None, str], str] = {}


def _base_url(scheme: str, host: bytes | None, server: tuple[Any, ...] | None, root: str) -> str:
    shown = "" if host is None else host.decode("latin-1")
    if server and not shown:
        shown, port = server
        if port != _DEFAULT_PORTS.get(scheme):
            shown = f"{shown}:{port}"
    return urlunsplit((scheme if server else "", shown, root + "/", "", "")).rstrip("/")


# Headers the edge reads, by lowered name, and the field each fills.
WANTED: Final = {
    b"host": "host",
    b"content-encoding": "coding",
    b"content-length": "content_length",
    b"transfer-encoding": "chunked",
    b"authorization": "authorization",
    b"x-api-key": "x_api_key",
    b"accept": "accept",
    b"content-type": "content_type",
    b"origin": "origin",
    b"accept-encoding": "accept_encoding",
    b"if-none-match": "if_none_match",
    b"access-control-request-method": "acr_method",
    b"access-control-request-headers": "acr_headers",
}
