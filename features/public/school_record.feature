@public
Feature: One school's public record
  getSchool "Returns the current public record of one school." The URN "Must match the
  pattern of exactly six digits": otherwise "Invalid URN"; an unknown school is "School not
  found". "Only open establishments (status Open, or Open but proposed to close) are served."

  Background:
    Given I am an anonymous caller

  Rule: The record has its required fields, `urn` and `name`

    Scenario: The public record of a school
      When I ask for the school "100002"
      Then the record shows:
        | urn      | 100002                                  |
        | name     | "St. Mary's Roman Catholic High School" |
        | postcode | "SW1A 1AA"                              |
        | town     | "London"                                |
        | phase    | "secondary"                             |
        | type     | "Academy converter"                     |

  Rule: The URN "Must match the pattern of exactly six digits"

    Scenario Outline: "<urn>" is refused as an invalid URN
      When I ask for the school "<urn>"
      Then the request is refused with "invalid_urn"
      And the refusal mentions "six digits"

      Examples:
        | urn     |
        | 12345   |
        | 1234567 |
        | abcdef  |
        | 10000a  |
        | 1000 1  |

  Rule: "School not found": unknown, closed and not-yet-open schools

    Scenario: A URN no school has is not found
      When I ask for the school "999999"
      Then the request is refused with "not_found"
      And the refusal mentions "999999"

    Scenario Outline: A school that is <status> is not served
      When I ask for the school "<urn>"
      Then the request is refused with "not_found"

      Examples:
        | urn    | status           |
        | 100019 | closed           |
        | 100020 | proposed to open |

    Scenario: A school that is "Open, but proposed to close" is served
      When I ask for the school "100021"
      Then the record shows:
        | urn    | 100021                        |
        | status | "Open, but proposed to close" |

  @rest
  Rule: "Legacy single-school route": "Compatibility route with the same behaviour as getSchool"

    Scenario: The deprecated legacy route answers exactly as getSchool, and says it is deprecated
      When I ask the legacy route for the school "100001"
      Then the record is the same as getSchool gives for "100001"
      And the response carries the headers Deprecation, Link

    Scenario Outline: The legacy route refuses "<urn>" as getSchool does
      When I ask the legacy route for the school "<urn>"
      Then the request is refused with "<code>"

      Examples:
        | urn    | code        |
        | 12     | invalid_urn |
        | 999999 | not_found   |
