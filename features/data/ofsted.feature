Feature: Ofsted grades are historic
  `ofstedRating`: "1 Outstanding, 2 Good, 3 Requires Improvement, 4 Inadequate. Older
  single-word overall grades are historic after 10 November 2025 and are not comparable with
  current report-card outcomes." They are served "with the inspection date and a
  comparable: false flag"; report-card outcomes are "their own fields, never mapped onto 1-4".

  Rule: A single-word grade is served with its date and marked historic and not comparable

    @public
    Scenario: The public record marks an Outstanding grade from 2016 as historic
      Given I am an anonymous caller
      When I ask for the school "100002"
      Then the record shows:
        | ofstedRating                         | 1             |
        | ofstedRatingHistoric.grade           | 1             |
        | ofstedRatingHistoric.label           | "Outstanding" |
        | ofstedRatingHistoric.inspectionDate  | "2016-06-01"  |
        | ofstedRatingHistoric.historic        | true          |
        | ofstedRatingHistoric.comparable      | false         |

    @public
    Scenario: A school with no grade has a null rating, not zero
      Given I am an anonymous caller
      When I ask for the school "100003"
      Then the record shows:
        | ofstedRating         | null |
        | ofstedRatingHistoric | null |

    @commercial
    Scenario: The commercial profile marks a Good grade from 2019 as historic
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001"
      Then the record shows:
        | ofsted_rating                         | 2            |
        | ofsted_historic_grade.label           | "Good"       |
        | ofsted_historic_grade.inspection_date | "2019-03-05" |
        | ofsted_historic_grade.comparable      | false        |

  @commercial
  Rule: Report cards and graded inspections are different frameworks, never compared

    Scenario: The inspection history keeps report cards and graded inspections apart
      Given I hold a key on the "developer" plan
      And school 100001 had a graded inspection on 2019-03-05 judged 2
      And school 100001 had a report card inspection on 2026-01-20 with "achievement" judged "strong standard"
      When I ask for the inspection history of school "100001"
      Then the inspections are listed newest first
      And the latest report card shows "achievement" as "strong standard"
      And no report card carries an overall grade
      And every graded inspection is marked historic and not comparable
