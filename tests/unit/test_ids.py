"""Request ids and ETags: made on every request, so made cheaply, and still what they say."""

from __future__ import annotations

import os
import re
from base64 import urlsafe_b64encode

import xxhash
from hypothesis import given
from hypothesis import strategies as st

from schooldata.adapters.system import RANDOM_BYTES_PER_DRAW, SecureIds
from schooldata.entrypoints.rest.representation import strong_etag

REQUEST_ID = re.compile(r"req_[0-9A-Za-z]{20}")


def test_request_ids_are_base62_and_never_repeat_across_many_draws() -> None:
    ids = SecureIds()
    drawn = [ids.request_id() for _ in range(5 * RANDOM_BYTES_PER_DRAW)]
    assert all(REQUEST_ID.fullmatch(i) for i in drawn)
    assert len(set(drawn)) == len(drawn)


def test_a_forked_process_draws_ids_of_its_own() -> None:
    ids = SecureIds()
    ids.request_id()  # the parent has characters waiting
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child)
        os.write(write, ids.request_id().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    theirs = os.read(read, 100).decode()
    os.close(read)
    assert REQUEST_ID.fullmatch(theirs)
    assert theirs != ids.request_id()


@given(st.binary(max_size=4096))
def test_a_strong_etag_is_the_url_safe_base64_of_the_xxh3_128_digest(body: bytes) -> None:
    expected = urlsafe_b64encode(xxhash.xxh3_128(body).digest()).decode().rstrip("=")
    assert strong_etag(body) == expected
