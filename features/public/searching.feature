@public
Feature: Searching open schools
  The public search (REST searchSchools, the MCP tool search_schools, `schooldata search`)
  "Searches open schools by name, local authority or type. When a postcode is supplied,
  results are sorted nearest first. At least one of query or postcode is required."

  Background:
    Given I am an anonymous caller

  Rule: A query "Matches name, local authority or school type"

    Scenario: Searching by name finds the school however its apostrophes and full stops are written
      When I search for "St Marys"
      Then the results include the school "St Mary’s Church of England Primary School"
      And the results include the school "St. Mary's Roman Catholic High School"

    Scenario: Searching by local authority finds that authority's open schools
      When I search for "birmingham"
      Then 5 schools match in total
      And every result is in the local authority "Birmingham"

    Scenario: Searching by school type finds the schools of that type
      When I search for "nursery"
      Then the results are exactly the schools 100010

    Scenario: "total" counts every match, not just the results on the page
      When I search with:
        | query | school |
        | limit | 3      |
      Then 15 schools match in total
      And 3 results are returned

    Scenario: The same search gives the same answer every time
      When I search for "school"
      Then asking again gives the same answer

  Rule: "At least one of query or postcode is required"

    Scenario: A search with neither a query nor a postcode is refused
      When I search with:
        | phase | primary |
      Then the request is refused with "invalid_parameter"
      And the refusal mentions "query"

  Rule: A query has a "minimum length 2"

    Scenario: A two-character query is accepted
      When I search for "st"
      Then the answer is given

    Scenario: A one-character query is refused
      When I search for "a"
      Then the request is refused with "invalid_parameter"
      And the refusal mentions "at least 2 characters"

    Scenario Outline: The bound is on the query as sent: "<query>" is a question that matches nothing
      When I search for "<query>"
      Then 0 schools match in total

      Examples:
        | query |
        | ..    |
        | !?    |

    Scenario: The public query has no maximum length: a 300-character query is searched
      When I search for a query of 300 characters
      Then the answer is given

  Rule: The answer echoes the input: "No properties other than those listed may appear"

    Scenario: A search answer echoes its input and holds only the documented fields
      When I search with:
        | query        | westminster |
        | postcode     | SW1A 1AA    |
        | phase        | primary     |
        | radius_miles | 2           |
      Then the answer shows:
        | query       | "westminster" |
        | postcode    | "SW1A 1AA"    |
        | phase       | "primary"     |
        | radiusMiles | 2             |
        | limit       | 10            |
      And the answer has exactly the fields query, postcode, phase, radiusMiles, total, limit, results
      And every result has only the fields urn, name, phase, type, localAuthority, location, distanceMiles, ofstedRating, svcScore, scoreSuppressed, url

    Scenario: Without a postcode the echoes are null and no result has a distance
      When I search for "st mary"
      Then the answer shows:
        | query       | "st mary" |
        | postcode    | null      |
        | phase       | null      |
        | radiusMiles | null      |
      And no result carries a distance

  Rule: "Only open establishments (status Open, or Open but proposed to close) are served"

    Scenario: Closed schools and schools not yet open never appear in a search
      When I search for "example school"
      Then no school matches

    Scenario: A school that is open but proposed to close is found
      When I search for "harris academy"
      Then the results are exactly the schools 100021
