"""The index's memo budget counts what a memo keeps, its key included (issue 22: a question
that matched nothing left its whole text behind, uncounted), and the memos it counts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schooldata.adapters.memory.postings import KEY_CHARS_PER_URN, Budget, Postings


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


def test_postings_as_bits_are_their_sets_in_urn_order_and_dropped_with_the_other_memos() -> None:
    budget = Budget(200)
    values = [101, 105, 230, 977]
    positions = {v: p for p, v in enumerate(values)}
    postings = Postings({"oak": {105, 977}, "oakwood": {230}, "elm": {101}}, budget, positions)
    budget.on_full.append(postings.forget)
    assert postings.prefix_bits("oak").positions() == [1, 2, 3]
    assert postings.exact_bits("oak").positions() == [1, 3]
    assert not postings.exact_bits("ash")
    assert not postings.prefix_bits("z")
    held = budget.used
    assert held > 0
    for n in range(100):  # other memos fill the budget: every memo goes, counted afresh
        budget.admit(5, f"k{n}")
    assert postings._prefix_bits == postings._exact_bits == {}
    assert postings.prefix_bits("oak").positions() == [1, 2, 3]
