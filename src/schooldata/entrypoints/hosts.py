"""Which `Host` a request may name: one allow-list, judged once per request at the HTTP edge,
for every route (REST, MCP, the operational pages) alike.

Absolute URLs in answers (a record's `url`, page links, a profile's resource links, the CSV
`url` column) start from the configured base URL (`SCHOOLDATA_BASE_URL`) or, when none is
set, from the request's `Host`: so a request may only name a host this server answers to. A
`Host` that is not one (`evil.example`) is refused with 421 before any answer is built; one
that is no host at all (`a:/b`, `127.0.0.1:/x`, `http://x`, `127.0.0.1:8790@evil.example`,
two `Host` headers) with 400. The MCP endpoint judges `Origin` by the same list: a page may
call it only from one of the server's own names (DNS-rebinding protection).

The list (docs/configuration.md, `SCHOOLDATA_ALLOWED_HOSTS`): by default the loopback names
on any port (`localhost`, `127.0.0.1`, `[::1]`: what `make serve` and local clients use; a
rebinding attack names the attacker's host, never these), the served host and port when it
is not a wildcard address, and the base URL's host. Configured, the list replaces the
default (the base URL's host is always allowed): `name` (any port), `name:port`, `name:*`,
or `*` (any well-formed host: only behind a proxy with a base URL, since links then never
come from `Host`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from attrs import frozen

LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "[::1]")
WILDCARD_ADDRESSES: Final = ("", "0.0.0.0", "::", "[::]")
ANY: Final = "*"

ALLOWED, MALFORMED, FOREIGN = 0, 1, 2

# RFC 3986's reg-name without percent-encoding and sub-delimiters (no real host uses them),
# or a dotted IPv4 address (it is one); a port of 1-5 ASCII digits.
_NAME = re.compile(r"[A-Za-z0-9._~-]+")
_PORT = re.compile(r"[0-9]{1,5}")
MAX_REMEMBERED = 256  # verdicts by raw value: a server answers to a few names


class HostError(ValueError):
    """An allow-list entry that names no host (the message says which)."""


@frozen
class HostRule:
    name: str  # lower case; `*`: any host
    port: int | None  # None: any port

    def allows(self, name: str, port: int | None) -> bool:
        if self.name != ANY and self.name != name:
            return False
        return self.port is None or self.port == port


def parse_host(value: str) -> tuple[str, int | None] | None:
    """`host[:port]` as a request's `Host` names it: (lower-case name, port or None), or None
    when it is no host (RFC 9110 7.2; strict: no user info, no path, no empty port)."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        try:
            ipaddress.IPv6Address(value[1:end])
        except ValueError:
            return None
        name, rest = value[: end + 1].lower(), value[end + 1 :]
        if not rest:
            return name, None
        if not rest.startswith(":"):
            return None
        port_text = rest[1:]
    else:
        name, colon, port_text = value.partition(":")
        if _NAME.fullmatch(name) is None:
            return None
        name = name.lower()
        if not colon:
            return name, None
    if _PORT.fullmatch(port_text) is None:
        return None
    port = int(port_text)
    return (name, port) if 0 < port <= 65535 else None


def parse_rule(entry: str) -> HostRule:
    """An allow-list entry: `*`, `name`, `name:*` or `name:port` (IPv6 in brackets)."""
    text = entry.strip()
    if text == ANY:
        return HostRule(ANY, None)
    any_port = text.endswith(":*")
    parsed = parse_host(text[:-2] if any_port else text)
    if parsed is None:
        raise HostError(f"{entry!r} is not a host name, host:port, host:* or *")
    name, port = parsed
    return HostRule(name, None if any_port else port)


class HostPolicy:
    """The hosts this server answers to (see the module docstring), and the verdict on a
    request's `Host` values, remembered per value within a bound."""

    def __init__(self, rules: Iterable[HostRule]) -> None:
        self.rules: tuple[HostRule, ...] = tuple(dict.fromkeys(rules))
        self._known: dict[bytes, int] = {}

    @classmethod
    def configured(
        cls,
        *,
        base_url: str | None = None,
        allowed_hosts: Iterable[str] = (),
        served_host: str | None = None,
        served_port: int | None = None,
    ) -> HostPolicy:
        """The allow-list a server run with these settings answers to (the module
        docstring): `allowed_hosts` when given, else the loopback names on any port and the
        served host and port; the base URL's host always."""
        configured = [parse_rule(entry) for entry in allowed_hosts]
        rules = configured or [HostRule(name, None) for name in LOOPBACK_NAMES]
        if not configured and served_host is not None:
            shown = f"[{served_host}]" if ":" in served_host else served_host
            if shown not in WILDCARD_ADDRESSES:
                rules.append(parse_rule(shown if served_port is None else f"{shown}:{served_port}"))
        if base_url:
            netloc = urlsplit(base_url).netloc.rpartition("@")[2]
            parsed = parse_host(netloc)
            if parsed is None:
                raise HostError(f"the base URL {base_url!r} names no host")
            rules.append(HostRule(parsed[0], None))
        return cls(rules)

    def judge(self, values: list[bytes], *, required: bool = False) -> int:
        """ALLOWED, MALFORMED or FOREIGN for a request's `Host` header values. None, or an
        empty one, is malformed when `required` (an HTTP/1.1 request names its host, RFC 9112
        3.2), else answered for the address the request reached (HTTP/1.0); more than one
        is malformed."""
        if not values or values == [b""]:
            # (granian hands an HTTP/1.1 request without a Host on with an empty one)
            return MALFORMED if required else ALLOWED
        if len(values) > 1:
            return MALFORMED
        raw = values[0]
        verdict = self._known.get(raw)
        if verdict is None:
            verdict = self._verdict(raw)
            if len(self._known) >= MAX_REMEMBERED:  # a Host header is the client's to choose
                self._known.clear()
            self._known[raw] = verdict
        return verdict

    def _verdict(self, raw: bytes) -> int:
        if not raw.isascii():
            return MALFORMED
        parsed = parse_host(raw.decode("ascii"))
        if parsed is None:
            return MALFORMED
        return ALLOWED if self.allows(*parsed) else FOREIGN

    def allows(self, name: str, port: int | None) -> bool:
        return any(rule.allows(name, port) for rule in self.rules)

    def allows_origin(self, origin: str) -> bool:
        """A browser's `Origin` (`scheme://host[:port]`) is one of this server's own names:
        the MCP endpoint's DNS-rebinding check."""
        scheme, separator, authority = origin.partition("://")
        if not separator or scheme.lower() not in ("http", "https") or not authority.isascii():
            return False
        parsed = parse_host(authority)
        return parsed is not None and self.allows(*parsed)


LOOPBACK = HostPolicy(HostRule(name, None) for name in LOOPBACK_NAMES)
