"""The envelope's `meta` of one answer: its sources and their time, its pagination and page
links. Built on every keyed answer, so apart from the Structs (`envelope`) and compiled."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import NamedTuple

import msgspec

from schooldata.domain.dataset import DatasetRecord
from schooldata.entrypoints.wire.common import optional_timestamp, timestamp
from schooldata.entrypoints.wire.envelope import Pagination, Source

Attribution = tuple[list[Source], dt.datetime | None]


def source(record: DatasetRecord) -> Source:
    return Source(
        name=record.title,
        publisher=record.publisher,
        licence=record.licence,
        url=record.url,
        retrieved_at=timestamp(record.imported_at),
        dataset=record.name,
        attribution=record.attribution,
        extract_date=record.extract_date,
        synthetic=record.synthetic,
    )


def sources(records: Sequence[DatasetRecord]) -> list[Source]:
    return [source(r) for r in records]


def data_updated_at(records: Sequence[DatasetRecord]) -> dt.datetime | None:
    return optional_timestamp(max((r.imported_at for r in records), default=None))


class AttributionOf:
    """`sources` and `data_updated_at` of a data version's records, built once per version:
    every answer of a version holds the same record objects. The list is shared by the
    answers' Structs, which are encoded, never changed."""

    def __init__(self) -> None:
        self._last: tuple[Sequence[DatasetRecord], Attribution] = ((), ([], None))

    def __call__(self, records: Sequence[DatasetRecord]) -> Attribution:
        seen, built = self._last
        if seen is records:  # (the same tuple: the snapshot hands out one per version)
            return built
        if len(seen) == len(records) and all(a is b for a, b in zip(seen, records, strict=True)):
            return built
        built = (sources(records), data_updated_at(records))
        self._last = (tuple(records), built)
        return built


class EncodedAttributionOf:
    """`AttributionOf` as JSON (`sources`, `data_updated_at`), encoded once per version."""

    def __init__(self) -> None:
        self._of = AttributionOf()
        # By the version's list of sources: compiled code rebuilds a tuple it returns, so the
        # list is what keeps its identity.
        self._last: tuple[list[Source] | None, tuple[bytes, bytes]] = (None, (b"", b""))

    def __call__(self, records: Sequence[DatasetRecord]) -> tuple[bytes, bytes]:
        listed, updated = self._of(records)
        seen, encoded = self._last
        if seen is listed:
            return encoded
        encoded = (msgspec.json.encode(listed), msgspec.json.encode(updated))
        self._last = (listed, encoded)
        return encoded


_KEYS: dict[type, list[tuple[str, bytes]]] = {}  # each meta Struct's fields, as encoded


def joined(struct: type[msgspec.Struct], members: dict[str, bytes]) -> bytes:
    """What encoding `struct(**members)` gives, from its members already encoded: each field
    in the Struct's order, under its encoded name (every field must be given)."""
    keys = _KEYS.get(struct)
    if keys is None:  # each name with what comes before it: `{` for the first, else `,`
        fields = msgspec.structs.fields(struct)
        keys = [
            (f.name, b'%s"%s":' % (b"," if i else b"{", f.encode_name.encode()))
            for i, f in enumerate(fields)
        ]
        _KEYS[struct] = keys
    parts: list[bytes] = [] if keys else [b"{"]
    for name, key in keys:
        parts.append(key)
        parts.append(members[name])
    parts.append(b"}")
    return b"".join(parts)


def pagination(page: int, per_page: int, total: int) -> Pagination:
    """A page's place in its list, without URLs (`linked` adds them)."""
    return Pagination(
        page=page,
        per_page=per_page,
        total=total,
        total_pages=(total + per_page - 1) // per_page,
        next=None,
        prev=None,
    )


class PageNumbers(NamedTuple):
    """The pages a page links to. `prev` is the page before this one that can hold items:
    page - 1, or the last page when this one is past the end (so following it from past the
    end reaches the data); `next` exists only before the last page. An empty list has one
    (empty) page: first and last are 1."""

    first: int
    last: int
    prev: int | None
    next: int | None


def page_numbers(page: int, total_pages: int) -> PageNumbers:
    last = max(total_pages, 1)
    return PageNumbers(
        1,
        last,
        min(page - 1, last) if page > 1 else None,
        page + 1 if page < total_pages else None,
    )


def linked(paging: Pagination, page_url: Callable[[int], str]) -> Pagination:
    """`paging` with the URLs of its next and previous pages."""
    numbers = page_numbers(paging.page, paging.total_pages)
    return msgspec.structs.replace(
        paging,
        next=None if numbers.next is None else page_url(numbers.next),
        prev=None if numbers.prev is None else page_url(numbers.prev),
    )
