"""One pipeline for every call from every face:
tier -> authenticate -> entitle -> validate -> meter -> run -> envelope.

- Tier, once: no credentials -> the entry's public operation; a valid key -> its keyed
  operation (a public-only entry answers a keyed caller publicly, unmetered); bad credentials
  -> 401 in the commercial shape, never a silent downgrade; a trusted local caller (the CLI,
  the library) -> its plan, no key and no meter.
- Entitlement before anything is counted (403 feature_not_in_plan, not metered).
- Validation: unknown parameters (unless the face ignores them), then the use case's rules.
- Metering (DECISIONS): REST meters a request that passed the rate limit even when its
  arguments are refused; MCP meters only a call whose arguments validated (`Face`). The rate
  limit is taken before the use case runs; the quota use is charged once its answer is
  known: an answer or a finding of the use case (a 404, an unknown postcode) is charged, a
  failure of the service (a dependency down: 503, the search's 500, any unexpected error) is
  never charged.
- Run, then the envelope's sources and their data version for keyed answers; every outcome
  says whether the data served is invented (the bundled demo).

Every refusal is a `Refused` carrying the domain error, the tier whose error shape it takes,
and the meter reading for the six headers. With `wait=False` a call that would wait on a
driven port raises `WouldBlock` before anything is counted, so a face on an event loop can
try it there and, failing that, run it again on a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from schooldata.application.access import Admission, Authenticate, Caller, Meter
from schooldata.application.operations.arguments import Arguments
from schooldata.application.operations.declaration import AnyOperation, Entry, Port
from schooldata.application.operations.param import Place
from schooldata.application.operations.uses import UseCases
from schooldata.application.reuse import AnswerReuse
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import DataUnavailable, DomainError, UnknownParameter
from schooldata.domain.keys import AuthenticationFailed, MissingApiKey
from schooldata.domain.metering import LimitReached, MeterReading
from schooldata.domain.plans import Plan
from schooldata.domain.versions import DataVersion
from schooldata.ports.datasets import DatasetRegistry
from schooldata.ports.keys import WouldBlock
from schooldata.ports.observer import CallObserver, NoObserver


@frozen
class Face:
    """Who is asking, and the rules that differ by face (DECISIONS): REST meters a keyed
    request past the rate limit even when its arguments are refused, MCP only a call whose
    arguments validated; public REST ignores parameters it does not define, MCP tools refuse
    them (as every commercial operation does everywhere)."""

    name: str
    meters_refusals: bool
    refuses_unknown_public: bool


REST = Face("rest", meters_refusals=True, refuses_unknown_public=False)
MCP = Face("mcp", meters_refusals=False, refuses_unknown_public=True)
LOCAL = Face("cli", meters_refusals=False, refuses_unknown_public=True)
LIBRARY = Face("library", meters_refusals=True, refuses_unknown_public=False)  # as REST


@frozen(kw_only=True)
class Credentials:
    """The credential headers as sent (None: absent)."""

    authorization: str | None = None
    x_api_key: str | None = None

    @property
    def present(self) -> bool:
        return self.authorization is not None or self.x_api_key is not None


ANONYMOUS = Credentials()
_LENIENT: Mapping[str, Place] = {}  # (unknown arguments ignored: the public REST rule)


@frozen
class Trusted:
    """A local caller (the CLI, the library): answered as `plan` allows, no key, no meter."""

    plan: Plan


@frozen(kw_only=True)
class Outcome:
    operation: AnyOperation
    request: Any
    result: Any
    caller: Caller | None = None
    plan: Plan | None = None
    reading: MeterReading | None = None
    sources: tuple[DatasetRecord, ...] = ()
    version: DataVersion | None = None  # the data version the sources belong to (keyed)
    synthetic: bool = False  # served from invented data (the bundled demo)

    @property
    def keyed(self) -> bool:
        return not self.operation.public


class Refused(Exception):
    """A call refused: the error, whether it takes the commercial shape, the meter reading."""

    def __init__(
        self,
        error: DomainError,
        *,
        keyed: bool,
        reading: MeterReading | None = None,
        caller: Caller | None = None,
    ) -> None:
        super().__init__(error.message)
        self.error = error
        self.keyed = keyed
        self.reading = reading
        self.caller = caller

    @property
    def retry_after(self) -> int | None:
        return self.error.retry_after if isinstance(self.error, LimitReached) else None


class Pipeline:
    def __init__(
        self,
        *,
        uses: UseCases,
        authenticate: Authenticate,
        meter: Meter,
        datasets: DatasetRegistry,
        nonblocking: Callable[[], frozenset[Port]] = frozenset,
        observer: CallObserver | None = None,
        reuse: AnswerReuse | None = None,
    ) -> None:
        """`nonblocking()`: the ports that answer from memory right now (a snapshot still
        being built does not), so operations reading only those may run on an event loop."""
        self._uses = uses
        self._authenticate = authenticate
        self._meter = meter
        self._datasets = datasets
        self.nonblocking = nonblocking
        self.observer: CallObserver = observer or NoObserver()
        self.reuse = reuse
        self._last_sources: tuple[tuple[DatasetRecord, ...] | None, bool] = (None, False)

    def observed_by(self, observer: CallObserver) -> Pipeline:
        """The same pipeline, reporting what it meters and refuses to `observer`."""
        return Pipeline(
            uses=self._uses,
            authenticate=self._authenticate,
            meter=self._meter,
            datasets=self._datasets,
            nonblocking=lambda: self.nonblocking(),  # follows this pipeline's, if replaced
            observer=observer,
            reuse=self.reuse,
        )

    def call(
        self,
        entry: Entry,
        arguments: Mapping[str, object],
        *,
        credentials: Credentials | Trusted | Caller = ANONYMOUS,
        face: Face = REST,
        places: Mapping[str, Place] | None = None,
        wait: bool = True,
    ) -> Outcome:
        """`places` says where each argument arrived (HTTP: query, path or body); an argument
        that arrived elsewhere than its declaration says is unknown."""
        caller = self._identify(entry, credentials, wait=wait)
        operation = self.choose(entry, caller)
        if not wait and not operation.reads <= self.nonblocking():
            raise WouldBlock()
        if operation.public:
            checked = places if face.refuses_unknown_public else _LENIENT
            return self._public(operation, arguments, checked, wait)
        assert caller is not None  # choose() refuses an anonymous caller a keyed operation
        return self._keyed(operation, caller, arguments, places, face, wait)

    # ------------------------------------------------------------------ tier

    def identify(self, credentials: Credentials) -> Caller | None:
        """The caller the credentials name (None: anonymous); bad ones are refused."""
        return self._identify(None, credentials, wait=True)  # type: ignore[return-value]

    def _identify(
        self, entry: Entry | None, credentials: Credentials | Trusted | Caller, *, wait: bool
    ) -> Caller | Trusted | None:
        if isinstance(credentials, Trusted | Caller):
            return credentials  # (a face that authenticated the request already: MCP)
        if not credentials.present:
            return None
        if not wait and not self._authenticate.answers_locally:
            raise WouldBlock()
        try:
            return self._authenticate.execute(
                authorization=credentials.authorization, x_api_key=credentials.x_api_key
            )
        except AuthenticationFailed as error:
            raise Refused(error, keyed=True) from None
        except DataUnavailable as error:
            public = entry.public if entry is not None and entry.keyed is None else None
            if public is not None and public.unavailable is not None:
                # A public-only operation with its own failure (the search's documented 500):
                # the key store is part of that service there.
                raise Refused(public.unavailable(), keyed=False) from None
            raise Refused(error, keyed=True) from None

    @staticmethod
    def choose(entry: Entry, caller: Caller | Trusted | None) -> AnyOperation:
        if caller is None:
            if entry.public is None:
                raise Refused(MissingApiKey(), keyed=True)
            return entry.public
        operation = entry.keyed or entry.public
        if operation is None:  # pragma: no cover - an entry always holds one
            raise ValueError("an empty entry")
        return operation

    # ------------------------------------------------------------------ public

    def _public(
        self,
        operation: AnyOperation,
        arguments: Mapping[str, object],
        places: Mapping[str, Place] | None,
        wait: bool,
    ) -> Outcome:
        try:
            args = Arguments(operation.by_name, arguments, None)
            if places is not _LENIENT:
                reject_unknown(operation, arguments, places)
            request = operation.prepare(args)
            synthetic = self._uses.about.serves_synthetic_data(wait=wait)
            result = self._run(operation, request)
        except DataUnavailable as error:
            failure = error if operation.unavailable is None else operation.unavailable()
            raise Refused(failure, keyed=False) from None
        except DomainError as error:
            raise Refused(error, keyed=False) from None
        return Outcome(operation=operation, request=request, result=result, synthetic=synthetic)

    # ------------------------------------------------------------------ keyed

    def _keyed(
        self,
        operation: AnyOperation,
        caller: Caller | Trusted,
        arguments: Mapping[str, object],
        places: Mapping[str, Place] | None,
        face: Face,
        wait: bool,
    ) -> Outcome:
        plan = caller.plan
        known: Caller | None = None if isinstance(caller, Trusted) else caller
        if operation.feature is not None:
            try:
                plan.require(operation.feature)
            except DomainError as error:
                raise Refused(error, keyed=True, reading=self._peek(known), caller=known) from None
        try:
            args = Arguments(operation.by_name, arguments, plan)
            reject_unknown(operation, arguments, places)
            request = operation.prepare(args)
        except DomainError as error:
            reading = None
            if known is not None and face.meters_refusals:
                reading = self._consume(operation, known, face, wait)
            elif known is not None:
                reading = self._peek(known)
            raise Refused(error, keyed=True, reading=reading, caller=known) from None
        if known is None:  # a trusted local caller: no meter
            try:
                result = self._run(operation, request)
                sources = tuple(self._datasets.current())
                version = self._datasets.data_version()
            except DomainError as error:
                raise Refused(error, keyed=True, caller=known) from None
            return Outcome(
                operation=operation,
                request=request,
                result=result,
                plan=plan,
                sources=sources,
                version=version,
                synthetic=self._synthetic(sources),
            )
        admission = self._admit(known, face, wait)
        try:
            result = self._run(operation, request)
            sources = tuple(self._datasets.current())
            version = self._datasets.data_version()
        except DataUnavailable as error:  # the service failed: nothing is charged
            raise Refused(error, keyed=True, reading=self._peek(known), caller=known) from None
        except DomainError as error:  # what the use case found (404...): charged
            reading = self._charge(operation, known, face, admission, wait)
            raise Refused(error, keyed=True, reading=reading, caller=known) from None
        reading = self._charge(operation, known, face, admission, wait)
        return Outcome(
            operation=operation,
            request=request,
            result=result,
            caller=known,
            plan=plan,
            reading=reading,
            sources=sources,
            version=version,
            synthetic=self._synthetic(sources),
        )

    def _synthetic(self, sources: tuple[DatasetRecord, ...]) -> bool:
        """Whether any source is invented, worked out once per data version (a registry
        gives one tuple per version)."""
        seen, synthetic = self._last_sources
        if seen is not sources:
            synthetic = any(source.synthetic for source in sources)
            self._last_sources = (sources, synthetic)
        return synthetic

    def _run(self, operation: AnyOperation, request: Any) -> Any:
        if self.reuse is None or not operation.reusable:
            return operation.run(self._uses, request)
        return self.reuse.run(operation.name, request, lambda: operation.run(self._uses, request))

    def _consume(
        self, operation: AnyOperation, caller: Caller, face: Face, wait: bool
    ) -> MeterReading:
        """Admit and charge at once (a REST request refused for its arguments)."""
        return self._charge(operation, caller, face, self._admit(caller, face, wait), wait)

    def _admit(self, caller: Caller, face: Face, wait: bool) -> Admission:
        """The rate limit, before anything runs: 429 rate_limit_exceeded past it."""
        if not wait and not self._meter.can_admit_without_waiting:
            raise WouldBlock()
        try:
            return self._meter.admit_rate(caller)
        except LimitReached as limited:
            self.observer.limited(face=face.name, reason=limited.code)
            raise Refused(limited, keyed=True, reading=limited.reading, caller=caller) from None
        except DataUnavailable as error:
            raise Refused(error, keyed=True, reading=self._peek(caller), caller=caller) from None

    def _charge(
        self, operation: AnyOperation, caller: Caller, face: Face, admission: Admission, wait: bool
    ) -> MeterReading:
        """One quota use for an admitted request: 429 quota_exceeded when it is used up,
        503 (nothing charged) when the counter fails; WouldBlock (the rate hit taken back)
        when it could only be charged by waiting on the event loop."""
        try:
            reading = self._meter.charge(caller, admission, wait=wait)
        except LimitReached as limited:
            self.observer.limited(face=face.name, reason=limited.code)
            raise Refused(limited, keyed=True, reading=limited.reading, caller=caller) from None
        except DataUnavailable as error:
            raise Refused(error, keyed=True, reading=self._peek(caller), caller=caller) from None
        self.observer.metered(face=face.name, feature=_metered_as(operation))
        return reading

    def _peek(self, caller: Caller | None) -> MeterReading | None:
        if caller is None:
            return None
        try:
            return self._meter.peek(caller)
        except DataUnavailable:
            return None

    def peek(self, caller: Caller) -> MeterReading | None:
        """The caller's reading as it stands, for answers that meter nothing."""
        return self._peek(caller)


def reject_unknown(
    operation: AnyOperation, arguments: Mapping[str, object], places: Mapping[str, Place] | None
) -> None:
    """Arguments the operation does not declare, or that arrived elsewhere than declared."""
    declared = operation.by_name
    unknown = [
        name
        for name in arguments
        if name not in declared
        or (places is not None and places.get(name) is not declared[name].place)
    ]
    if unknown:
        raise UnknownParameter(unknown)


_METERED_AS: dict[str, str] = {}  # by operation name (an Enum's `value` is a Python property)


def _metered_as(operation: AnyOperation) -> str:
    """What a metered call of `operation` counts under: its plan feature, else its name."""
    label = _METERED_AS.get(operation.name)
    if label is None:
        feature = operation.feature
        label = feature.value if feature is not None else operation.name
        _METERED_AS[operation.name] = label
    return label
