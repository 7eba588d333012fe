"""Graphviz DOT export of a backward graph (``dump_backward_graph_path=``)."""
from __future__ import annotations


def write_dot(path, roots):
    """Write the nodes reachable from ``roots`` as a DOT digraph (edges point backward)."""
    lines = ["digraph backward {", '  node [shape=box, fontname="monospace"];']
    seen = set()
    stack = [t._node for t in roots if t._node is not None]
    leaves = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        lines.append(f'  n{id(node)} [label="{node.prim.name}"];')
        for a, e in zip(node.inputs or (), node.edges or ()):
            if e is None:
                continue
            if e[0] is None:
                if id(a) not in leaves:
                    leaves.add(id(a))
                    lines.append(f'  t{id(a)} [label="leaf {a.shape} {a.dtype.name}", '
                                 'shape=ellipse];')
                lines.append(f"  n{id(node)} -> t{id(a)};")
            else:
                lines.append(f"  n{id(node)} -> n{id(e[0])};")
                stack.append(e[0])
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
