"""Page links (RFC 8288): which pages a page links to (`wire.meta.page_numbers`) and their
URLs (`rest.links`): the request's query string as sent, with `page` replaced."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.rest.links import around_page, link_header, page_url, plain_around_page
from schooldata.entrypoints.wire.meta import PageNumbers, page_numbers, pagination

BASE, PATH = "https://api.example.org", "/api/v1/schools"


@pytest.mark.parametrize(
    ("page", "total_pages", "expected"),
    [
        (1, 6, PageNumbers(first=1, last=6, prev=None, next=2)),
        (3, 6, PageNumbers(first=1, last=6, prev=2, next=4)),
        (6, 6, PageNumbers(first=1, last=6, prev=5, next=None)),
        (9, 6, PageNumbers(first=1, last=6, prev=6, next=None)),
        (1, 1, PageNumbers(first=1, last=1, prev=None, next=None)),
        (1, 0, PageNumbers(first=1, last=1, prev=None, next=None)),
        (4, 0, PageNumbers(first=1, last=1, prev=1, next=None)),
    ],
)
def test_the_pages_a_page_links_to(page: int, total_pages: int, expected: PageNumbers) -> None:
    assert page_numbers(page, total_pages) == expected


@given(st.integers(1, 500), st.integers(0, 400))
def test_prev_and_next_stay_within_the_list_and_beside_the_page(
    page: int, total_pages: int
) -> None:
    numbers = page_numbers(page, total_pages)
    assert numbers.first == 1 and numbers.last == max(total_pages, 1)
    assert (numbers.prev is None) is (page == 1)
    assert (numbers.next is None) is (page >= total_pages)
    if numbers.prev is not None:
        assert numbers.prev == min(page - 1, numbers.last)
    if numbers.next is not None:
        assert numbers.next == page + 1 <= numbers.last


@given(st.integers(0, 300))
def test_following_next_from_page_one_visits_every_page_once_in_order(total_pages: int) -> None:
    visited, page = [], 1
    while True:
        visited.append(page)
        following = page_numbers(page, total_pages).next
        if following is None:
            break
        page = following
    assert visited == list(range(1, max(total_pages, 1) + 1))


# ---------------------------------------------------------------------------- URLs

names = st.text(st.characters(codec="utf-8", exclude_characters="&=#\x00"), min_size=1, max_size=8)
values = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)
pairs = st.lists(st.tuples(names, values), max_size=6).filter(
    lambda ps: all(n != "page" for n, _ in ps) and len({n for n, _ in ps}) == len(ps)
)


def sent(items: list[tuple[str, str]]) -> bytes:
    """A query string as a client encodes it (spaces as %20, everything else escaped)."""
    return "&".join(f"{quote(n, safe='')}={quote(v, safe='')}" for n, v in items).encode()


@given(pairs, st.integers(1, 10**6), st.integers(0, 6), st.booleans())
def test_a_page_url_keeps_every_parameter_as_sent_with_page_replaced(
    items: list[tuple[str, str]], page: int, where: int, had_page: bool
) -> None:
    asked = list(items)
    if had_page:
        asked.insert(min(where, len(asked)), ("page", "7"))
    url = page_url(BASE, PATH, sent(asked), page)
    split = urlsplit(url)
    assert f"{split.scheme}://{split.netloc}{split.path}" == BASE + PATH
    expected = [(n, str(page) if n == "page" else v) for n, v in asked]
    if not had_page:
        expected.append(("page", str(page)))
    assert parse_qsl(split.query, keep_blank_values=True) == expected
    assert split.query == sent(expected).decode(), "the other pairs' bytes as sent"


@given(st.binary(max_size=40).filter(lambda b: b"&" not in b and b"=" not in b))
def test_a_page_url_is_always_a_printable_ascii_url_whatever_bytes_were_sent(raw: bytes) -> None:
    url = page_url(BASE, PATH, b"q=" + raw, 2)
    assert url.isascii() and not re.search(r'[\s<>"\\^`{|}]', url), url
    assert url.endswith("&page=2")


def test_parameters_keep_their_spelling_and_order() -> None:
    query = b"sort=name&local_authority=Kensington%20and%20Chelsea&page=3&per_page=5"
    assert page_url(BASE, PATH, query, 4) == (
        f"{BASE}{PATH}?sort=name&local_authority=Kensington%20and%20Chelsea&page=4&per_page=5"
    )
    assert page_url(BASE, PATH, b"q=st+mary&%70age=2", 3) == f"{BASE}{PATH}?q=st+mary&page=3"
    assert page_url(BASE, PATH, b"", 1) == f"{BASE}{PATH}?page=1"


def test_the_link_header_names_first_prev_next_and_last() -> None:
    def url(page: int) -> str:
        return f"{BASE}{PATH}?page={page}"

    middle = link_header(pagination(3, 5, 30), url)
    assert middle == (
        f'<{url(1)}>; rel="first", <{url(2)}>; rel="prev", <{url(4)}>; rel="next", '
        f'<{url(6)}>; rel="last"'
    )
    assert (
        link_header(pagination(1, 5, 3), url) == f'<{url(1)}>; rel="first", <{url(1)}>; rel="last"'
    )


def _whole_query_quoted(query: bytes, page: int) -> str:
    """The URL built the plain way: every pair but `page` kept, `page` replaced in place (or
    added last), then the whole query quoted at once."""
    from urllib.parse import unquote_to_bytes

    def is_page(pair: bytes) -> bool:
        return unquote_to_bytes(pair.partition(b"=")[0].replace(b"+", b" ")) == b"page"

    kept: list[bytes] = []
    replaced = False
    for pair in (p for p in query.split(b"&") if p):
        if is_page(pair):
            if not replaced:
                kept.append(f"page={page}".encode())
                replaced = True
            continue
        kept.append(pair)
    if not replaced:
        kept.append(f"page={page}".encode())
    text = quote(b"&".join(kept).decode("latin-1"), safe="!$&'()*+,;=:@/?%-._~", encoding="latin-1")
    return f"{BASE}{PATH}?{text}"


_query_bytes = st.lists(
    st.one_of(
        st.sampled_from([b"page=2", b"%70age=3", b"pa+ge=1", b"q=st+mary", b"", b"a&b", b"page"]),
        st.binary(max_size=12),
    ),
    max_size=6,
).map(lambda parts: b"&".join(parts))


@given(query=_query_bytes, page=st.integers(min_value=1, max_value=10**6))
def test_urls_quoted_around_the_page_equal_the_whole_query_quoted(query: bytes, page: int) -> None:
    if query.count(b"page") > 1:  # a second page is refused before any answer is linked
        return
    assert page_url(BASE, PATH, query, page) == _whole_query_quoted(query, page)


_query_bytes = st.lists(
    st.sampled_from(
        [
            b"page",
            b"page=2",
            b"per_page=10",
            b"q=st%20mary",
            b"q=a+b",
            b"phase=primary",
            b"pag%65=3",
            b"",
            b"x=<y>",
            b"la=Camden",
            b"q=caf\xc3\xa9",
            b"sort=name",
            b"page=",
            b"=1",
        ]
    ),
    max_size=6,
).map(b"&".join)


@given(_query_bytes | st.binary(max_size=30))
def test_a_plain_query_is_read_around_its_page_as_the_pair_by_pair_reading_reads_it(
    query: bytes,
) -> None:
    plain = plain_around_page(query)
    assert plain is None or plain == around_page(query)


def test_most_queries_are_plain_escapes_in_values_included() -> None:
    for query in (
        b"",
        b"q=st%20mary",
        b"q=st+mary&phase=primary",
        b"q=blackthorn&phase=primary&per_page=10&page=3",
    ):
        assert plain_around_page(query) is not None
        assert plain_around_page(query) == around_page(query)


def test_a_query_whose_names_hold_escapes_is_read_pair_by_pair() -> None:
    for query in (b"pag%65=3&q=a", b"q=a&pa+ge=2", b"x=<y>", b"a&&b"):
        assert plain_around_page(query) is None
