Feature: CSV answers are safe to open in a spreadsheet
  Publishers' files are untrusted input, and analysts open the CSV exports in spreadsheets. A
  text cell that a spreadsheet would run as a formula (it begins with =, +, -, @, a tab or a
  carriage return) is written with a leading apostrophe (OWASP's rule); numbers stay numbers.
  One CSV writer serves every face that writes CSV: REST's text/csv and the CLI's --format csv.

  Rule: A formula in the data comes out of a CSV answer as text

    Scenario: A school named like a formula is neutralised in the public search's CSV
      Given the publisher names school 100003 =HYPERLINK("http://evil.example","click")
      And I am an anonymous caller
      When I search for "hyperlink" as CSV
      Then the CSV cell "name" of school 100003 reads "'=HYPERLINK("http://evil.example","click")"

    Scenario: Every formula start is neutralised in the commercial list's CSV
      Given the publisher names school 100003 @SUM(A1:A9)
      And the publisher names school 100004 -2+3
      And the publisher names school 100006 +44 20 7946 0000
      And I hold a key on the "developer" plan
      When I list the schools as CSV
      Then the CSV cell "name" of school 100003 reads "'@SUM(A1:A9)"
      And the CSV cell "name" of school 100004 reads "'-2+3"
      And the CSV cell "name" of school 100006 reads "'+44 20 7946 0000"

  Rule: Numbers stay numbers

    Scenario: Negative longitudes west of Greenwich are numbers, not neutralised text
      Given I hold a key on the "developer" plan
      When I list the schools as CSV
      Then every filled CSV cell of the column "location.longitude" is a number, negative ones included
