@commercial
Feature: What changed since a data version
  "GET /api/v1/changes?since=<version>" (DECISIONS "Data through time"): a data version is made
  by each import that changes served data, its id sorts in time, and every commercial answer's
  meta.data_version names the version it was served from. The changes after `since` come in
  version order, then URN order: opened, closed, updated with its fields, inspection_added,
  results_added, linked. `since` = current: an empty page; older than the retention: 410
  since_expired; malformed or unknown: 400. Plan feature `changes` (professional, enterprise).
  No MCP tool lists them: the ten commercial tools are the contract.

  Background:
    Given I hold a key on the "professional" plan

  Rule: Each import that changes the register makes a version whose changes are listed per school

    Scenario: A renamed school is an update naming the field that changed
      Given the data version is noted
      When school 100001 is renamed "St Mary's CE Primary Academy" in the register
      And I ask for the changes since the noted version
      Then the changes are exactly:
        | urn    | kind    | detail |
        | 100001 | updated | name   |
      And every change names its data version and that version's time

    Scenario: A school the register lists as closed is closed, a new one opened, in URN order
      Given the data version is noted
      When the register lists school 100006 as closed
      And school 100030 opens as "Regent's Park Primary School" in Camden
      And I ask for the changes since the noted version
      Then the changes are exactly:
        | urn    | kind   |
        | 100006 | closed |
        | 100030 | opened |

    Scenario: A conversion's links are changes of both schools
      Given the data version is noted
      And school 100021 converted from school 100019 on 2026-09-01
      When I ask for the changes since the noted version
      Then the changes are exactly:
        | urn    | kind   | detail             |
        | 100019 | linked | Successor 100021   |
        | 100021 | linked | Predecessor 100019 |

    Scenario: A revised results year is a change of that year for each school it holds
      Given the data version is noted
      When the "ks4_results" results of 2024/25 are published as revised on 2026-03-12
      And I ask for the changes since the noted version with:
        | kind             | results_added |
        | local_authority  | Westminster   |
      Then the changes are exactly:
        | urn    | kind          | detail      |
        | 100003 | results_added | ks4 2024/25 |
        | 100021 | results_added | ks4 2024/25 |

  Rule: Changes are filtered by kind, local authority and phase

    Scenario: Only the kind, the authority and the phase asked for
      Given the data version is noted
      When the register lists school 100006 as closed
      And school 100001 is renamed "St Mary's CE Primary Academy" in the register
      And I ask for the changes since the noted version with:
        | local_authority | camden  |
        | phase           | primary |
      Then the changes are exactly:
        | urn    | kind   |
        | 100006 | closed |

  Rule: The versions a caller may name

    Scenario: Since the current version there is no change
      When I ask for the changes since the current version
      Then the answer is given
      And no change is listed

    Scenario Outline: A since that is no version is refused as invalid
      When I ask for the changes since "<since>"
      Then the request is refused with "invalid_parameter"
      And the refusal names the parameter "since"

      Examples:
        | since                   |
        | yesterday               |
        | 20261301T000000Z-000001 |
        | 20991231T000000Z-000007 |

    Scenario: A since older than the changes kept has expired
      When I ask for the changes since "20000101T000000Z-000001"
      Then the request is refused with "since_expired"
      And the refusal mentions "no longer kept"

  Rule: The changes are a feature of the professional and enterprise plans

    Scenario: The developer plan does not list changes
      Given I hold a key on the "developer" plan
      When I ask for the changes since the current version
      Then the request is refused with "feature_not_in_plan"
      And the refusal names the feature "changes"
