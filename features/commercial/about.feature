@commercial
Feature: What the service says about itself
  "GET /meta: Version, source policy and API metadata." Versioning: "The REST interface is
  version 1. The version appears in the path /api/v1." "The public description has version
  1.0.0." "MCP protocol versions supported: 2026-07-28 (current, stateless), and the
  initialization-based 2025-11-25, 2025-06-18 and 2025-03-26." "Commercial v1 ... launched on
  2026-08-19."

  Background:
    Given I hold a key on the "developer" plan

  Rule: The metadata states the versions and the null policy

    Scenario: The service metadata states its versions
      When I ask for the service metadata
      Then the answer shows:
        | api_version           | "v1"                                                     |
        | description_version   | "1.0.0"                                                  |
        | commercial_launch     | "2026-08-19"                                             |
        | mcp_protocol_versions | ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] |
        | null_policy           | "null means unavailable or suppressed; it never means zero" |

    Scenario: The metadata states what each plan allows
      When I ask for the service metadata
      Then the plans are described as:
        | plan         | per_page_max | compare_max | rate_per_second | monthly_quota |
        | developer    | 25           | 3           | 5               | 1000          |
        | professional | 50           | 10          | 25              | 100000        |
        | enterprise   | 100          | 25          | 100             | 2000000       |
