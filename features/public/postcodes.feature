@public
Feature: Finding schools near a postcode
  A postcode is a "Full UK postcode or outward code", with a "minimum length 2". "When a
  postcode is supplied, results are sorted nearest first", each with its `distanceMiles`
  ("Distance from the supplied postcode"). `radius_miles` is "0.1 to 100. Maximum distance
  from the postcode." An unknown postcode is an error ("the postcode is unknown").

  Background:
    Given I am an anonymous caller

  Rule: Results near a postcode are "sorted nearest first", each with its distance

    Scenario: The schools near Buckingham Palace, nearest first
      When I search near "SW1A 1AA"
      Then the results are nearest first
      And every result carries its distance in miles
      And the nearest school is 100021

    Scenario Outline: A postcode is understood whatever its case and spacing: "<postcode>"
      When I search near "<postcode>"
      Then the results are nearest first
      And the schools found are the same as near "SW1A 1AA"

      Examples:
        | postcode   |
        | sw1a1aa    |
        | SW1A1AA    |
        | sw1a  1aa  |
        | Sw1a 1aA   |

    Scenario Outline: An outward code "<outward>" finds the schools nearest that district
      When I search near "<outward>"
      Then the results are nearest first
      And every result carries its distance in miles
      And the nearest school is <nearest>

      Examples:
        | outward | nearest |
        | SW1A    | 100001  |
        | sw1a    | 100001  |
        | B1      | 100015  |

    Scenario: A query and a postcode together find the matching schools nearest first
      When I search with:
        | query    | westminster |
        | postcode | SW1A        |
      Then the results are nearest first
      And 8 schools match in total

  Rule: An unknown or malformed postcode is refused, never guessed

    Scenario: An unknown postcode is refused
      When I search near "ZZ99 9ZZ"
      Then the request is refused with "unknown_postcode"
      And the refusal mentions "Unknown postcode"

    Scenario Outline: "<postcode>" is not a postcode and is refused
      When I search near "<postcode>"
      Then the request is refused with "invalid_parameter"

      Examples:
        | postcode       |
        | not a postcode |
        | S              |

  Rule: "radius_miles 0.1 to 100. Maximum distance from the postcode."

    Scenario Outline: A radius of <radius> miles is accepted and bounds every result
      When I search with:
        | postcode     | SW1A 1AA |
        | radius_miles | <radius> |
        | limit        | 25       |
      Then the answer is given
      And every result is within <radius> miles
      And <count> schools match in total

      Examples:
        | radius | count |
        | 0.1    | 1     |
        | 0.5    | 3     |
        | 2      | 8     |
        | 100    | 15    |

    Scenario Outline: A radius of <radius> miles is refused
      When I search with:
        | postcode     | SW1A 1AA |
        | radius_miles | <radius> |
      Then the request is refused with "invalid_parameter"
      And the refusal mentions "radius_miles"

      Examples:
        | radius |
        | 0      |
        | 0.09   |
        | 100.01 |
        | -1     |
        | far    |
