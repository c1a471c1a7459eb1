"""The httpx Downloader against a publisher on loopback: whole files or nothing, retries,
redirects, conditional requests, size cap (adapters/http/downloads.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.publisher import CODEPOINT_ZIP, Publisher, serving

from schooldata.adapters.http.downloads import HttpDownloader, user_agent
from schooldata.domain.errors import DownloadFailed
from schooldata.ports.downloads import Downloaded, NotModified, NotPublished, Published, Validators

pytestmark = pytest.mark.integration

BODY = b'"URN","EstablishmentName"\r\n' + b"".join(
    b'"%d","School %d"\r\n' % (100000 + n, n) for n in range(5_000)
)
PATH = "/files/edubasealldata20261127.csv"


@pytest.fixture
def publisher() -> Iterator[Publisher]:
    with serving() as running:
        running.files[PATH] = BODY
        yield running


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def downloader(waits: list[float]) -> HttpDownloader:
    return HttpDownloader(backoff_seconds=0.5, sleep=waits.append)


def test_a_file_is_streamed_to_a_temporary_file_named_as_published_and_then_removed(
    publisher: Publisher, downloader: HttpDownloader
) -> None:
    progress: list[tuple[int, int | None]] = []
    with downloader.download(
        url=publisher.base + PATH, progress=lambda got, total: progress.append((got, total))
    ) as got:
        assert isinstance(got, Downloaded)
        assert got.path.name == "edubasealldata20261127.csv"
        assert got.path.read_bytes() == BODY
        assert got.sha256 == hashlib.sha256(BODY).hexdigest()
        assert got.size == len(BODY)
        assert got.validators.etag and got.validators.last_modified
        kept: Path = got.path
    assert not kept.exists()
    assert progress[-1] == (len(BODY), len(BODY))
    [headers] = publisher.asked(PATH)
    assert headers["user-agent"] == user_agent()
    assert user_agent().startswith("schooldata/") and user_agent().endswith("(+refresh)")


def test_a_503_then_a_200_succeeds_through_the_retry_with_backoff(
    publisher: Publisher, downloader: HttpDownloader, waits: list[float]
) -> None:
    publisher.failures[PATH] = [503, 502]
    with downloader.download(url=publisher.base + PATH) as got:
        assert isinstance(got, Downloaded)
        assert got.path.read_bytes() == BODY
    assert len(publisher.asked(PATH)) == 3
    assert waits == [0.5, 1.0]


def test_a_server_that_keeps_failing_is_given_up_after_the_attempts(
    publisher: Publisher, downloader: HttpDownloader, waits: list[float]
) -> None:
    publisher.failures[PATH] = [503] * 10
    with (
        pytest.raises(DownloadFailed, match=r"HTTP 503 .*gave up after 4 attempts"),
        downloader.download(url=publisher.base + PATH),
    ):
        pass
    assert len(publisher.asked(PATH)) == 4
    assert waits == [0.5, 1.0, 2.0]


def test_a_body_shorter_than_its_content_length_is_never_a_file(
    publisher: Publisher, downloader: HttpDownloader
) -> None:
    publisher.cut.add(PATH)
    with (
        pytest.raises(DownloadFailed, match=r"gave up after 4 attempts"),
        downloader.download(url=publisher.base + PATH),
    ):
        pass
    assert len(publisher.asked(PATH)) == 4  # a dropped connection is worth retrying


def test_a_connection_refused_is_retried_then_reported(
    downloader: HttpDownloader, waits: list[float]
) -> None:
    with serving() as gone:
        address = gone.base
    with (
        pytest.raises(DownloadFailed, match=r"127\.0\.0\.1.*gave up after 4 attempts"),
        downloader.download(url=address + PATH),
    ):
        pass
    assert len(waits) == 3


def test_a_file_not_published_yet_is_said_so_and_not_retried(
    publisher: Publisher, downloader: HttpDownloader
) -> None:
    missing = publisher.base + "/files/edubasealldata20261128.csv"
    with downloader.download(url=missing) as got:
        assert got == NotPublished(url=missing, status=404)
    assert downloader.probe(url=missing) == NotPublished(url=missing, status=404)


def test_other_client_errors_are_refused_at_once(
    publisher: Publisher, downloader: HttpDownloader
) -> None:
    publisher.failures[PATH] = [403]
    with (
        pytest.raises(DownloadFailed, match=r"HTTP 403 Forbidden\.$"),
        downloader.download(url=publisher.base + PATH),
    ):
        pass
    assert len(publisher.asked(PATH)) == 1


def test_a_conditional_request_with_the_last_validators_gets_not_modified(
    publisher: Publisher, downloader: HttpDownloader
) -> None:
    with downloader.download(url=publisher.base + PATH) as first:
        assert isinstance(first, Downloaded)
        validators = first.validators
    with downloader.download(url=publisher.base + PATH, validators=validators) as again:
        assert again == NotModified(url=publisher.base + PATH)
    last = publisher.asked(PATH)[-1]
    assert last["if-none-match"] == validators.etag
    assert last["if-modified-since"] == validators.last_modified
    stale = Validators(etag='"something-else"')
    with downloader.download(url=publisher.base + PATH, validators=stale) as changed:
        assert isinstance(changed, Downloaded)


def test_a_redirect_is_followed_and_the_file_named_where_it_ended(
    publisher: Publisher, downloader: HttpDownloader
) -> None:
    publisher.files[CODEPOINT_ZIP] = b"PK\x03\x04 a zip"
    with downloader.download(url=publisher.codepoint_url) as got:
        assert isinstance(got, Downloaded)
        assert got.path.name == "codepo_gb.zip"
        assert got.url == publisher.codepoint_url
    assert [path for path, _ in publisher.requests][-2:] == [
        "/downloads/v1/products/CodePointOpen/downloads",
        CODEPOINT_ZIP,
    ]


def test_a_file_over_the_size_cap_is_refused_announced_or_not(publisher: Publisher) -> None:
    small = HttpDownloader(max_bytes=1_000, sleep=lambda _: None)
    with (
        pytest.raises(DownloadFailed, match=r"larger than the 1,000-byte cap"),
        small.download(url=publisher.base + PATH),
    ):
        pass
    with pytest.raises(DownloadFailed, match=r"larger than the 1,000-byte cap"):
        small.probe(url=publisher.base + PATH)


def test_a_probe_reads_no_body(publisher: Publisher, downloader: HttpDownloader) -> None:
    found = downloader.probe(url=publisher.base + PATH)
    assert isinstance(found, Published)
    assert found.size == len(BODY)
    assert found.validators.etag is not None
