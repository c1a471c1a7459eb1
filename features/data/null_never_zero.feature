Feature: null means unavailable or suppressed, never zero
  "A null value means unavailable or suppressed. It never means zero. Clients must not treat
  a missing or suppressed value as zero." `svcScore` is "A comparison signal. It is null where
  the evidence is not comparable or reliable enough", with `scoreSuppressed` and a
  `scoreSuppressedReason`.

  @public
  Rule: A suppressed score is null, flagged, and says why

    Scenario Outline: The score of <name> is suppressed because of <reason>
      Given I am an anonymous caller
      When I ask for the school "<urn>"
      Then the record shows:
        | svcScore              | null       |
        | scoreSuppressed       | true       |
        | scoreSuppressedReason | "<reason>" |

      Examples:
        | urn    | name                    | reason                 |
        | 100009 | Regent High School      | small_cohort           |
        | 100001 | a primary school        | no_comparable_evidence |
        | 100007 | an independent school   | not_comparable         |

    Scenario: A school with comparable evidence has a score from 0 to 100 and no suppression reason
      Given I am an anonymous caller
      When I ask for the school "100021"
      Then the record's "svcScore" is between 0 and 100
      And the record shows:
        | scoreSuppressed | false |
      And the record has no field "scoreSuppressedReason"

    Scenario: A search shows a suppressed score as null, and an unknown location as null
      Given I am an anonymous caller
      When I search for "regent high"
      Then the result for school 100009 shows:
        | svcScore        | null |
        | scoreSuppressed | true |
        | location        | null |
        | ofstedRating    | null |

  @commercial
  Rule: A suppressed figure is null, with its status and reason, in every commercial answer

    Scenario: A small cohort's Attainment 8 is suppressed, not zero
      Given I hold a key on the "professional" plan
      When I ask for the results of school "100009"
      Then the latest "ks4_attainment8_average" is null with the status "suppressed" and the reason "small_cohort"

    Scenario: A measure a publisher marked "not applicable" stays null with its reason
      Given I hold a key on the "professional" plan
      And school 100003 has these published measures:
        | period  | measure                  | value                          | cohort |
        | 2024/25 | ks4_ebacc_entry_percent  | not applicable: not_applicable | 120    |
      When I ask for the results of school "100003"
      Then the latest "ks4_ebacc_entry_percent" is null with the status "not_applicable" and the reason "not_applicable"

    Scenario: A compared school's suppressed figure is null in the comparison
      Given I hold a key on the "professional" plan
      When I compare the schools "100009, 100003"
      Then the comparison shows school 100009's "ks4_attainment8_average" as null with the reason "small_cohort"
      And the comparison shows school 100009's "svc_score" as null

    Scenario: Schools whose figure is suppressed are left out of a ranking, never ranked as zero
      Given I hold a key on the "professional" plan
      When I ask for rankings with:
        | metric | ks4_attainment8_average |
        | phase  | secondary               |
      Then the ranking leaves out school 100009
      And the ranking is in descending order of value
