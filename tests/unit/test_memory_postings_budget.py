"""The index's memo budget counts what a memo keeps, its key included (issue 22: a question
that matched nothing left its whole text behind, uncounted)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schooldata.adapters.memory.postings import KEY_CHARS_PER_URN, Budget


@given(
    memos=st.lists(st.tuples(st.integers(0, 50), st.text(max_size=400)), max_size=200),
    limit=st.integers(10, 2_000),
)
def test_the_memos_kept_never_exceed_the_budget_keys_included(
    memos: list[tuple[int, str]], limit: int
) -> None:
    budget = Budget(limit)
    kept: list[tuple[int, str]] = []
    budget.on_full.append(kept.clear)
    for size, key in memos:
        if budget.admit(size, key):
            kept.append((size, key))
        held = sum(s + 1 + len(k) // KEY_CHARS_PER_URN for s, k in kept)
        assert held == budget.used <= limit


def test_long_keys_of_empty_memos_fill_the_budget_and_are_dropped() -> None:
    budget = Budget(1_000)
    dropped: list[int] = []
    budget.on_full.append(lambda: dropped.append(budget.used))
    for n in range(100):
        assert budget.admit(0, f"{n:04d}" + "x" * 1_000)
    assert dropped  # without the key's share, 100 empty memos would cost nothing
    assert budget.used <= 1_000
