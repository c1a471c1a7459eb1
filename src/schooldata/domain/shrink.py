"""Imports never shrink what is served by accident (DECISIONS: `--allow-shrink`).

A file cut at a line break reads as a whole, valid file, only shorter: nothing in its format
says it was cut. What gives it away is what it would do to the served data, so an import is
judged by that, inside its transaction, before it commits:

- The register (GIAS): every school served now that the new file would stop serving is
  counted. A school the file lists with a status that is not served (Closed, Proposed to open)
  is the publisher saying it closed; a school missing from the file (or whose row was refused)
  is not, and even one such school refuses the file. Closures are refused too when they
  exceed `MAX_SHRINK_SHARE` of the schools served now: a daily extract closes a handful, a
  cut-off or wrong file thousands.
- Links and postcode directories have no status column: the records held after the import are
  compared with those held before, and a fall of more than `MAX_SHRINK_SHARE` refuses it.
- Replacing the bundled demo (synthetic data) is never a shrink: the demo is not a register.

An operator who means it (a publisher's real mass closure, a smaller area on purpose) passes
`--allow-shrink`.
"""

from __future__ import annotations

from collections.abc import Set

from attrs import frozen

from schooldata.domain.urn import Urn

# The share of what is served now that one import may stop serving (5%: GIAS's busiest day,
# the academy conversions of 1 September, closes far fewer of ~25,000 open schools).
MAX_SHRINK_SHARE = 0.05
ALLOW_FLAG = "--allow-shrink"


@frozen(kw_only=True)
class Shrink:
    """What an import would stop serving: `dropped` of the `before` served now, of which
    `unexplained` the file does not say are closed (missing from it, or refused rows)."""

    what: str  # "schools", "links", "postcodes"
    before: int
    after: int
    dropped: int
    unexplained: int = 0

    @property
    def allowed_drop(self) -> int:
        return int(self.before * MAX_SHRINK_SHARE)

    @property
    def refused(self) -> bool:
        return self.unexplained > 0 or self.dropped > self.allowed_drop

    def message(self, dataset: str) -> str:
        """One line naming the counts, the rule and the way past it."""
        if self.what == "schools":
            closed = self.dropped - self.unexplained
            counts = (
                f"this file would stop serving {self.dropped:,} of the {self.before:,} schools "
                f"served now ({self.unexplained:,} missing from it, {closed:,} listed as closed)"
            )
            rule = (
                f"an import may only stop serving schools the file lists as closed, at most "
                f"{MAX_SHRINK_SHARE:.0%} ({self.allowed_drop:,})"
            )
        else:
            counts = (
                f"this file would leave {self.after:,} {self.what} where {self.before:,} are "
                f"served now ({self.dropped:,} fewer)"
            )
            rule = (
                f"an import may serve at most {MAX_SHRINK_SHARE:.0%} ({self.allowed_drop:,}) fewer"
            )
        return (
            f"{dataset}: {counts}; {rule}. Nothing was imported and the current data is still "
            f"served; if the file is complete and this is intended, import it with {ALLOW_FLAG}."
        )


def register_shrink(*, before: Set[Urn], after: Set[Urn], listed_closed: Set[Urn]) -> Shrink:
    """The schools served `before` and not `after`; those the file lists as not served
    (`listed_closed`) are explained, every other one is not."""
    dropped = before - after
    return Shrink(
        what="schools",
        before=len(before),
        after=len(after),
        dropped=len(dropped),
        unexplained=len(dropped - listed_closed),
    )


def count_shrink(*, what: str, before: int, after: int) -> Shrink:
    """A directory without statuses (links, postcodes): only its size can tell."""
    return Shrink(what=what, before=before, after=after, dropped=max(0, before - after))
