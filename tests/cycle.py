"""cycle.py: the first cycle of a directed graph, for tests/include_cycles.sh."""


def first_cycle(edges):
    """edges: {node: [nodes it depends on]}. The first cycle found, walking
    the nodes in sorted order depth first, as a list of nodes that starts
    and ends with the same one; None when there is none."""
    state = {}

    def walk(h, path):
        state[h] = 1
        for x in edges[h]:
            if state.get(x) == 1:
                return path[path.index(x):] + [x]
            if not state.get(x):
                c = walk(x, path + [x])
                if c:
                    return c
        state[h] = 2
        return None

    for h in sorted(edges):
        c = None if state.get(h) else walk(h, [h])
        if c:
            return c
    return None
