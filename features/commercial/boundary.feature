Feature: What is never served
  Public tier: "Public fields only. Catchment, fees and other premium fields are never
  returned." "An anonymous call never returns premium-only fields."
  Commercial tier: "Commercial responses exclude material from independent-school inspectors,
  fees, catchment geometries, AI summaries, school-website content and any other field
  without confirmed commercial rights." The head's name is personal data: never served.

  @public
  Rule: "An anonymous call never returns premium-only fields"

    Scenario Outline: The public record of <school> has no premium or personal field
      Given I am an anonymous caller
      When I ask for the school "<urn>"
      Then the answer has none of the fields pupils, capacity, percentageFsm, trustName, headName, inspectorateName, fees, catchment, aiSummary, websiteContent
      And the answer contains nothing that is never served

      Examples:
        | urn    | school                   |
        | 100002 | a secondary academy      |
        | 100007 | an independent school    |

    Scenario: Public search results carry public fields only
      Given I am an anonymous caller
      When I search for "westminster"
      Then every result has only the fields urn, name, phase, type, localAuthority, location, distanceMiles, ofstedRating, svcScore, scoreSuppressed, url
      And the answer contains nothing that is never served

  @commercial
  Rule: "Commercial responses exclude" independent-inspectorate material, fees, catchment, AI summaries and website content

    Background:
      Given I hold a key on the "enterprise" plan

    Scenario: The profile of an independent school carries nothing that is never served
      When I ask for the profile of school "100007"
      Then the answer is given
      And the answer contains nothing that is never served

    Scenario: A list of schools carries nothing that is never served
      When I list schools with:
        | q        | westminster |
        | per_page | 25          |
      Then the answer is given
      And the answer contains nothing that is never served

    Scenario: Schools near a postcode carry nothing that is never served
      When I look for schools near:
        | postcode     | SW1A 1AA |
        | radius_miles | 1        |
      Then the answer is given
      And the answer contains nothing that is never served

    Scenario: The inspection history of an independent school has no independent-inspectorate material
      When I ask for the inspection history of school "100007"
      Then the answer is given
      And the answer contains nothing that is never served

    Scenario: A comparison carries nothing that is never served
      When I compare the schools "100007, 100002, 100003"
      Then the answer is given
      And the answer contains nothing that is never served

    Scenario: The service declares what it never serves
      When I ask for the service metadata
      Then the service declares it never serves ai_summary, catchment_geometry, fees, independent_school_inspectorate, personal_data, school_website_content
