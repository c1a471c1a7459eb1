"""The hosts a request may name (`entrypoints/hosts.py`): a strict reading of `Host`, the
default allow-list (loopback names on any port, the served address, the base URL's host), a
configured one, and verdicts remembered within a bound."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints import hosts
from schooldata.entrypoints.hosts import HostError, HostPolicy, parse_host, parse_rule

MALFORMED_HOSTS = [
    "a:/b",
    "127.0.0.1:/x",
    "http://x",
    "127.0.0.1:8790@evil.example",
    "user@localhost",
    "localhost:8000/path",
    "a b",
    "[::1",
    "[::1]x",
    "[not-v6]",
    ":80",
    "a:",
    "a:99999",
    "a:0",
    "a:-1",
    "a:+80",
    "a:８０",
    "é.example",
    "localhost:80:80",
    "a%2Fb",
    "a\x00b",
]


@pytest.mark.parametrize("value", MALFORMED_HOSTS)
def test_a_value_that_names_no_host_is_malformed(value: str) -> None:
    assert hosts.LOOPBACK.judge([value.encode("utf-8")]) == hosts.MALFORMED


def test_the_default_allows_the_loopback_names_on_any_port_and_nothing_else() -> None:
    for value in ("localhost", "LOCALHOST:8000", "127.0.0.1:51234", "[::1]", "[::1]:8790"):
        assert hosts.LOOPBACK.judge([value.encode()]) == hosts.ALLOWED, value
    for value in ("evil.example", "localhost.evil.example", "127.0.0.2", "[::2]:80"):
        assert hosts.LOOPBACK.judge([value.encode()]) == hosts.FOREIGN, value


def test_no_host_is_answered_for_the_address_reached_but_http11_must_name_one() -> None:
    assert hosts.LOOPBACK.judge([]) == hosts.ALLOWED  # HTTP/1.0
    assert hosts.LOOPBACK.judge([b""]) == hosts.ALLOWED
    assert hosts.LOOPBACK.judge([], required=True) == hosts.MALFORMED
    assert hosts.LOOPBACK.judge([b""], required=True) == hosts.MALFORMED


def test_two_host_headers_are_malformed_even_when_each_is_allowed() -> None:
    assert hosts.LOOPBACK.judge([b"localhost", b"localhost"]) == hosts.MALFORMED


def test_the_served_address_and_the_base_urls_host_join_the_default() -> None:
    policy = HostPolicy.configured(
        base_url="https://schools.example.com/api", served_host="10.0.0.5", served_port=8000
    )
    allowed = ["10.0.0.5:8000", "schools.example.com", "Schools.Example.com:443", "localhost:1"]
    for value in allowed:
        assert policy.judge([value.encode()]) == hosts.ALLOWED, value
    assert policy.judge([b"10.0.0.5:8001"]) == hosts.FOREIGN
    wildcard = HostPolicy.configured(served_host="0.0.0.0", served_port=8000)
    assert wildcard.judge([b"0.0.0.0:8000"]) == hosts.FOREIGN
    assert HostPolicy.configured(served_host="::1", served_port=9).judge([b"[::1]:9"]) == 0


def test_a_configured_list_replaces_the_default_but_keeps_the_base_urls_host() -> None:
    policy = HostPolicy.configured(
        base_url="https://public.example", allowed_hosts=("internal:8000", "pod.local:*")
    )
    assert policy.judge([b"internal:8000"]) == hosts.ALLOWED
    assert policy.judge([b"internal:8001"]) == hosts.FOREIGN
    assert policy.judge([b"pod.local:1234"]) == hosts.ALLOWED
    assert policy.judge([b"public.example"]) == hosts.ALLOWED
    assert policy.judge([b"localhost:8000"]) == hosts.FOREIGN


def test_a_star_allows_any_well_formed_host_but_never_a_malformed_one() -> None:
    policy = HostPolicy.configured(allowed_hosts=("*",))
    assert policy.judge([b"anything.example:81"]) == hosts.ALLOWED
    assert policy.judge([b"a:/b"]) == hosts.MALFORMED


@pytest.mark.parametrize("entry", ["a:/b", "http://x", "a b", ""])
def test_a_configured_entry_that_names_no_host_is_refused(entry: str) -> None:
    with pytest.raises(HostError):
        parse_rule(entry)


def test_the_origin_must_be_one_of_the_servers_own_names() -> None:
    assert hosts.LOOPBACK.allows_origin("http://localhost:8000")
    assert hosts.LOOPBACK.allows_origin("https://[::1]")
    assert not hosts.LOOPBACK.allows_origin("http://localhost:8000@evil.example")
    assert not hosts.LOOPBACK.allows_origin("http://evil.example")
    assert not hosts.LOOPBACK.allows_origin("file://localhost")
    assert not hosts.LOOPBACK.allows_origin("null")


@given(st.binary(max_size=40))
def test_any_bytes_get_a_verdict_and_what_is_allowed_parses(raw: bytes) -> None:
    verdict = hosts.LOOPBACK.judge([raw])
    assert verdict in (hosts.ALLOWED, hosts.MALFORMED, hosts.FOREIGN)
    if verdict == hosts.ALLOWED and raw:
        parsed = parse_host(raw.decode("ascii"))
        assert parsed is not None and parsed[0] in ("localhost", "127.0.0.1", "[::1]")


def test_remembered_verdicts_stay_within_their_bound() -> None:
    policy = HostPolicy.configured()
    for n in range(3 * hosts.MAX_REMEMBERED):
        assert policy.judge([f"host-{n}.example".encode()]) == hosts.FOREIGN
    assert len(policy._known) <= hosts.MAX_REMEMBERED
