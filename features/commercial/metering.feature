@commercial @keys @metering
Feature: Rate limits and quotas
  "Rate limit: Per second." "Quota: Per period, per plan." "On 429, the response carries
  Retry-After." "MCP metering: one accepted tools/call consumes one request." What is metered:
  a commercial request that passed authentication, entitlement and the rate limit. "Never
  metered: 401, 403, 429 responses, discovery, ping, tools/list, public requests." The rate
  limit is per key, the quota per organisation and calendar month (UTC). The developer plan
  allows 5 requests a second and 1,000 a month.

  Rule: Each accepted request uses one request of the organisation's monthly quota

    Scenario Outline: <count> accepted requests use <count> requests of the quota
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001" <count> times
      Then <count> requests are answered
      And my organisation has used <count> requests this month

      Examples:
        | count |
        | 1     |
        | 3     |
        | 7     |

    Scenario: A request that ran and found nothing is still metered
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "999999"
      Then the request is refused with "not_found"
      And my organisation has used 1 request this month

    Scenario: Test and live keys of one organisation share its quota
      Given I hold a key on the "developer" plan
      And my organisation also holds a test key
      When I ask for the profile of school "100001" 2 times
      And I switch to the test key
      And I ask for the profile of school "100001" 3 times
      Then my organisation has used 5 requests this month

  Rule: Refused requests and public requests are never metered

    Scenario: A request for a capability outside the plan is not metered
      Given I hold a key on the "developer" plan
      When I ask for the results of school "100002"
      Then the request is refused with "feature_not_in_plan"
      And my organisation has used 0 requests this month

    Scenario: A request with a revoked key is not metered
      Given I hold a key on the "developer" plan
      And my key has been revoked
      When I ask for the profile of school "100001"
      Then the request is refused with "api_key_revoked"
      And my organisation has used 0 requests this month

    Scenario: Public requests are not metered
      Given I hold a key on the "developer" plan
      When I search for "school"
      And I ask for the school "100001"
      Then my organisation has used 0 requests this month

  Rule: "Rate limit: Per second"

    Scenario: The sixth request within one second is refused on the developer plan, and not metered
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001" 6 times within one second
      Then 5 requests are answered and 1 is refused with "rate_limit_exceeded"
      And I am told to retry after at least 1 second
      And my organisation has used 5 requests this month

    Scenario: A second later requests are answered again
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001" 6 times within one second
      And a second passes
      And I ask for the profile of school "100001"
      Then the answer is given
      And my organisation has used 6 requests this month

    Scenario: The rate limit is per key, the quota per organisation
      Given the clock is stopped
      And I hold a key on the "developer" plan
      And my organisation also holds a test key
      When I ask for the profile of school "100001" 5 times
      And I switch to the test key
      And I ask for the profile of school "100001" 5 times
      Then 10 requests are answered
      And my organisation has used 10 requests this month

    Scenario: A plan's own rate applies: 3 a second
      Given the "developer" plan allows 3 requests a second
      And I hold a key on the "developer" plan
      When I ask for the profile of school "100001" 5 times within one second
      Then 3 requests are answered and 2 are refused with "rate_limit_exceeded"

  Rule: "Quota: Per period, per plan"

    Scenario: Once the month's quota is used up, requests are refused until the next month
      Given the "developer" plan allows 3 requests a month
      And I hold a key on the "developer" plan
      When I ask for the profile of school "100001" 5 times
      Then 3 requests are answered and 2 are refused with "quota_exceeded"
      And I am told to retry when the next month begins
      And my organisation has used 3 requests this month

  Rule: A request the service fails is never charged
    A failure of the service (a dependency down) costs the customer no quota: the use is
    charged once the answer is known, and only an answer or a finding is one. (A REST request
    refused for its arguments stays metered, below.)

    Scenario: A profile asked while the school register is down is not charged
      Given I hold a key on the "developer" plan
      And the school register is unavailable
      When I ask for the profile of school "100001" 3 times
      Then 0 requests are answered and 3 are refused with "service_unavailable"
      And my organisation has used 0 requests this month

    Scenario: Once the register is back, each answer is charged again
      Given I hold a key on the "developer" plan
      And the school register is unavailable
      When I ask for the profile of school "100001"
      And the school register is back
      And I ask for the profile of school "100001" 2 times
      Then my organisation has used 2 requests this month

    Scenario: A school not found while the register answers is still charged
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "999999"
      Then the request is refused with "not_found"
      And my organisation has used 1 request this month

  Rule: A request that ran is metered whatever it found

    Scenario: Looking near an unknown postcode is metered: the postcode was looked up
      Given I hold a key on the "developer" plan
      When I look for schools near:
        | postcode | ZZ99 9ZZ |
      Then the request is refused with "unknown_postcode"
      And my organisation has used 1 request this month

  @mcp
  Rule: An MCP tools/call is metered only when its "arguments validated (the tool ran, whatever it found)"

    Scenario Outline: Looking near <what> is refused and not metered
      Given I hold a key on the "developer" plan
      When I look for schools near:
        | <name> | <value> |
      Then the request is refused with "invalid_parameter"
      And the refusal names the parameter "<parameter>"
      And my organisation has used 0 requests this month

      Examples:
        | what                            | name         | value          | parameter    |
        | a latitude without a longitude  | latitude     | 51.5           | latitude     |
        | a radius without an origin      | radius_miles | 1              | postcode     |
        | something not shaped a postcode | postcode     | not a postcode | postcode     |

    Scenario: A postcode and a point together are refused and not metered
      Given I hold a key on the "developer" plan
      When I look for schools near:
        | postcode  | SW1A 1AA |
        | latitude  | 51.5     |
        | longitude | -0.1     |
      Then the request is refused with "invalid_parameter"
      And my organisation has used 0 requests this month

    Scenario: Sorting by distance without an origin is refused and not metered
      Given I hold a key on the "developer" plan
      When I list schools with:
        | q    | st       |
        | sort | distance |
      Then the request is refused with "invalid_parameter"
      And the refusal names the parameter "sort"
      And my organisation has used 0 requests this month

    Scenario: An invalid URN is refused and not metered
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "12345"
      Then the request is refused with "invalid_urn"
      And my organisation has used 0 requests this month

  @domain @rest
  Rule: A REST request is metered once it "passed authentication, entitlement and the rate limit", even when its parameters are invalid

    Scenario: A REST request refused for its parameters is metered
      Given I hold a key on the "developer" plan
      When I look for schools near:
        | latitude | 51.5 |
      Then the request is refused with "invalid_parameter"
      And my organisation has used 1 request this month

  @transport
  Rule: Commercial answers carry the metering headers

    Scenario: Every commercial answer carries the six metering headers
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001"
      Then the response carries the headers X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Quota-Limit, X-Quota-Remaining, X-Quota-Reset
      And the response header "X-RateLimit-Limit" is "5"
      And the response header "X-Quota-Limit" is "1000"
      And the response header "X-Quota-Remaining" is "999"

    Scenario: A refusal outside the plan carries the headers and consumes nothing
      Given I hold a key on the "developer" plan
      When I ask for the results of school "100002"
      Then the response header "X-Quota-Remaining" is "1000"

  @rest
  Rule: "On 429, the response carries Retry-After"

    Scenario: A rate-limited response carries Retry-After in whole seconds
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001" 6 times within one second
      Then the last response carries the headers Retry-After
      And the response header "X-RateLimit-Remaining" is "0"

  @mcp
  Rule: "Discovery, ping and tool listing authenticate but are not metered"

    Scenario: Discovering the server and listing its tools is not metered
      Given I hold a key on the "developer" plan
      When I discover the MCP server and list its tools 3 times
      Then my organisation has used 0 requests this month
