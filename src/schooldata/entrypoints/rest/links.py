"""Page links (RFC 8288): the URL of another page of the same list, and the `Link` header.

A page's URL is the base URL (the configured one, or the request's own), the operation's path
and the request's query string as sent, with `page` replaced (or added last): every other
parameter keeps its bytes, order and spelling. Bytes a URL may not hold as they are (a space,
`<`, `>`, `"`, raw UTF-8) are percent-encoded, so the header stays parseable and the value a
server decodes is the one the client sent.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, unquote_to_bytes

from schooldata.entrypoints.wire.envelope import PageNumbers, Pagination

# RFC 3986 query characters (pchar, "/", "?"), and "%" so existing escapes stay as sent.
_QUERY_SAFE = "!$&'()*+,;=:@/?%-._~"


def _is_page(pair: bytes) -> bool:
    name = pair.partition(b"=")[0].replace(b"+", b" ")
    return unquote_to_bytes(name) == b"page"


def page_url(base: str, path: str, query: bytes, page: int) -> str:
    """The URL of page `page` of the list answered at `path` for `query`."""
    pairs = [pair for pair in query.split(b"&") if pair]
    wanted = f"page={page}".encode()
    replaced = False
    kept: list[bytes] = []
    for pair in pairs:
        if _is_page(pair):
            if not replaced:  # (a second page is refused before any answer: never here)
                kept.append(wanted)
                replaced = True
            continue
        kept.append(pair)
    if not replaced:
        kept.append(wanted)
    text = quote(b"&".join(kept).decode("latin-1"), safe=_QUERY_SAFE, encoding="latin-1")
    return f"{base}{path}?{text}"


def link_header(paging: Pagination, url_of: Callable[[int], str]) -> str:
    """`Link` for one page: first, prev (after page 1), next (before the last page), last."""
    numbers = PageNumbers.of(paging.page, paging.total_pages)
    links = [("first", numbers.first)]
    if numbers.prev is not None:
        links.append(("prev", numbers.prev))
    if numbers.next is not None:
        links.append(("next", numbers.next))
    links.append(("last", numbers.last))
    return ", ".join(f'<{url_of(page)}>; rel="{rel}"' for rel, page in links)
