"""What the service says about itself: metadata, source policy and data freshness."""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen

from schooldata.application.paging import Page, PageRequest
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.licensing import SCHOOL_FIELDS, Exclusion, Licence
from schooldata.domain.plans import PlanCatalogue
from schooldata.ports.datasets import DatasetRegistry
from schooldata.ports.keys import WouldBlock

API_VERSION = "v1"
DESCRIPTION_VERSION = "1.0.0"
COMMERCIAL_LAUNCH = "2026-08-19"
PROTOCOL_VERSIONS = ("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26")

# Cadence and coverage are properties of each publisher's product, not of one file.
DATASET_FACTS: dict[str, tuple[str, str]] = {
    "gias_establishments": (
        "daily",
        "All establishments in England and Wales; open ones are served.",
    ),
    "gias_links": ("daily", "Predecessor/successor links between establishments."),
    "codepoint_open": ("quarterly", "Every live postcode in Great Britain (no Northern Ireland)."),
    "onspd": ("quarterly", "UK postcodes including terminated ones (terminated are not served)."),
    "ks4_information": ("annual", "State-funded and independent schools with KS4 pupils, England."),
    "ks4_results": ("annual", "Schools with KS4 pupils, England."),
    "ks2_results": ("annual", "State-funded primary schools, England."),
    "ks5_results": ("annual", "Schools and colleges with 16-18 students, England."),
    "ks5_destinations": (
        "annual",
        "Institution cohorts completing 16-18 study, England; 2022/23 is the newest served.",
    ),
    "ofsted_report_card": ("monthly", "State-funded schools inspected under report cards."),
    "ofsted_graded": ("monthly", "State-funded schools' latest graded inspections (historic)."),
    "ofsted_all_inspections": (
        "monthly",
        "State-funded schools' inspections in the year: graded, ungraded and monitoring.",
    ),
    "ofsted_latest_inspections": (
        "monthly",
        "State-funded schools' latest report cards and latest graded inspections (historic).",
    ),
    "admissions": ("annual", "State-funded primary and secondary schools, England."),
    "finance": ("annual", "Maintained schools and academies, England."),
}


@frozen(kw_only=True)
class Freshness:
    """A dataset's period, cadence and coverage, and (`source`, None until `schooldata
    refresh` first fetched it) where it comes from, when that was last checked and when it
    last changed."""

    dataset: DatasetRecord
    cadence: str
    coverage: str
    source: SourceCheck | None = None


@frozen(kw_only=True)
class ServiceMeta:
    api_version: str
    description_version: str
    commercial_launch: str
    mcp_protocol_versions: tuple[str, ...]
    plans: PlanCatalogue
    never_served: tuple[tuple[str, Exclusion], ...]
    sources: tuple[DatasetRecord, ...]


class About:
    def __init__(
        self,
        *,
        datasets: DatasetRegistry,
        plans: PlanCatalogue,
        in_memory: Callable[[], bool] = lambda: False,
    ) -> None:
        """`in_memory()`: whether the dataset list answers from memory right now (the
        composition root knows), so a caller on an event loop may read it there. Once it
        does it always will: the served snapshot is replaced by the next, never dropped."""
        self._datasets = datasets
        self._plans = plans
        self._in_memory = in_memory
        self._loaded = False  # in_memory() said so once
        # The last dataset list read and whether it held synthetic data.
        self._synthetic: tuple[tuple[DatasetRecord, ...], bool] = ((), False)

    def meta(self) -> ServiceMeta:
        never = tuple(
            (f.name, f.exclusion)
            for f in SCHOOL_FIELDS
            if f.licence is Licence.NEVER and f.exclusion is not None
        )
        return ServiceMeta(
            api_version=API_VERSION,
            description_version=DESCRIPTION_VERSION,
            commercial_launch=COMMERCIAL_LAUNCH,
            mcp_protocol_versions=PROTOCOL_VERSIONS,
            plans=self._plans,
            never_served=never,
            sources=tuple(self._datasets.current()),
        )

    def serves_synthetic_data(self, *, wait: bool = True) -> bool:
        """The data served includes invented records (the bundled demo): every face says so.

        Decided once per dataset list, which changes only with the data version: the served
        adapter keeps the list in memory (a copy of a dozen records, no I/O), and a list equal
        to the last one read (the same records: compared by identity first) has the same
        answer. With `wait=False` (a caller on an event loop) a list that is not in memory yet
        raises `WouldBlock` rather than read the store; DataUnavailable as any read of it."""
        if not wait and not self._loaded:
            if not self._in_memory():
                raise WouldBlock()
            self._loaded = True
        records = self._datasets.current()
        last, answer = self._synthetic
        if records is not last and tuple(records) != last:
            answer = any(record.synthetic for record in records)
            # A tuple: the port's own when it hands one out per version (`is` above), else
            # a copy, since the port may reuse its list.
            self._synthetic = (tuple(records), answer)
        return answer

    def freshness(self) -> list[Freshness]:
        sources = {check.dataset: check for check in self._datasets.sources()}
        out = []
        for record in self._datasets.current():
            cadence, coverage = DATASET_FACTS.get(record.name, ("irregular", "As published."))
            out.append(
                Freshness(
                    dataset=record,
                    cadence=record.cadence or cadence,
                    coverage=record.coverage or coverage,
                    source=sources.get(record.name),
                )
            )
        return out

    def freshness_of(self, request: PageRequest) -> Page[Freshness]:
        """The freshness list a page at a time, as every list is."""
        return request.of(self.freshness())
