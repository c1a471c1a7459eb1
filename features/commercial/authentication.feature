@commercial @keys
Feature: Keys
  "Every commercial REST request and every commercial MCP request must carry
  Authorization: Bearer <API_KEY>." "The header X-API-Key is accepted for constrained legacy
  systems. The bearer header is preferred." "A key in the query string is rejected." "A key
  belongs to an organisation and inherits that organisation's plan. A revoked key is invalid."
  Both headers present and different are "conflicting_credentials"; any request that carries
  credentials is authenticated, "never a silent downgrade".

  Rule: A valid key is accepted as a bearer token or in the X-API-Key header

    Scenario: "Authorization: Bearer <API_KEY>" is accepted
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001"
      Then the answer is given

    Scenario: "The header X-API-Key is accepted for constrained legacy systems"
      Given I hold a key on the "developer" plan
      And I send my key in the X-API-Key header instead
      When I ask for the profile of school "100001"
      Then the answer is given

    Scenario: The same key in both headers is accepted
      Given I hold a key on the "developer" plan
      And I send my key both as a bearer token and in the X-API-Key header
      When I ask for the profile of school "100001"
      Then the answer is given

    Scenario: A test key uses the same dataset as a live key
      Given I hold a test key on the "developer" plan
      When I ask for the profile of school "100002"
      Then the answer is given
      And the record shows:
        | urn  | 100002                                  |
        | name | "St. Mary's Roman Catholic High School" |

  Rule: Missing, invalid, revoked and conflicting credentials are refused, never downgraded

    Scenario: Two different keys at once are conflicting credentials
      Given I hold a key on the "developer" plan
      And I also send another organisation's key in the X-API-Key header
      When I ask for the profile of school "100001"
      Then the request is refused with "conflicting_credentials"

    Scenario: "A revoked key is invalid"
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001"
      Then the answer is given
      When my key is revoked
      And I ask for the profile of school "100001"
      Then the request is refused with "api_key_revoked"

    Scenario: A well-formed key that was never issued is refused
      Given I send a key that was never issued
      When I ask for the profile of school "100001"
      Then the request is refused with "invalid_api_key"

    Scenario Outline: A malformed key is refused before any lookup: <why>
      Given I send the key "<key>"
      When I ask for the profile of school "100001"
      Then the request is refused with "invalid_api_key"
      And the refusal does not repeat the key

      Examples:
        | key                                             | why                  |
        | svc_live_short                                  | too short            |
        | sk_live_0123456789abcdefghijABCDEFGHIJ01abcdef  | not our prefix       |
        | svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA  | a wrong checksum     |

    Scenario: A malformed key is refused by its format, even while the key store is down
      Given the key store is unavailable
      And I send the key "svc_live_short"
      When I ask for the profile of school "100001"
      Then the request is refused with "invalid_api_key"

    Scenario: A bad key is refused even on the public search: "never a silent downgrade"
      Given I send a key that was never issued
      When I search for "school" with my key
      Then the request is refused with "invalid_api_key"

    @domain @rest
    Scenario: A commercial question without a key is refused with missing_api_key
      Given I am an anonymous caller
      When I ask for the results of school "100001"
      Then the request is refused with "missing_api_key"

    @mcp
    Scenario: Without a key the MCP endpoint offers only the public tools
      Given I am an anonymous caller
      Then I am offered exactly the tools search_schools, get_school

    @mcp
    Scenario: With a key the MCP endpoint offers the ten commercial tools
      Given I hold a key on the "developer" plan
      Then I am offered exactly the tools search_schools, get_school, find_schools_near_location, compare_schools, get_school_inspection_history, get_school_results, get_school_admissions, get_school_finances, get_school_data_freshness, get_school_rankings

  @transport
  Rule: "A key in the query string is rejected"

    Scenario: A key sent in the query string is refused, on public routes too
      Given I hold a key on the "developer" plan
      When I send my key in the query string
      Then the request is refused with "api_key_in_query"
      And the refusal does not repeat the key

  @rest @metering
  Rule: A valid key on a public route gets the public answer and is not metered

    Scenario: A valid key on the public search gets the public answer, unmetered
      Given I hold a key on the "developer" plan
      When I search for "school" with my key
      Then the answer has exactly the fields query, postcode, phase, radiusMiles, total, limit, results
      And my organisation has used 0 requests this month
