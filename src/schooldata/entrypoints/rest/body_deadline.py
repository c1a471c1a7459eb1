"""The body timeout: a request body that has not all arrived within it is cut.

The server offers no such bound (granian times only the request head), so a body that never
finished held its connection for ever. No timer per request: one sweep looks at the bodies
still awaited twice a second (`SWEEP_SECONDS`, the timeout's precision), oldest first (all
share one timeout).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from schooldata.entrypoints.rest.exchange import Exchange

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]

# The cancellation message of a read woken because its body's time ran out.
_BODY_TIMEOUT = "schooldata: request body timed out"
SWEEP_SECONDS = 0.5  # how often the awaited bodies are looked at: the timeout's precision


class BodyDeadlines:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        # Bodies being awaited, oldest first, and the sweep that expires them (none while
        # no body is awaited).
        self._awaiting: dict[_BodyWait, None] = {}
        self._sweeper: asyncio.TimerHandle | None = None

    async def run(
        self, ex: Exchange, receive: Receive, answer: Callable[[Receive], Awaitable[None]]
    ) -> None:
        """`answer(receive)`, reading a body that must all arrive within the timeout of the
        request head. Past it, the next read is told the client went away (a read waiting
        then is woken to be told so) and `ex.timed_out` is set: the caller answers 408."""
        loop = asyncio.get_running_loop()
        wait = _BodyWait(loop.time() + self.seconds, asyncio.current_task(), ex)
        awaiting = self._awaiting
        awaiting[wait] = None
        if self._sweeper is None:
            self._sweeper = loop.call_later(SWEEP_SECONDS, self._sweep, loop)

        async def bounded_receive() -> Message:
            if wait.whole:
                return await receive()
            if ex.timed_out:
                return {"type": "http.disconnect"}
            wait.reading = True
            try:
                message = await receive()
            except asyncio.CancelledError as cancelled:
                if cancelled.args == (_BODY_TIMEOUT,) and wait.woken():
                    return {"type": "http.disconnect"}
                raise
            finally:
                wait.reading = False
            if message.get("type") != "http.request" or not message.get("more_body", False):
                wait.whole = True
                awaiting.pop(wait, None)
            return message

        try:
            await answer(bounded_receive)
        except Exception:
            if not ex.timed_out:
                raise
        finally:
            awaiting.pop(wait, None)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        """Expire the bodies awaited past their time (all share one timeout, so the oldest
        come first), and look again in SWEEP_SECONDS while any is awaited."""
        now = loop.time()
        awaiting = self._awaiting
        while awaiting:
            wait = next(iter(awaiting))
            if wait.deadline > now:
                break
            del awaiting[wait]
            wait.expire()
        self._sweeper = loop.call_later(SWEEP_SECONDS, self._sweep, loop) if awaiting else None


class _BodyWait:
    """One request whose body is awaited: until when, who reads it, and how far it got."""

    __slots__ = ("deadline", "reading", "request", "task", "whole")

    def __init__(self, deadline: float, task: asyncio.Task[Any] | None, request: Exchange) -> None:
        self.deadline = deadline
        self.task = task
        self.request = request
        self.whole = False  # the body has all arrived
        self.reading = False  # a read is waiting on the server now

    def expire(self) -> None:
        """The time ran out: the request is marked, and a read waiting now is woken."""
        if self.whole:
            return
        self.request.timed_out = True
        if self.reading and self.task is not None:
            self.task.cancel(_BODY_TIMEOUT)

    def woken(self) -> bool:
        """Whether a cancelled read was woken by `expire` (then the cancellation is taken
        back and the read told the client went away), not cancelled from outside."""
        if not self.request.timed_out or self.task is None:
            return False
        self.task.uncancel()
        return True
