@commercial
Feature: What the results mean
  "Progress 8 is not published for 2024/25 because the cohort has no KS2 baseline. The public
  export does not surface an older value as if it were current."
  "16-18 destinations data covers 2022/23 institution-level cohort data only. It covers
  students completing 16-18 study at that institution, not its Year 11 cohort."

  Background:
    Given I hold a key on the "professional" plan

  Rule: Progress 8 for 2024/25 is null with the reason no_ks2_baseline

    Scenario: Progress 8 for 2024/25 is null even when a source file gives a figure
      Given school 100003 has these published measures:
        | period  | measure               | value | cohort |
        | 2023/24 | ks4_progress8_average | 0.31  | 150    |
        | 2024/25 | ks4_progress8_average | 0.52  | 150    |
      When I ask for the results of school "100003"
      Then the latest "ks4_progress8_average" is null with the status "missing" and the reason "no_ks2_baseline"
      And the latest "ks4_progress8_average" is for the period "2024/25"
      And the "ks4_progress8_average" trend shows 0.31 for "2023/24"

    Scenario: An older Progress 8 value is never shown as the current one
      Given school 100005 has these published measures:
        | period  | measure               | value | cohort |
        | 2023/24 | ks4_progress8_average | -0.12 | 180    |
      When I ask for the results of school "100005"
      Then the latest "ks4_progress8_average" is null with the status "missing" and the reason "no_ks2_baseline"
      And the latest "ks4_progress8_average" is for the period "2024/25"

  Rule: 16-18 destinations are the 2022/23 institution cohort

    Scenario: Destinations describe the students who completed 16-18 study at the institution
      Given school 100012 has these published measures:
        | period  | measure                           | value | cohort |
        | 2022/23 | ks5_sustained_destination_percent | 88.5  | 240    |
      When I ask for the results of school "100012"
      Then the 16-18 destinations are described as the "2022/23 institution cohort"
      And the 16-18 destinations are described as "not the school's Year 11 cohort"
      And the latest "ks5_sustained_destination_percent" is 88.5 for the period "2022/23"
