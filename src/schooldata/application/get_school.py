"""One school's current record (operations `getSchool` and `getSchoolLegacy`, MCP `get_school`)."""

from __future__ import annotations

from schooldata.domain.errors import SchoolNotFound
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.schools import SchoolReader


class GetSchool:
    """- The URN is exactly six digits (else an invalid-URN error, before any lookup).
    - Only open schools are served: a closed or unknown URN is not found."""

    def __init__(self, *, schools: SchoolReader) -> None:
        self._schools = schools

    def execute(self, raw_urn: object) -> School:
        urn = Urn.parse(raw_urn)
        school = self._schools.get(urn=urn)
        if school is None:
            raise SchoolNotFound(urn)
        return school
