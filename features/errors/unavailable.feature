Feature: When a dependency is down
  Public search: "500 Error: The search service is temporarily unavailable." Commercial: "503:
  Authentication or data dependency unavailable." A dependency (the school register, the key
  store, the usage meter) that fails is "service_unavailable": "never a stack trace, never a
  200 with partial data".

  @public
  Rule: Public questions say the service is temporarily unavailable

    Scenario: A search while the school register is down
      Given I am an anonymous caller
      And the school register is unavailable
      When I search for "school"
      Then the request is refused as temporarily unavailable

    Scenario: A school's record while the school register is down
      Given I am an anonymous caller
      And the school register is unavailable
      When I ask for the school "100001"
      Then the request is refused as temporarily unavailable

  @commercial
  Rule: Commercial questions are refused with service_unavailable

    Scenario: A profile while the school register is down
      Given I hold a key on the "developer" plan
      And the school register is unavailable
      When I ask for the profile of school "100001"
      Then the request is refused with "service_unavailable"

    @keys
    Scenario: Any keyed question while the key store is down
      Given I hold a key on the "developer" plan
      And the key store is unavailable
      When I ask for the profile of school "100001"
      Then the request is refused with "service_unavailable"

    @keys @metering
    Scenario: Any keyed question while the usage meter is down
      Given I hold a key on the "developer" plan
      And the usage meter is unavailable
      When I ask for the profile of school "100001"
      Then the request is refused with "service_unavailable"
