"""The use cases an operation runs: the application satisfies this structurally."""

from __future__ import annotations

from typing import Protocol

from schooldata.application.about import About
from schooldata.application.changes import ListChanges
from schooldata.application.commercial import CommercialSchools
from schooldata.application.get_school import GetSchool
from schooldata.application.school_data import SchoolData
from schooldata.application.search_schools import SearchSchools


class UseCases(Protocol):
    @property
    def search_schools(self) -> SearchSchools: ...

    @property
    def get_school(self) -> GetSchool: ...

    @property
    def commercial(self) -> CommercialSchools: ...

    @property
    def school_data(self) -> SchoolData: ...

    @property
    def about(self) -> About: ...

    @property
    def changes(self) -> ListChanges: ...
