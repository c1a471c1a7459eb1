@commercial
Feature: What each plan may do
  "A capability not included in the caller's plan makes the request fail with 403 and the
  error code feature_not_in_plan", whose details hold "feature (string, the name of the
  capability)". "per_page maximum 25, 50 or 100, depending on plan"; "Compare: Bounded by
  plan". The plans: developer (25 per page, compare not included), professional (50 per
  page, compare up to 10, results, admissions, rankings) and enterprise (100 per page,
  compare up to 25, and finance).

  Rule: A capability outside the plan is refused with feature_not_in_plan, naming the feature

    Scenario Outline: The <plan> plan does not include <capability>
      Given I hold a key on the "<plan>" plan
      When I ask for the <capability> of school "100002"
      Then the request is refused with "feature_not_in_plan"
      And the refusal names the feature "<feature>"

      Examples:
        | plan         | capability | feature    |
        | developer    | results    | results    |
        | developer    | admissions | admissions |
        | developer    | finance    | finance    |
        | professional | finance    | finance    |

    Scenario Outline: The <plan> plan includes <capability>
      Given I hold a key on the "<plan>" plan
      When I ask for the <capability> of school "100002"
      Then the answer is given

      Examples:
        | plan         | capability         |
        | developer    | inspection history |
        | professional | results            |
        | professional | admissions         |
        | enterprise   | finance            |

    Scenario: The developer plan does not include comparing schools
      Given I hold a key on the "developer" plan
      When I compare the schools "100002, 100003"
      Then the request is refused with "feature_not_in_plan"
      And the refusal names the feature "compare"

    Scenario: The developer plan does not include rankings
      Given I hold a key on the "developer" plan
      When I ask for rankings with:
        | metric | svc_score |
        | phase  | secondary |
      Then the request is refused with "feature_not_in_plan"
      And the refusal names the feature "rankings"

  Rule: "per_page maximum 25, 50 or 100, depending on plan"

    Scenario Outline: <per_page> per page is within the <plan> plan
      Given I hold a key on the "<plan>" plan
      When I list schools with:
        | q        | school     |
        | per_page | <per_page> |
      Then the answer is given
      And 15 results are returned

      Examples:
        | plan         | per_page |
        | developer    | 25       |
        | professional | 50       |
        | enterprise   | 100      |

    Scenario Outline: <per_page> per page is more than the <plan> plan allows
      Given I hold a key on the "<plan>" plan
      When I list schools with:
        | q        | school     |
        | per_page | <per_page> |
      Then the request is refused with "limit_exceeds_plan"
      And the refusal names the parameter "per_page" with a maximum of <max>

      Examples:
        | plan         | per_page | max |
        | developer    | 26       | 25  |
        | professional | 51       | 50  |
        | enterprise   | 101      | 100 |

    Scenario: Fewer than one per page is refused
      Given I hold a key on the "developer" plan
      When I list schools with:
        | q        | school |
        | per_page | 0      |
      Then the request is refused with "invalid_parameter"

  Rule: "Compare: Bounded by plan": 2 to the plan's maximum of distinct URNs

    Scenario Outline: Comparing <count> schools is within the professional plan
      Given I hold a key on the "professional" plan
      When I compare <count> different schools
      Then the answer is given
      And the comparison shows <count> schools in the order asked

      Examples:
        | count |
        | 2     |
        | 10    |

    Scenario: Comparing one more school than the plan allows is refused
      Given I hold a key on the "professional" plan
      When I compare 11 different schools
      Then the request is refused with "limit_exceeds_plan"
      And the refusal names the parameter "urns" with a maximum of 10

    Scenario: The same school twice is refused
      Given I hold a key on the "professional" plan
      When I compare the schools "100002, 100002"
      Then the request is refused with "invalid_parameter"

    Scenario: A comparison needs at least two schools
      Given I hold a key on the "professional" plan
      When I compare the schools "100002"
      Then the request is refused with "invalid_parameter"

    Scenario: A comparison with an unknown school is not found, naming it
      Given I hold a key on the "professional" plan
      When I compare the schools "100002, 999999"
      Then the request is refused with "not_found"
      And the refusal mentions "999999"

    Scenario: A comparison with an invalid URN is refused, naming urns
      Given I hold a key on the "professional" plan
      When I compare the schools "100002, 12345"
      Then the request is refused with "invalid_urn"
      And the refusal names the parameter "urns"

    Scenario: URNs to compare may be given as numbers
      Given I hold a key on the "professional" plan
      When I compare the schools given as numbers "100002, 100003, 100005"
      Then the comparison shows 3 schools in the order asked
