"""Page links (RFC 8288): the URL of another page of the same list, and the `Link` header.

A page's URL is the base URL (the configured one, or the request's own), the operation's path
and the request's query string as sent, with `page` replaced (or added last): every other
parameter keeps its bytes, order and spelling. Bytes a URL may not hold as they are (a space,
`<`, `>`, `"`, raw UTF-8) are percent-encoded, so the header stays parseable and the value a
server decodes is the one the client sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, unquote_to_bytes

from schooldata.entrypoints.wire.envelope import Pagination
from schooldata.entrypoints.wire.meta import page_numbers

# RFC 3986 query characters (pchar, "/", "?"), and "%" so existing escapes stay as sent.
_QUERY_SAFE = "!$&'()*+,;=:@/?%-._~"
_UNSAFE = re.compile(rb"[^A-Za-z0-9!$&'()*+,;=:@/?%\-._~]")
# A name holding `%` or `+` (it may decode to `page`), in a query with `&` put before it.
_ESCAPED_NAME = re.compile(rb"&[^=&]*[%+]")


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
    queries: escapes and `+` in values only, no empty pairs, one `page` at most), read without
    looking at each pair twice; None: any other query."""
    if _UNSAFE.search(query) is not None or b"&&" in query:
        return None
    if query.startswith(b"&") or query.endswith(b"&"):
        return None
    if (b"%" in query or b"+" in query) and _ESCAPED_NAME.search(b"&" + query) is not None:
        return None
    if query.find(b"page") < 0:  # (no pair is named `page`)
        return (query + b"&" if query else b"").decode("ascii"), ""
    pairs = query.split(b"&")
    pages = [i for i, pair in enumerate(pairs) if pair == b"page" or pair.startswith(b"page=")]
    if len(pages) > 1:
        return None
    if not pages:
        return (query + b"&").decode("ascii"), ""
    i = pages[0]
    head = b"".join(pair + b"&" for pair in pairs[:i])
    tail = b"".join(b"&" + pair for pair in pairs[i + 1 :])
    return head.decode("ascii"), tail.decode("ascii")


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
    links = [("first", numbers.first)]
    if numbers.prev is not None:
        links.append(("prev", numbers.prev))
    if numbers.next is not None:
        links.append(("next", numbers.next))
    links.append(("last", numbers.last))
    return ", ".join(f'<{url_of(page)}>; rel="{rel}"' for rel, page in links)
