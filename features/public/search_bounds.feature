@public
Feature: The bounds of a public search
  "limit 1 to 25, default 10." "phase: One of primary, secondary, nursery, sixth form,
  all-through." A value outside its bounds is refused with a clear error, never clamped.

  Background:
    Given I am an anonymous caller

  Rule: "limit 1 to 25, default 10"

    Scenario: Without a limit a search returns at most 10 results
      When I search for "school"
      Then the answer shows:
        | limit | 10 |
      And 10 results are returned

    Scenario Outline: A limit of <limit> is accepted and bounds the results
      When I search with:
        | query | school  |
        | limit | <limit> |
      Then the answer shows:
        | limit | <limit> |
      And at most <limit> results are returned

      Examples:
        | limit |
        | 1     |
        | 10    |
        | 25    |

    Scenario Outline: A limit of <limit> is refused
      When I search with:
        | query | school  |
        | limit | <limit> |
      Then the request is refused with "invalid_parameter"
      And the refusal mentions "limit"

      Examples:
        | limit |
        | 0     |
        | 26    |
        | -1    |
        | ten   |

  Rule: "phase: One of primary, secondary, nursery, sixth form, all-through"

    Scenario Outline: Searching for <phase> schools finds only <phase> schools
      When I search with:
        | postcode | SW1A 1AA |
        | phase    | <phase>  |
        | limit    | 25       |
      Then <count> schools match in total
      And every result has the phase "<phase>"

      Examples:
        | phase       | count |
        | primary     | 8     |
        | secondary   | 6     |
        | nursery     | 1     |
        | sixth form  | 1     |
        | all-through | 1     |

    Scenario: A middle school deemed primary counts as primary
      When I search with:
        | query | pimlico |
        | phase | primary |
      Then the results are exactly the schools 100013

    Scenario Outline: "<phase>" is not a phase and is refused
      When I search with:
        | query | school  |
        | phase | <phase> |
      Then the request is refused with "invalid_parameter"
      And the refusal mentions "phase"

      Examples:
        | phase   |
        | infant  |
        | college |
        | sixth   |

  Rule: A phase may be written in any case, as the answers write it or not

    Scenario Outline: Searching for "<written>" schools finds the <phase> schools
      When I search with:
        | postcode | SW1A 1AA  |
        | phase    | <written> |
        | limit    | 25        |
      Then <count> schools match in total
      And every result has the phase "<phase>"
      And the answer shows:
        | phase | "<written>" |

      Examples:
        | written     | phase       | count |
        | Primary     | primary     | 8     |
        | SECONDARY   | secondary   | 6     |
        | Sixth Form  | sixth form  | 1     |
        | All-Through | all-through | 1     |

  @rest
  Rule: A parameter the public search does not define is ignored (its refusals are listed)

    Scenario: A search with a parameter it does not define answers as without it
      When I search with:
        | query | pimlico |
        | phase | primary |
        | sort  | name    |
        | page  | 2       |
      Then the results are exactly the schools 100013
