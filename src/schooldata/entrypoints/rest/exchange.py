"""One request's exchange at the edge: the request as read, and what the edge saw of its
answer (for the body deadline, the access log and the metrics)."""

from __future__ import annotations

from schooldata.entrypoints.http.answer import Answer
from schooldata.entrypoints.http.request import HttpRequest


class Exchange:
    __slots__ = (
        "answer",
        "cors",
        "grant",
        "label",
        "query_key",
        "request",
        "size",
        "started",
        "status",
        "timed_out",
    )

    def __init__(self, request: HttpRequest) -> None:
        self.request = request
        self.started = False  # the answer's start has gone to the server
        self.timed_out = False  # its body did not arrive within the body timeout
        self.cors = False  # a CORS-eligible read (its answers vary on Origin)
        self.grant: bytes | None = None  # the Access-Control-Allow-Origin to send
        self.status = 500
        self.size = 0
        self.answer: Answer | None = None  # what a route answered
        self.label: str | None = None  # the route label of an answer the edge gave
        self.query_key = False  # refused for a key in the query string
