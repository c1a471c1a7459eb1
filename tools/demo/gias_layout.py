"""The GIAS download's layout: its 135 columns in order (2025), and which of them are not
quoted."""

from __future__ import annotations

# 2024's 140-column header (as in gias_subset.csv) less the five columns GIAS dropped in
# 2025 gives the 135-column layout of DATA.md's appendix.
# fmt: off
GIAS_2024_COLUMNS = (
    "URN", "LA (code)", "LA (name)", "EstablishmentNumber", "EstablishmentName",
    "TypeOfEstablishment (code)", "TypeOfEstablishment (name)", "EstablishmentTypeGroup (code)",
    "EstablishmentTypeGroup (name)", "EstablishmentStatus (code)", "EstablishmentStatus (name)",
    "ReasonEstablishmentOpened (code)", "ReasonEstablishmentOpened (name)", "OpenDate",
    "ReasonEstablishmentClosed (code)", "ReasonEstablishmentClosed (name)", "CloseDate",
    "PhaseOfEducation (code)", "PhaseOfEducation (name)", "StatutoryLowAge", "StatutoryHighAge",
    "Boarders (code)", "Boarders (name)", "NurseryProvision (name)", "OfficialSixthForm (code)",
    "OfficialSixthForm (name)", "Gender (code)", "Gender (name)", "ReligiousCharacter (code)",
    "ReligiousCharacter (name)", "ReligiousEthos (name)", "Diocese (code)", "Diocese (name)",
    "AdmissionsPolicy (code)", "AdmissionsPolicy (name)", "SchoolCapacity",
    "SpecialClasses (code)", "SpecialClasses (name)", "CensusDate", "NumberOfPupils",
    "NumberOfBoys", "NumberOfGirls", "PercentageFSM", "TrustSchoolFlag (code)",
    "TrustSchoolFlag (name)", "Trusts (code)", "Trusts (name)", "SchoolSponsorFlag (name)",
    "SchoolSponsors (name)", "FederationFlag (name)", "Federations (code)", "Federations (name)",
    "UKPRN", "FEHEIdentifier", "FurtherEducationType (name)", "OfstedLastInsp",
    "OfstedSpecialMeasures (code)", "OfstedSpecialMeasures (name)", "LastChangedDate", "Street",
    "Locality", "Address3", "Town", "County (name)", "Postcode", "SchoolWebsite", "TelephoneNum",
    "HeadTitle (name)", "HeadFirstName", "HeadLastName", "HeadPreferredJobTitle",
    "BSOInspectorateName (name)", "InspectorateReport", "DateOfLastInspectionVisit",
    "NextInspectionVisit", "TeenMoth (name)", "TeenMothPlaces", "CCF (name)", "SENPRU (name)",
    "EBD (name)", "PlacesPRU", "FTProv (name)", "EdByOther (name)", "Section41Approved (name)",
    "SEN1 (name)", "SEN2 (name)", "SEN3 (name)", "SEN4 (name)", "SEN5 (name)", "SEN6 (name)",
    "SEN7 (name)", "SEN8 (name)", "SEN9 (name)", "SEN10 (name)", "SEN11 (name)", "SEN12 (name)",
    "SEN13 (name)", "TypeOfResourcedProvision (name)", "ResourcedProvisionOnRoll",
    "ResourcedProvisionCapacity", "SenUnitOnRoll", "SenUnitCapacity", "GOR (code)", "GOR (name)",
    "DistrictAdministrative (code)", "DistrictAdministrative (name)", "AdministrativeWard (code)",
    "AdministrativeWard (name)", "ParliamentaryConstituency (code)",
    "ParliamentaryConstituency (name)", "UrbanRural (code)", "UrbanRural (name)",
    "GSSLACode (name)", "Easting", "Northing", "MSOA (name)", "LSOA (name)",
    "InspectorateName (name)", "SENStat", "SENNoStat", "BoardingEstablishment (name)",
    "PropsName", "PreviousLA (code)", "PreviousLA (name)", "PreviousEstablishmentNumber",
    "OfstedRating (name)", "RSCRegion (name)", "Country (name)", "UPRN", "SiteName",
    "QABName (code)", "QABName (name)", "EstablishmentAccredited (code)",
    "EstablishmentAccredited (name)", "QABReport", "CHNumber", "MSOA (code)", "LSOA (code)",
    "FSM", "AccreditationExpiryDate",
)
# fmt: on
GIAS_DROPPED_2025 = (
    "OfstedLastInsp",
    "OfstedSpecialMeasures (code)",
    "OfstedSpecialMeasures (name)",
    "OfstedRating (name)",
    "RSCRegion (name)",
)
GIAS_COLUMNS = [c for c in GIAS_2024_COLUMNS if c not in GIAS_DROPPED_2025]
# A real GIAS download quotes every field except these integer columns (see README).
GIAS_UNQUOTED = frozenset(
    (
        "URN",
        "StatutoryLowAge",
        "StatutoryHighAge",
        "SchoolCapacity",
        "UKPRN",
        "Easting",
        "Northing",
        "SENStat",
        "SENNoStat",
    )
)
