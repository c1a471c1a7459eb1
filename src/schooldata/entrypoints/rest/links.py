"""Page links (RFC 8288): the URL of another page of the same list, and the `Link` header.

A page's URL is the base URL (the configured one, or the request's own), the operation's path
and the request's query string as sent, with `page` replaced (or added last): every other
parameter keeps its bytes, order and spelling. Bytes a URL may not hold as they are (a space,
`<`, `>`, `"`, raw UTF-8) are percent-encoded, so the header stays parseable and the value a
server decodes is the one the client sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import quote, unquote_to_bytes

from schooldata.entrypoints.wire.envelope import Pagination
from schooldata.entrypoints.wire.meta import page_numbers

# RFC 3986 query characters (pchar, "/", "?"), and "%" so existing escapes stay as sent.
_QUERY_SAFE = "!$&'()*+,;=:@/?%-._~"
_UNSAFE = re.compile(rb"[^A-Za-z0-9!$&'()*+,;=:@/?%\-._~]")
# A plain query: pairs of only the characters a URL may hold, none empty, their names free
# of `%` and `+` (which may decode to `page`).
_NAME = rb"[A-Za-z0-9!$'()*,;:@/?\-._~]"
_VALUE = rb"[A-Za-z0-9!$'()*+,;=:@/?%\-._~]"
_PAIR = rb"(?:" + _NAME + rb"+(?:=" + _VALUE + rb"*)?|=" + _VALUE + rb"*)"
_PLAIN = re.compile(_PAIR + rb"(?:&" + _PAIR + rb")*")
_AMPERSAND, _EQUALS = ord("&"), ord("=")


def _is_page(pair: bytes) -> bool:
    name = pair.partition(b"=")[0]
    if name.find(b"%") < 0 and name.find(b"+") < 0:  # nothing to decode: most names
        return name == b"page"
    return unquote_to_bytes(name.replace(b"+", b" ")) == b"page"


def page_urls(base: str, path: str, query: bytes) -> Callable[[int], str]:
    """The URL of any page of the list answered at `path` for `query`: the query is read and
    quoted once, around the place `page` takes (percent-encoding is byte by byte, so quoting
    the parts is quoting the whole)."""
    before, after = plain_around_page(query) or around_page(query)
    head = f"{base}{path}?{before}"
    return lambda page: f"{head}page={page}{after}"


def around_page(query: bytes) -> tuple[str, str]:
    """The query before `page=N` (each pair followed by `&`) and after it (each preceded by
    `&`), quoted: every pair but `page` in its place, empty pairs dropped."""
    before: list[bytes] = []
    after: list[bytes] = []
    found = False
    for pair in query.split(b"&"):
        if not pair:
            continue
        if _is_page(pair):
            found = True  # (a second page is refused before any answer: never here)
            continue
        (after if found else before).append(pair)
    return "".join(_quoted(p) + "&" for p in before), "".join("&" + _quoted(p) for p in after)


def plain_around_page(query: bytes) -> tuple[str, str] | None:
    """`around_page` of a query with nothing to quote or drop and no name to decode (most
    queries: escapes and `+` in values only, no empty pairs, one `page` at most), read in one
    scan and a search for `page`; None: any other query."""
    if not query:
        return "", ""
    if _PLAIN.fullmatch(query) is None:
        return None
    pages = _page_pairs(query)
    if not pages:
        return (query + b"&").decode("ascii"), ""
    if len(pages) > 1:
        return None  # (a second page is refused before any answer: never here)
    start, end = pages[0]
    return query[:start].decode("ascii"), query[end:].decode("ascii")


def _page_pairs(query: bytes) -> list[tuple[int, int]]:
    """Where each pair named `page` of a plain query starts and where what follows it starts
    (its `&` included, so that what comes before keeps its own)."""
    spans: list[tuple[int, int]] = []
    size = len(query)
    at = query.find(b"page")
    while at >= 0:
        end = at + 4
        if (at == 0 or query[at - 1] == _AMPERSAND) and (
            end == size or query[end] == _AMPERSAND or query[end] == _EQUALS
        ):
            stop = query.find(b"&", end)
            stop = size if stop < 0 else stop
            spans.append((at, stop))
        at = query.find(b"page", end)
    return spans


def pinned(query: bytes, pins: Mapping[str, str]) -> bytes:
    """The query with each pinned argument it does not carry added last (a list whose later
    pages must repeat what page 1 was answered for: the changes' `until`)."""
    names = {
        unquote_to_bytes(pair.partition(b"=")[0].replace(b"+", b" ")) for pair in query.split(b"&")
    }
    added = [
        f"{quote(name, safe='')}={quote(value, safe='')}".encode("ascii")
        for name, value in pins.items()
        if name.encode() not in names
    ]
    return b"&".join([query, *added] if query else added)


def page_url(base: str, path: str, query: bytes, page: int) -> str:
    """The URL of page `page` of the list answered at `path` for `query`."""
    return page_urls(base, path, query)(page)


def _quoted(pair: bytes) -> str:
    if _UNSAFE.search(pair) is None:  # most pairs: nothing to encode
        return pair.decode("ascii")
    return quote(pair.decode("latin-1"), safe=_QUERY_SAFE, encoding="latin-1")


def link_header(paging: Pagination, url_of: Callable[[int], str]) -> str:
    """`Link` for one page: first, prev (after page 1), next (before the last page), last."""
    numbers = page_numbers(paging.page, paging.total_pages)
    header = f'<{url_of(numbers.first)}>; rel="first"'
    if numbers.prev is not None:
        header += f', <{url_of(numbers.prev)}>; rel="prev"'
    if numbers.next is not None:
        header += f', <{url_of(numbers.next)}>; rel="next"'
    return f'{header}, <{url_of(numbers.last)}>; rel="last"'
