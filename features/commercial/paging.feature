@commercial
Feature: Lists page deterministically
  "List endpoints take page and per_page and return the list envelope." "Sorting breaks ties
  by URN, so paging is deterministic within one data release." "per_page default 20."
  Paging past the last page answers with no schools and the true totals.

  Background:
    Given I hold a key on the "enterprise" plan

  Rule: "Sorting breaks ties by URN, so paging is deterministic"

    Scenario Outline: Paging <per_page> at a time, sorted by <sort>, visits every school exactly once
      When I page through the schools, <per_page> per page, with:
        | q    | school |
        | sort | <sort> |
      Then every matching school is visited exactly once, in the order of a single page

      Examples:
        | per_page | sort      |
        | 1        | name      |
        | 2        | urn       |
        | 3        | score     |
        | 4        | relevance |
        | 7        | name      |

    Scenario: Paging through the schools nearest a postcode visits each exactly once
      When I page through the schools, 4 per page, with:
        | postcode | SW1A 1AA |
        | sort     | distance |
      Then every matching school is visited exactly once, in the order of a single page

  Rule: Pages past the last are empty

    Scenario: A page past the last page has no schools
      When I list schools with:
        | q        | school |
        | per_page | 10     |
        | page     | 3      |
      Then no schools are returned

    @envelope
    Scenario: A page past the last page still reports the true totals
      When I list schools with:
        | q        | school |
        | per_page | 10     |
        | page     | 3      |
      Then the pagination shows:
        | page        | 3  |
        | per_page    | 10 |
        | total       | 15 |
        | total_pages | 2  |

  @envelope
  Rule: "per_page default 20"

    Scenario: Without per_page a page holds up to 20 schools
      When I list schools with:
        | q | school |
      Then the pagination shows:
        | page        | 1  |
        | per_page    | 20 |
        | total       | 15 |
        | total_pages | 1  |
