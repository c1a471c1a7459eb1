"""Every establishment of a run: drafts made into schools with URNs, numbers, postcodes,
dates, sizes and trusts, in the order the seed fixes."""

from __future__ import annotations

import datetime as dt
import math
import random
from collections import Counter
from collections.abc import Sequence

from tools.demo.codepoint import CodePoint, Postcode
from tools.demo.config import N_WESTMINSTER_OPEN, SEED, SW1A_1AA, WESTMINSTER_RADIUS_M, Scale
from tools.demo.draws import apportion, first_of_month, random_date, substream, weighted
from tools.demo.kinds import (
    PROFILE_WEIGHTS,
    STATUS_CLOSED,
    STATUS_OPEN,
    STATUS_PROPOSED_TO_CLOSE,
    STATUS_PROPOSED_TO_OPEN,
    TYPES,
    EstablishmentType,
)
from tools.demo.names import FIXED_SCHOOLS, STEMS, STREET_SUFFIXES, TRUST_WORDS, curly, school_name
from tools.demo.places import GOR_NAMES, LocalAuthority, district_of, phone_number
from tools.demo.real_names import RealNames
from tools.demo.school import Draft, School, draft_school


class Builder:
    """Turns drafts into schools: allocates URNs, numbers, postcodes and trusts."""

    def __init__(
        self, rng: random.Random, codepoint: CodePoint, scale: Scale, real_names: RealNames
    ) -> None:
        self.rng = rng
        self.cp = codepoint
        self.scale = scale
        self.real_names = real_names
        # Names drawn again for schools whose first draw is a real school's: a stream of their
        # own, so every other school keeps what the seed gives it.
        self.renames = substream("real_names")
        self.used_urns: set[int] = set()  # membership only; never iterated
        self.used_postcodes: set[str] = set()
        self.next_number: dict[tuple[str, int], int] = {}
        self.names_in_la: set[tuple[str, str]] = set()  # as first drawn
        self.invented_in_la: set[tuple[str, str]] = set()  # drawn again (invented_name)
        self.next_ukprn = 10_090_000
        self.next_uprn = 100_070_000_000
        self.trusts = self._make_trusts()
        # Westminster postcodes within 2 miles of SW1A 1AA, for the proximity demos.
        self.near_pool = [
            p
            for p in codepoint.by_la["213"]
            if math.dist((p.easting, p.northing), SW1A_1AA) <= WESTMINSTER_RADIUS_M
        ]

    def _make_trusts(self) -> dict[str, list[tuple[int, str]]]:
        """Give each region a few invented trusts; academies join one in their region."""
        trusts: dict[str, list[tuple[int, str]]] = {gor: [] for gor in sorted(GOR_NAMES)}
        codes = self.rng.sample(range(2000, 17999), len(TRUST_WORDS))
        for i, (code, name) in enumerate(zip(codes, TRUST_WORDS, strict=True)):
            regions = sorted(GOR_NAMES)
            trusts[regions[i % len(regions)]].append((code, name))
        return trusts

    def urn(self, lo: int, hi: int) -> int:
        while True:
            candidate = self.rng.randint(lo, hi)
            if candidate not in self.used_urns:
                self.used_urns.add(candidate)
                return candidate

    def estab_number(self, la: LocalAuthority, etype: EstablishmentType, phase: int) -> int:
        """DfE-style establishment number: the range says what kind of school it is."""
        if etype.kind == "independent":
            base = 6000
        elif etype.special:
            base = 7000
        elif etype.kind == "fe":
            base = 8000
        elif etype.alternative or phase == 1:
            base = 1000
        elif phase in (4, 5, 6, 7):
            base = 5400 if etype.name == "Foundation school" else 4000
        elif etype.name in ("Voluntary aided school", "Voluntary controlled school"):
            base = 3000
        elif etype.name == "Foundation school":
            base = 5200
        else:
            base = 2000
        key = (la.code, base)
        number = self.next_number.get(key, base) + self.rng.randint(1, 6)
        self.next_number[key] = number
        return number

    def postcode(self, la: LocalAuthority, outward: str = "", near: bool = False) -> Postcode:
        """A random quality-10 postcode of the LA, not yet used by another school."""
        pool = self.cp.by_la[la.code]
        if outward:
            pool = [p for p in pool if p.outward == outward]
        if near:
            pool = self.near_pool
        for _ in range(200):
            pc = self.rng.choice(pool)
            if pc.postcode not in self.used_postcodes:
                self.used_postcodes.add(pc.postcode)
                return pc
        raise SystemExit(f"ran out of postcodes for {la.name} {outward}")

    def unique_name(self, la: LocalAuthority, town: str, draft: Draft) -> str:
        for _ in range(30):
            name = curly(self.rng, school_name(self.rng, la, town, draft))
            if (la.code, name) not in self.names_in_la:
                break
        self.names_in_la.add((la.code, name))
        if self.real_names.taken(name, (town, la.name)) or (la.code, name) in self.invented_in_la:
            name = self.invented_name(la, town, draft)
        return name

    def invented_name(self, la: LocalAuthority, town: str, draft: Draft) -> str:
        """A name for the drafted school that no real school and no school of its authority
        has. Kinds with few names (a town's technical college) are set apart by a stem."""
        for attempt in range(200):
            name = curly(self.renames, school_name(self.renames, la, town, draft))
            if attempt >= 100:
                name = f"{self.renames.choice(STEMS)} {name.removeprefix('The ')}"
            taken = self.real_names.taken(name, (town, la.name))
            used = (la.code, name) in self.names_in_la or (la.code, name) in self.invented_in_la
            if not taken and not used:
                self.invented_in_la.add((la.code, name))
                return name
        raise SystemExit(f"no invented name for a {draft.profile} school in {la.name}")

    def build(
        self, la: LocalAuthority, draft: Draft, status: tuple[int, str], pc: Postcode
    ) -> School:
        rng = self.rng
        t = draft.etype
        if status == STATUS_PROPOSED_TO_OPEN:
            urn = self.urn(*self.scale.urn_ranges[0])
        elif t.kind in ("academy", "free"):
            urn = self.urn(*self.scale.urn_ranges[1])
        else:
            urn = self.urn(*self.scale.urn_ranges[2])
        _, _, town = district_of(pc, la)
        name = draft.name or self.unique_name(la, town, draft)
        school = School(
            urn=urn,
            la=la,
            estab_number=self.estab_number(la, t, draft.phase),
            name=name,
            etype=t,
            phase=draft.phase,
            low_age=draft.low,
            high_age=draft.high,
            status=status,
            pc=pc,
            gender=draft.gender,
            religion=draft.religion,
            selective=draft.selective,
        )
        self._dates(school)
        self._size(school)
        self._place(school)
        self._address(school, town)
        if t.kind in ("academy", "free") or (t.name == "Foundation school" and rng.random() < 0.3):
            region = self.trusts[la.gor]
            school.trust = rng.choice(region)
        if status != STATUS_PROPOSED_TO_OPEN and rng.random() < 0.97:
            school.ukprn = self.next_ukprn
            self.next_ukprn += rng.randint(1, 40)
        if rng.random() < 0.95:
            school.uprn = str(self.next_uprn)
            self.next_uprn += rng.randint(1, 50_000)
        return school

    def _dates(self, s: School) -> None:
        """Open dates for new schools and academies; close dates follow the status."""
        rng = self.rng
        t = s.etype
        if t.kind == "academy":
            s.open_date = first_of_month(rng, 2011, 2025)
            s.reason_opened = "sponsor" if "sponsor" in t.name else "converter"
        elif t.kind == "free":
            s.open_date = dt.date(rng.randint(2012, 2025), 9, 1)
            s.reason_opened = "free"
        elif t.kind == "independent" or rng.random() < 0.15:
            s.open_date = rng.choice(
                (dt.date(1900, 1, 1), random_date(rng, dt.date(1950, 1, 1), dt.date(2010, 12, 31)))
            )
            s.reason_opened = "na" if t.kind != "independent" else "new"
        if s.status == STATUS_PROPOSED_TO_OPEN:
            s.open_date = rng.choice(
                (dt.date(2027, 1, 1), dt.date(2027, 4, 1), dt.date(2027, 9, 1), dt.date(2028, 9, 1))
            )
            s.reason_opened = "free" if t.kind == "free" else "new"
        elif s.status == STATUS_PROPOSED_TO_CLOSE:
            s.close_date = rng.choice(
                (dt.date(2026, 12, 31), dt.date(2027, 3, 31), dt.date(2027, 8, 31))
            )
            s.reason_closed = "academy" if t.kind == "maintained" else "closure"
        elif s.status == STATUS_CLOSED and s.close_date is None:
            # A school closes after it opened: at least a year later, and before the extract.
            if s.open_date is not None and s.open_date > dt.date(2024, 8, 31):
                s.open_date = dt.date(rng.randint(2011, 2020), 9, 1)
            earliest = max(
                dt.date(1995, 1, 1), (s.open_date or dt.date(1900, 1, 1)) + dt.timedelta(days=365)
            )
            s.close_date = random_date(rng, earliest, dt.date(2026, 8, 31))
            s.reason_closed = "closure"

    def _size(self, s: School) -> None:
        """Capacity from forms of entry and year groups; roll and FSM around it."""
        rng = self.rng
        years = max(1, min(s.high_age, 18) - max(s.low_age, 4))
        if s.phase in (2, 3):
            forms_of_entry = rng.choice((0.5, 1, 1, 1.5, 2, 2, 3))
            s.capacity = int(forms_of_entry * 30 * years) + (26 if s.low_age <= 3 else 0)
        elif s.phase == 7:
            s.capacity = rng.choice((1, 2, 2, 3)) * 30 * 7 + rng.choice((4, 6, 8)) * 30 * 5
            s.capacity += rng.randrange(100, 300, 10) if s.high_age >= 18 else 0
        elif s.phase in (4, 5):
            fe = rng.choice((4, 5, 6, 6, 7, 8, 8, 9, 10, 12))
            main = fe * 30 * min(years, 5)
            s.capacity = main + (rng.randrange(150, 360, 10) if s.high_age >= 18 else 0)
        elif s.phase == 1:
            s.capacity = rng.randrange(40, 130, 2)
        elif s.phase == 6:
            s.capacity = None if s.etype.kind == "fe" else rng.randrange(400, 1800, 10)
        elif s.etype.alternative:
            s.capacity = rng.randrange(20, 90, 5)
        elif s.etype.special:
            s.capacity = rng.randrange(40, 260, 5)
        elif s.high_age <= 13:  # independent prep and pre-prep schools
            s.capacity = rng.randrange(40, 480, 5)
        else:
            s.capacity = rng.randrange(60, 1400, 5)
        blank_census = (
            s.status in (STATUS_PROPOSED_TO_OPEN, STATUS_CLOSED)
            or s.etype.kind == "fe"
            or rng.random() < 0.03
        )
        if s.capacity and not blank_census:
            s.pupils = max(8, round(s.capacity * rng.uniform(0.72, 1.06)))
        elif s.etype.kind == "fe" and not blank_census:
            s.pupils = None
        if s.pupils is not None and not s.is_independent and rng.random() > 0.02:
            base = 30.0 if s.la.gor in ("H", "A", "B") else 22.0
            s.fsm_percent = round(min(80.0, max(0.5, rng.gauss(base, 11.0))), 1)
        if s.pupils is not None and s.capacity is not None and s.pupils > s.capacity * 1.2:
            s.pupils = s.capacity

    def _address(self, s: School, town: str) -> None:
        """Invented street and locality; real post town, postcode and county."""
        rng = self.rng
        s.street = f"{rng.choice(STEMS)} {rng.choice(STREET_SUFFIXES)}"
        if rng.random() < 0.3:
            s.street = f"{rng.randint(1, 240)} {s.street}"
        s.locality = rng.choice(STEMS) if rng.random() < 0.35 else ""
        s.town = town
        s.county = s.la.county if s.la.county and rng.random() < 0.8 else ""
        if s.status != STATUS_PROPOSED_TO_OPEN:
            s.phone = phone_number(rng, s.la)

    def _place(self, s: School) -> None:
        """Easting/Northing = the postcode's, a few metres off; ~1% unknown."""
        if self.rng.random() < 0.01:
            return
        s.easting = s.pc.easting + self.rng.randint(-25, 25)
        s.northing = s.pc.northing + self.rng.randint(-25, 25)


def make_schools(
    codepoint: CodePoint,
    authorities: Sequence[LocalAuthority],
    scale: Scale,
    real_names: RealNames,
) -> list[School]:
    """Every establishment of a run, sorted by URN like a GIAS download. No name is a real
    school's (`real_names`)."""
    rng = random.Random(SEED)
    builder = Builder(rng, codepoint, scale, real_names)
    las = {la.code: la for la in authorities}
    schools: list[School] = []

    def add(la: LocalAuthority, draft: Draft, status: tuple[int, str], pc: Postcode) -> School:
        school = builder.build(la, draft, status, pc)
        schools.append(school)
        return school

    # 1. The fixed rows the demo relies on.
    for fixed in FIXED_SCHOOLS:
        if real_names.taken(fixed.name, (las[fixed.la].name,)):
            raise SystemExit(f"the fixed demo school {fixed.name!r} has a real school's name")
        la = las[fixed.la]
        draft = draft_school(rng, la, fixed.profile)
        draft.etype, draft.religion, draft.name = TYPES[fixed.etype], fixed.religion, fixed.name
        builder.names_in_la.add((fixed.la, fixed.name))
        near = fixed.la == "213" and not fixed.outward
        add(la, draft, STATUS_OPEN, builder.postcode(la, outward=fixed.outward, near=near))

    # 2. Open schools, apportioned to LAs by weight; Westminster all near SW1A 1AA.
    fixed_per_la = Counter(fixed.la for fixed in FIXED_SCHOOLS)
    others = [la for la in authorities if la.code != "213"]
    remaining = (
        scale.n_open
        - N_WESTMINSTER_OPEN
        - sum(n for code, n in fixed_per_la.items() if code != "213")
    )
    counts = dict(
        zip(
            [la.code for la in others],
            apportion(remaining, [la.weight for la in others]),
            strict=True,
        )
    )
    counts["213"] = N_WESTMINSTER_OPEN - fixed_per_la["213"]
    for la in authorities:
        for _ in range(counts[la.code]):
            draft = draft_school(rng, la, weighted(rng, PROFILE_WEIGHTS))
            pc = builder.postcode(la, near=la.code == "213")
            add(la, draft, STATUS_OPEN, pc)

    # 3. Open, but proposed to close: mostly maintained schools about to become academies.
    la_weights = [(la.code, float(max(la.weight, 20))) for la in authorities]
    for _ in range(scale.n_proposed_to_close):
        la = las[weighted(rng, la_weights)]
        draft = draft_school(rng, la, weighted(rng, PROFILE_WEIGHTS))
        add(la, draft, STATUS_PROPOSED_TO_CLOSE, builder.postcode(la, near=la.code == "213"))

    # 4. Closed predecessors of open converter academies: same name and site, a maintained
    #    type, closed the day before the academy opened.
    converters = [
        s
        for s in schools
        if s.etype.name == "Academy converter"
        and s.status == STATUS_OPEN
        and s.open_date is not None
    ]
    for academy in rng.sample(converters, min(scale.n_closed_for_academy, len(converters))):
        assert academy.open_date is not None
        draft = Draft(
            "predecessor",
            TYPES[
                rng.choice(
                    (
                        "Community school",
                        "Community school",
                        "Voluntary controlled school",
                        "Foundation school",
                    )
                )
            ],
            academy.phase,
            academy.low_age,
            academy.high_age,
            academy.religion,
            academy.gender,
            academy.selective,
            name=academy.name,
        )
        old = builder.build(academy.la, draft, STATUS_CLOSED, academy.pc)
        old.close_date = academy.open_date - dt.timedelta(days=1)
        old.reason_closed = "academy"
        old.open_date = None
        old.reason_opened = "na"
        old.easting, old.northing = academy.easting, academy.northing
        schools.append(old)

    # 5. Other closures (amalgamations, falling rolls), and 6. schools proposed to open.
    for _ in range(scale.n_closed_other):
        la = las[weighted(rng, la_weights)]
        draft = draft_school(rng, la, weighted(rng, PROFILE_WEIGHTS))
        add(la, draft, STATUS_CLOSED, builder.postcode(la, near=la.code == "213"))
    for _ in range(scale.n_proposed_to_open):
        la = las[weighted(rng, la_weights)]
        profile = weighted(
            rng,
            [
                ("primary", 35.0),
                ("secondary", 25.0),
                ("special", 30.0),
                ("pru", 5.0),
                ("all_through", 5.0),
            ],
        )
        draft = draft_school(rng, la, profile)
        draft.selective = False
        if draft.etype.kind in ("maintained", "academy"):
            draft.etype = TYPES[
                "Free schools special"
                if draft.etype.special
                else "Free schools alternative provision"
                if draft.etype.alternative
                else "Free schools"
            ]
        add(la, draft, STATUS_PROPOSED_TO_OPEN, builder.postcode(la, near=la.code == "213"))

    schools.sort(key=lambda s: s.urn)
    return schools
