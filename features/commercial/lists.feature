@commercial
Feature: Finding schools with a key
  "GET /schools: List with bounded filters", "GET /schools/nearby: Proximity by postcode or
  coordinates", "GET /schools/{urn}: Stable joined profile", "GET /data-freshness: Periods,
  cadence and coverage". "A parameter that is not supported makes the request fail with 400
  instead of being ignored."

  Background:
    Given I hold a key on the "developer" plan

  Rule: Nearby schools are nearest first, within the radius

    Scenario: Schools within a mile and a half of a postcode, nearest first
      When I look for schools near:
        | postcode     | sw1a1aa |
        | radius_miles | 1.5     |
      Then the results are nearest first
      And every result is within 1.5 miles
      And 7 schools match in total

    Scenario: Schools nearest a point given by latitude and longitude
      When I look for schools near:
        | latitude  | 52.4807 |
        | longitude | -1.901  |
        | per_page  | 3       |
      Then the results are nearest first
      And the nearest school is 100014

    Scenario: A postcode and a point together are refused
      When I look for schools near:
        | postcode  | SW1A 1AA |
        | latitude  | 51.5     |
        | longitude | -0.1     |
      Then the request is refused with "invalid_parameter"

    Scenario: An unknown postcode is refused
      When I look for schools near:
        | postcode | ZZ99 9ZZ |
      Then the request is refused with "unknown_postcode"

  Rule: "A parameter that is not supported makes the request fail with 400 instead of being ignored"

    Scenario: An unsupported filter is refused, naming it
      When I list schools with:
        | q      | school |
        | colour | blue   |
      Then the request is refused with "unknown_parameter"
      And the refusal mentions "colour"

  Rule: Filters narrow the list

    Scenario: Filtering by local authority and phase
      When I list schools with:
        | q               | school    |
        | local_authority | Camden    |
        | phase           | secondary |
      Then every result is in the local authority "Camden"
      And every result has the phase "secondary"
      And 3 schools match in total

    Scenario: Filter values may be written as the answers write them
      When I list schools with:
        | q      | school  |
        | phase  | Primary |
        | gender | Mixed   |
        | sort   | Name    |
      Then every result has the phase "primary"
      And the answer is given

  Rule: The commercial text "q" is at most 200 characters (the public query has no maximum)

    Scenario: A 200-character q is searched
      When I list schools with a q of 200 characters
      Then the answer is given

    Scenario: A 201-character q is refused
      When I list schools with a q of 201 characters
      Then the request is refused with "invalid_parameter"
      And the refusal mentions "at most 200 characters"

  Rule: The profile is "a stable joined record", of open schools only

    Scenario: The profile of a school is the same each time it is asked for
      When I ask for the profile of school "100002"
      Then the record shows:
        | urn   | 100002                                  |
        | name  | "St. Mary's Roman Catholic High School" |
        | phase | "secondary"                             |
      And asking again gives the same answer

    Scenario Outline: The profile of a <status> school is not found
      When I ask for the profile of school "<urn>"
      Then the request is refused with "not_found"

      Examples:
        | urn    | status           |
        | 100019 | closed           |
        | 100020 | proposed to open |
        | 999999 | unknown          |

    Scenario: The profile refuses an invalid URN
      When I ask for the profile of school "10000a"
      Then the request is refused with "invalid_urn"

  Rule: "the freshness resource reports periods, cadence and coverage"

    Scenario: Every dataset reports its period, cadence and coverage
      When I ask for the data freshness
      Then every dataset reports its period, cadence and coverage
