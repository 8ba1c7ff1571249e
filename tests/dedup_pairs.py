"""Labelled text pairs for dedup: copies of one passage as exports mangle it, and similar passages that state
different rules. `passes/test_dedup.py` chooses the threshold with them; `passes/test_lsh.py` runs them through LSH."""

POLICY = ("Effective January 1, 2025, unused PTO does not carry over into the next calendar year. Any balance "
          "left on December 31 is forfeited and is not paid out, except where state law requires payout.")


DUPLICATES = [  # (a, b): the same passage as it arrives from overlapping exports and copies
    (POLICY, POLICY.replace(", ", " ").replace(".", "")),                 # punctuation lost in a PDF export
    (POLICY, POLICY.upper()),                                              # case
    (POLICY, "  " + POLICY.replace(" ", "\n", 3)),                         # whitespace
    (POLICY, POLICY.replace("forfeited", "forfieted")),                    # a typo
    (POLICY, POLICY.replace("calendar year", "calendar-year")),            # hyphenation
    (POLICY, POLICY + " See section 5.2."),                                # a trailing reference
]


DISTINCT = [  # (a, b): similar wording, different rules or different content
    (POLICY, "Effective January 1, 2024, employees may carry up to 5 days of unused PTO into the next calendar "
             "year. Any balance above 5 days left on December 31 is forfeited."),
    (POLICY, "Unused sick days do not carry over into the next calendar year and are not paid out."),
    (POLICY, "Employees get 2 paid volunteer days per calendar year for service with registered nonprofits."),
    ("Overtime must be approved in advance by your manager in writing.",
     "Overtime must be approved in advance by your plant director in writing."),
]
