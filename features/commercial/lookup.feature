@commercial
Feature: Looking up many schools at once
  "POST /api/v1/schools/lookup" (DECISIONS "Additive v1 features"): 1 to the plan's per_page
  maximum distinct URNs; the joined profiles, each as GET /schools/{urn} gives it, in the order
  asked, and the URNs not served (unknown, closed or proposed) listed as not found: never a 404
  for the whole request. One request is metered once. There is no MCP tool for it: the ten
  commercial tools stay the contract.

  Background:
    Given I hold a key on the "developer" plan

  Rule: The profiles come in the order asked; the URNs not served are listed as not found

    Scenario: Open, unknown, closed and proposed schools in one lookup
      When I look up the schools "100002, 999999, 100001, 100019, 100020"
      Then the profiles are of the schools 100002, 100001 in that order
      And the URNs not found are 999999, 100019, 100020

    Scenario: Every profile is the one the school's own profile gives
      When I look up the schools "100003, 100002, 100021"
      Then every profile is the school's own profile
      And no URN is reported not found

    Scenario: URNs may be given as the numbers they spell
      When I look up the schools given as numbers "100002, 100001"
      Then the profiles are of the schools 100002, 100001 in that order

    Scenario: A lookup that finds no open school is answered, not refused
      When I look up the schools "999999, 100019"
      Then the lookup holds no profile
      And the URNs not found are 999999, 100019

  Rule: 1 to the plan's per_page maximum distinct, well-formed URNs

    Scenario: As many URNs as the plan's per_page maximum are looked up
      When I look up 25 different URNs
      Then the answer is given

    Scenario: More URNs than the plan's per_page maximum are refused, naming the bound
      When I look up 26 different URNs
      Then the request is refused with "limit_exceeds_plan"
      And the refusal names the parameter "urns" with a maximum of 25

    Scenario: A URN given twice is refused
      When I look up the schools "100002, 100001, 100002"
      Then the request is refused with "invalid_parameter"

    Scenario: A malformed URN is refused
      When I look up the schools "100002, 10000a"
      Then the request is refused with "invalid_urn"

    Scenario: A lookup of no school is refused
      When I look up no school
      Then the request is refused with "invalid_parameter"

  @keys @metering
  Rule: One lookup is one request, however many schools it names

    Scenario: A lookup of three schools uses one request of the quota
      When I look up the schools "100002, 100001, 999999"
      Then my organisation has used 1 request this month
