/**
 * A cycle in a graph of which skill calls which, as a path that ends where it starts
 * (`['a', 'b', 'a']`), or null. Nodes and their callees are visited in sorted order, so the same
 * graph always gives the same cycle.
 */
export function findCallCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const trail: string[] = [];
  const visit = (node: string): string[] | null => {
    const start = trail.indexOf(node);
    if (start !== -1) return [...trail.slice(start), node];
    if (done.has(node)) return null;
    trail.push(node);
    for (const callee of [...(graph.get(node) ?? [])].sort()) {
      const cycle = visit(callee);
      if (cycle !== null) return cycle;
    }
    trail.pop();
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle !== null) return cycle;
  }
  return null;
}
