import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Execution } from '@skillrun/core';
import { expect } from 'vitest';
import type { Client } from './client';

/** How an execution reads in these tests: its status, or `waiting` (accepted, waiting for concurrency). */
export function stateOf(execution: Execution): string {
  return execution.status === 'accepted' && execution.waiting_for === 'concurrency'
    ? 'waiting'
    : execution.status;
}

/**
 * Executions of the gated fixture (test/fixtures/skills/gated) and the skills made of it, as the
 * flow-control tests drive them: each runs until the test opens its gate (a file), so what runs at
 * once is read from statuses and timestamps, never from durations.
 */
export class GatedRuns {
  private count = 0;
  /** Every gate made, so that `openAll` lets go of whatever a failed test left waiting. */
  private readonly made: string[] = [];

  private constructor(
    private readonly client: Client,
    private readonly folder: string,
  ) {}

  static async start(client: Client): Promise<GatedRuns> {
    return new GatedRuns(client, await mkdtemp(join(tmpdir(), 'skillrun-flow-')));
  }

  /** A new gate file (not there yet: the execution given it runs until `open`). */
  newGate(): string {
    this.count += 1;
    const gate = join(this.folder, `gate-${this.count}`);
    this.made.push(gate);
    return gate;
  }

  open(gate: string): Promise<void> {
    return writeFile(gate, '');
  }

  /** Opens every gate made so far: no execution stays gated to take a later test's worker slots. */
  async openAll(): Promise<void> {
    await Promise.all(this.made.splice(0).map((gate) => this.open(gate)));
  }

  /**
   * Invokes `skill` with the gate; `context` is the invocation's. Answers the execution id. A 503 is
   * asked again, as consumers do (nothing happened: Redis answered late on a loaded machine).
   */
  async invoke(skill: string, gate: string, context: Record<string, unknown> = {}): Promise<string> {
    const answer = await this.client.requestAvailable(`/skills/${skill}/invoke`, {
      json: {
        caller: { id: 'tester', type: 'service' },
        skill_id: skill,
        inputs: { gate },
        ...(Object.keys(context).length === 0 ? {} : { context }),
      },
    });
    expect(answer.status).toBe(202);
    return String(answer.body.execution_id);
  }

  statuses(skill: string, ids: string[]): Promise<Execution[]> {
    return Promise.all(ids.map((id) => this.client.status(skill, id)));
  }

  /** Waits until the executions read as `expected` (stateOf), and answers them as last read. */
  async untilStates(skill: string, ids: string[], expected: string[]): Promise<Execution[]> {
    let seen: Execution[] = [];
    await expect
      .poll(async () => {
        seen = await this.statuses(skill, ids);
        return seen.map(stateOf);
      })
      .toEqual(expected);
    return seen;
  }

  /** The executions once they have ended. */
  finals(skill: string, ids: string[]): Promise<Execution[]> {
    return this.client.waitForEnds(skill, ids, 60_000, 5);
  }

  async close(): Promise<void> {
    await rm(this.folder, { recursive: true, force: true });
  }
}
