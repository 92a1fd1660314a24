import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCallCycle } from '../../packages/core/src/pipeline';

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

/** Whether the graph has no cycle, by Kahn's algorithm: repeatedly remove nodes nothing calls. */
function isAcyclic(edges: ReadonlyMap<string, readonly string[]>): boolean {
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flat()]);
  const callers = new Map([...nodes].map((node) => [node, 0]));
  for (const callees of edges.values())
    for (const callee of callees) callers.set(callee, (callers.get(callee) ?? 0) + 1);
  const free = [...nodes].filter((node) => callers.get(node) === 0);
  let removed = 0;
  for (let node = free.pop(); node !== undefined; node = free.pop()) {
    removed++;
    for (const callee of edges.get(node) ?? []) {
      const left = (callers.get(callee) ?? 0) - 1;
      callers.set(callee, left);
      if (left === 0) free.push(callee);
    }
  }
  return removed === nodes.size;
}

const names = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const graphs = fc
  .dictionary(names, fc.array(names, { maxLength: 3 }))
  .map((edges) => new Map(Object.entries(edges)));

describe('findCallCycle', () => {
  it('finds none where there is none', () => {
    expect(findCallCycle(new Map())).toBeNull();
    expect(findCallCycle(graph({ a: [] }))).toBeNull();
    expect(findCallCycle(graph({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toBeNull();
    expect(findCallCycle(graph({ a: ['outside'] }))).toBeNull();
  });

  it('finds a skill that calls itself', () => {
    expect(findCallCycle(graph({ a: ['a'] }))).toEqual(['a', 'a']);
  });

  it('gives the cycle as a path that ends where it starts', () => {
    expect(findCallCycle(graph({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCallCycle(graph({ a: ['b'], b: ['c'], c: ['b'] }))).toEqual(['b', 'c', 'b']);
  });

  it('visits skills and callees in sorted order, whatever the insertion order', () => {
    const edges = { z: ['y'], y: ['z', 'x'], x: ['w'], w: ['x'] };
    expect(findCallCycle(graph(edges))).toEqual(['w', 'x', 'w']);
    const reversed = new Map(
      Object.entries(edges)
        .reverse()
        .map(([node, callees]) => [node, [...callees].reverse()]),
    );
    expect(findCallCycle(reversed)).toEqual(['w', 'x', 'w']);
  });

  it('returns a real cycle when there is one, and null only when there is none', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        const cycle = findCallCycle(edges);
        if (cycle === null) {
          expect(isAcyclic(edges)).toBe(true);
          return;
        }
        expect(cycle.length).toBeGreaterThanOrEqual(2);
        expect(cycle.at(0)).toBe(cycle.at(-1));
        expect(new Set(cycle.slice(1)).size).toBe(cycle.length - 1);
        cycle.slice(1).forEach((callee, index) => {
          expect(edges.get(cycle[index] ?? '')).toContain(callee);
        });
      }),
    );
  });

  it('does not depend on the order of the map or of the callees', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        const shuffled = new Map(
          [...edges].reverse().map(([node, callees]) => [node, [...callees].reverse()]),
        );
        expect(findCallCycle(shuffled)).toEqual(findCallCycle(edges));
      }),
    );
  });
});
