"""No module of `schooldata` imports itself back through others: each can be read, tested and
changed knowing only what it imports. The graph is grimp's (import-linter's own), imports
under `TYPE_CHECKING` included; a cycle is a strongly connected component of more than one
module, named in full so the failure says what to untangle."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import grimp


def strongly_connected(
    nodes: Iterable[str], successors: Callable[[str], Iterable[str]]
) -> list[set[str]]:
    """Tarjan's components, iteratively (a deep import chain must not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for root in sorted(nodes):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(successors(root))))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(successors(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
    return components


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    found = strongly_connected(graph.modules, graph.find_modules_directly_imported_by)
    return sorted(sorted(component) for component in found if len(component) > 1)


def test_no_module_of_schooldata_imports_itself_back() -> None:
    graph = grimp.build_graph("schooldata", cache_dir=None)
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(
        "- " + ", ".join(component) for component in found
    )


def test_the_cycle_finder_names_every_module_of_a_cycle_and_nothing_else() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    components = strongly_connected(edges, lambda node: edges.get(node, set()))
    assert sorted(sorted(c) for c in components if len(c) > 1) == [["a", "b", "c"], ["d", "e"]]
