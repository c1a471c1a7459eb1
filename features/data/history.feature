@commercial
Feature: A school's history across conversions, and the release of every results figure
  DECISIONS "Data through time": "include_predecessors=true on results and inspections (REST
  and the matching MCP tools) adds the rows of predecessors reached through GIAS
  conversion/amalgamation links, each row naming its URN; the default answer is unchanged."
  "Each results year carries its release status (provisional, revised, final) and the
  publisher's release date; a newer status replaces the older one for that year."

  Background:
    Given I hold a key on the "professional" plan

  Rule: A converted school's results and inspections may include its predecessors'

    Scenario: The results of a converted school include its closed predecessor's years
      Given school 100019 has these published measures:
        | period  | measure                  | value | cohort |
        | 2023/24 | ks2_rwm_expected_percent | 61    | 28     |
      And school 100021 converted from school 100019 on 2026-09-01
      When I ask for the results of school "100021" with its predecessors
      Then the predecessors are exactly the schools 100019
      And predecessor 100019 came through the Predecessor link of school 100021
      And predecessor 100019 shows:
        | status          | "Closed"      |
        | depth           | 1             |
        | ks2.periods     | ["2023/24"]   |
        | via.established | "2026-09-01"  |

    Scenario: The inspection history of a converted school includes its predecessor's
      Given school 100019 had a graded inspection on 2019-05-14 judged 3
      And school 100021 converted from school 100019 on 2026-09-01
      When I ask for the inspection history of school "100021" with its predecessors
      Then the predecessors are exactly the schools 100019
      And predecessor 100019 shows:
        | inspections.0.inspection_date        | "2019-05-14" |
        | inspections.0.overall_effectiveness  | 3            |

    Scenario: Without asking, the answer is the school's own
      Given school 100021 converted from school 100019 on 2026-09-01
      When I ask for the results of school "100021"
      Then the answer has none of the fields predecessors

    Scenario: Predecessors are followed back through each conversion, each once
      Given school 100021 converted from school 100019 on 2026-09-01
      And school 100019 converted from school 100020 on 2019-09-01
      And school 100020 links to school 100021 as its Predecessor
      When I ask for the results of school "100021" with its predecessors
      Then the predecessors are exactly the schools 100019, 100020
      And predecessor 100020 came through the Predecessor link of school 100019

    Scenario: A successor, a split or a sixth-form link leads to no predecessor
      Given school 100021 links to school 100002 as its Successor
      And school 100021 links to school 100003 as its Predecessor - Split School
      When I ask for the results of school "100021" with its predecessors
      Then no predecessor is listed

  Rule: Each results year says its release status and the publisher's release date

    Scenario: A year published as provisional says so, with the publisher's date
      Given the "ks4_results" results of 2024/25 are published as provisional on 2025-10-16
      When I ask for the results of school "100002"
      Then the "ks4" years are released as:
        | period  | dataset     | status      | released   |
        | 2024/25 | ks4_results | provisional | 2025-10-16 |

    Scenario: A revised year replaces the provisional one, never a second year
      Given the "ks4_results" results of 2024/25 are published as provisional on 2025-10-16
      When the "ks4_results" results of 2024/25 are published as revised on 2026-03-12
      And I ask for the results of school "100002"
      Then the "ks4" years are released as:
        | period  | dataset     | status  | released   |
        | 2024/25 | ks4_results | revised | 2026-03-12 |
      And the answer shows:
        | ks4.periods | ["2024/25"] |

    Scenario: A year whose file does not say its release is unknown, never guessed
      When I ask for the results of school "100002"
      Then the "ks4" years are released as:
        | period  | dataset     | status | released |
        | 2024/25 | ks4_results |        |          |
