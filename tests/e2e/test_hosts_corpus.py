"""`Host` values that name no host: every one a 400 with a request id, never a 500 (they were
500s when the router parsed them, issue 51). Shared by the in-process and served tests."""

MALFORMED_HOSTS = [
    "a:/b",
    "127.0.0.1:/x",
    "http://x",
    "127.0.0.1:8790@evil.example",
    "localhost:8000@evil.example",
    "user@localhost",
    "localhost:8000/path",
    "localhost?x",
    "localhost#x",
    "a b",
    "[::1",
    "[::1]x",
    "[evil.example]",
    ":80",
    "localhost:",
    "localhost:99999",
    "localhost:0",
    "localhost:-1",
    "localhost:80:80",
    "é.example",
    "%6cocalhost",
]
