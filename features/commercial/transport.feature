@transport
Feature: What every response over the wire carries
  "meta.request_id: Unique per request. The same value is sent in the X-Request-Id header."
  "Commercial responses carry source attribution and a dataset generation timestamp." "Nothing
  can be written. The MCP endpoint cannot perform applications, bookings, account changes or
  payments."

  Rule: Every response carries a request id, unique per request

    Scenario: Public answers carry a request id
      Given I am an anonymous caller
      When I search for "school"
      Then the response carries a request id
      And asking again carries a different request id

    Scenario: Refusals carry a request id too
      Given I am an anonymous caller
      When I ask for the school "12345"
      Then the response carries a request id

  @commercial
  Rule: "Commercial responses carry source attribution and a dataset generation timestamp"

    Scenario: A commercial answer names its sources and when the data was generated
      Given I hold a key on the "developer" plan
      When I ask for the profile of school "100001"
      Then the answer names its sources with their name, publisher, licence, url and retrieval time
      And the answer says when the dataset was generated

  @mcp
  Rule: "Nothing can be written"

    Scenario: Every MCP tool, public or commercial, is read-only
      Given I hold a key on the "enterprise" plan
      Then every tool I am offered is read-only

  @mcp
  Rule: Every bad input gets a clear error: a body over the limit is a JSON-RPC error, not text

    Scenario: An MCP request body over 64 KiB is refused before it is read
      Given I hold a key on the "enterprise" plan
      Then a tools/call of 65 KiB is refused with HTTP 413 and JSON-RPC error -32600

  Rule: Absolute URLs come from configuration or a host the service answers to, never from the client
    Every absolute URL in an answer starts from the configured base URL or the request's Host,
    so a request may only name a host the service answers to; one that names another host, or
    no host at all, is refused before any answer is built (issue 51).

    Scenario: A request naming another host is refused and the host is never repeated
      Given I am an anonymous caller
      When I ask for the school "100001" naming the host "evil.example"
      Then the request is refused with HTTP 421 "misdirected_request" and a request id
      And nothing in the answer names "evil.example"

    Scenario Outline: A Host that names no host is a 400, never a 500
      Given I am an anonymous caller
      When I ask for the school "100001" naming the host "<host>"
      Then the request is refused with HTTP 400 "invalid_request" and a request id

      Examples:
        | host                        |
        | a:/b                        |
        | 127.0.0.1:/x                |
        | http://x                    |
        | 127.0.0.1:8790@evil.example |
