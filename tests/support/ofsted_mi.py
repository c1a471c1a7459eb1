"""Ofsted management-information headers as Ofsted has published them, for importer tests."""

from __future__ import annotations

IDENTITY = ["URN", "School name", "Ofsted phase", "Type of education", "Local authority"]

# The report-card file as first published (and as the bundled demo writes it).
REPORT_CARD = [
    *IDENTITY,
    "Inspection number",
    "Inspection type",
    "Inspection start date",
    "Publication date",
    "Inclusion",
    "Curriculum and teaching",
    "Achievement",
    "Attendance and behaviour",
    "Personal development and well-being",
    "Leadership and governance",
    "Early years",
    "Post-16",
    "Safeguarding",
]

# The historic graded-inspection file.
GRADED = [
    *IDENTITY,
    "Inspection number",
    "Inspection type",
    "Inspection start date",
    "Publication date",
    "Overall effectiveness",
    "Quality of education",
    "Behaviour and attitudes",
    "Personal development",
    "Effectiveness of leadership and management",
    "Safeguarding is effective?",
    "Early years provision (where applicable)",
    "Sixth form provision (where applicable)",
]

# The monthly "latest inspections" file of the report-card era: the latest full inspection
# (a report card) and the latest graded (OEIF) inspection side by side, NULL where absent.
LATEST = [
    "Web Link (opens in new window)",
    *IDENTITY,
    "Inspection number of latest full inspection",
    "Inspection type",
    "Inspection start date",
    "Publication date",
    "Inclusion",
    "Curriculum and teaching",
    "Achievement",
    "Attendance and behaviour",
    "Personal development and wellbeing",
    "Leadership and governance",
    "Early years (where applicable)",
    "Post-16 provision (where applicable)",
    "Safeguarding standards",
    "Inspection number of latest OEIF graded inspection",
    "Inspection start date of latest OEIF graded inspection",
    "Publication date of latest OEIF graded inspection",
    "Latest OEIF overall effectiveness",
    "Latest OEIF quality of education",
    "Latest OEIF behaviour and attitudes",
    "Latest OEIF personal development",
    "Latest OEIF effectiveness of leadership and management",
    "Latest OEIF early years provision (where applicable)",
    "Latest OEIF sixth form provision (where applicable)",
    "Latest ungraded inspection number",
    "Date of latest ungraded inspection",
    "Ungraded inspection publication date",
    "Ungraded inspection overall outcome",
]

# The monthly "latest graded inspections" file before report cards (2019-2024): the latest
# ungraded inspection beside the latest graded one (header as Ofsted published it, shortened).
LATEST_GRADED = [
    "Web link",
    *IDENTITY,
    "Latest ungraded inspection number since last graded inspection",
    "Number of ungraded inspections since the last graded inspection",
    "Date of latest ungraded inspection",
    "Ungraded inspection publication date",
    "Did the latest ungraded inspection convert to a graded inspection?",
    "Ungraded inspection overall outcome",
    "Inspection number of latest graded inspection",
    "Inspection type",
    "Inspection start date",
    "Inspection end date",
    "Publication date",
    "Overall effectiveness",
    "Category of concern",
    "Quality of education",
    "Behaviour and attitudes",
    "Personal development",
    "Effectiveness of leadership and management",
    "Safeguarding is effective?",
    "Early years provision (where applicable)",
    "Sixth form provision (where applicable)",
    "Previous graded inspection number",
    "Previous inspection start date",
    "Previous graded inspection overall effectiveness",
]


def row(header: list[str], cells: dict[str, str]) -> list[str]:
    """A row of `header` with `cells` by column name (the rest NULL, as Ofsted writes it)."""
    unknown = set(cells) - set(header)
    if unknown:
        raise KeyError(f"not in the header: {sorted(unknown)}")
    return [cells.get(name, "NULL") for name in header]
