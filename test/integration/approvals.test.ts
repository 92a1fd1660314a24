import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import type { Client } from '../support/client';
import { ADMIN_HEADERS, repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

interface ApprovalView {
  execution_id: string;
  skill_id: string;
  inputs: Record<string, unknown>;
  approval: { state: string; when?: string; approvers?: string[] };
  urls: Record<string, string>;
}

interface Refusal {
  error: { code: string; message: string; details?: unknown };
}

const SKILLS_DIR = `${repoRoot}test/fixtures/approval-skills`;

describe('approvals: an execution waits for an approver before it runs', () => {
  let system: TestSystem;
  let client: Client;
  const as: Record<string, Record<string, string>> = {};

  const approvals = (who: string, query = '') =>
    client.request<{ approvals: ApprovalView[]; next_cursor: string | null }>(`/approvals${query}`, {
      headers: as[who],
    });
  const post = <T = Execution>(who: string | undefined, path: string, json?: unknown) =>
    client.request<T & Refusal>(path, {
      method: 'POST',
      headers: who === undefined ? {} : as[who],
      ...(json === undefined ? {} : { json }),
    });

  async function invoke(skill: string, inputs: unknown): Promise<string> {
    const accepted = await client.invoke(skill, inputs);
    expect(accepted.status).toBe(202);
    return String(accepted.body.execution_id);
  }

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR, SKILL_CACHE_MS: '0' });
    await system.addWorker({ SKILLS_DIR });
    client = system.client;
    for (const caller of ['approver', 'lead', 'stranger'])
      as[caller] = { 'x-api-key': await client.createKey(caller) };
  });
  afterAll(() => system?.stop());

  it('runs an execution the rule does not match at once, and holds one it matches until approved', async () => {
    expect((await client.run('transfer', { amount: 10, to: 'ann' })).final).toMatchObject({
      status: 'completed',
      output: { sent: 10, to: 'ann' },
    });
    expect((await client.run('transfer', { amount: 10, to: 'ann' })).final.approval).toBeUndefined();

    const id = await invoke('transfer', { amount: 5000, to: 'bob' });
    const waiting = await client.status('transfer', id);
    expect(waiting).toMatchObject({
      status: 'awaiting_approval',
      attempts: 0,
      approval: { state: 'pending', when: 'amount > 1000', approvers: ['approver', 'lead'] },
    });
    const listed = await approvals('approver', '?skill_id=transfer');
    expect(listed.status).toBe(200);
    expect(listed.body.approvals.map((approval) => approval.execution_id)).toContain(id);
    expect(listed.body.approvals.find((approval) => approval.execution_id === id)?.inputs).toEqual({
      amount: 5000,
      to: 'bob',
    });
    // Only approvers (and admins) see it, or decide it.
    expect((await approvals('stranger')).body.approvals).toEqual([]);
    expect((await post('stranger', `/approvals/${id}/approve`)).status).toBe(404);
    expect((await client.request('/approvals')).status).toBe(401);
    expect((await client.status('transfer', id)).status).toBe('awaiting_approval');

    const approved = await post('approver', `/approvals/${id}/approve`, { reason: 'expected' });
    expect(approved.status).toBe(200);
    expect(approved.body.approval).toMatchObject({
      state: 'approved',
      decided_by: 'approver',
      via: 'api',
      reason: 'expected',
    });
    const { final, seen } = await client.waitForEnd('transfer', id);
    expect(final).toMatchObject({ status: 'completed', output: { sent: 5000, to: 'bob' } });
    expect(final.approval?.decided_at).toEqual(expect.any(String));
    expect(seen).not.toContain('awaiting_approval');
    expect((await approvals('approver')).body.approvals.map((a) => a.execution_id)).not.toContain(id);
  });

  it('lets exactly one of two concurrent decisions win', async () => {
    const id = await invoke('transfer', { amount: 2000, to: 'cyd' });
    const both = await Promise.all([
      post('approver', `/approvals/${id}/approve`),
      post('lead', `/approvals/${id}/reject`, { reason: 'too much' }),
      post(undefined, `/approvals/${id}/approve`),
    ]);
    // The anonymous one is refused before it reaches the decision.
    expect(both[2]?.status).toBe(401);
    const decisions = both.slice(0, 2);
    expect(decisions.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = decisions.find((answer) => answer.status === 200)?.body;
    const loser = decisions.find((answer) => answer.status === 409)?.body;
    expect(loser?.error.code).toBe('APPROVAL_DECIDED');
    const { final } = await client.waitForEnd('transfer', id);
    expect(final.approval?.decided_by).toBe(winner?.approval?.decided_by);
    expect(final.status).toBe(winner?.approval?.state === 'approved' ? 'completed' : 'failed');
    // Deciding again changes nothing.
    const again = await post('approver', `/approvals/${id}/reject`);
    expect([again.status, again.body.error.code]).toEqual([409, 'APPROVAL_DECIDED']);
  });

  it('ends a rejected execution failed with APPROVAL_REJECTED, having run nothing', async () => {
    const id = await invoke('transfer', { amount: 9000, to: 'dan' });
    const rejected = await post('lead', `/approvals/${id}/reject`, { reason: 'unknown payee' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'failed',
      attempts: 0,
      error: { code: 'APPROVAL_REJECTED', message: 'Rejected by lead: unknown payee; nothing ran' },
      approval: { state: 'rejected', decided_by: 'lead', reason: 'unknown payee' },
    });
    expect(rejected.body.output).toBeUndefined();
    expect(rejected.body.timestamps.started_at).toBeUndefined();
  });

  it("holds a composite's step its policy matches: approved, the composite goes on; rejected, it fails there", async () => {
    expect((await client.run('payout', { amount: 10, to: 'ann' })).final).toMatchObject({
      status: 'completed',
      output: { sent: 10, to: 'ann' },
    });
    /** The composite's step, once it waits for its approval. */
    const heldStep = async (id: string): Promise<string> => {
      let step: string | undefined;
      await expect
        .poll(async () => {
          step = (await client.status('payout', id)).steps?.[0]?.execution_id;
          return step === undefined ? undefined : (await client.status('transfer', step)).status;
        })
        .toBe('awaiting_approval');
      return String(step);
    };

    const approvedId = await invoke('payout', { amount: 7000, to: 'eve' });
    const approvedStep = await heldStep(approvedId);
    expect((await client.status('payout', approvedId)).status).toBe('running');
    const listed = await approvals('approver', '?skill_id=transfer');
    expect(listed.body.approvals.map((approval) => approval.execution_id)).toContain(approvedStep);
    expect((await post('approver', `/approvals/${approvedStep}/approve`)).status).toBe(200);
    const approved = await client.waitForEnd('payout', approvedId);
    expect(approved.final).toMatchObject({ status: 'completed', output: { sent: 7000, to: 'eve' } });

    const rejectedId = await invoke('payout', { amount: 8000, to: 'fay' });
    const rejectedStep = await heldStep(rejectedId);
    expect((await post('lead', `/approvals/${rejectedStep}/reject`, { reason: 'no' })).status).toBe(200);
    const rejected = await client.waitForEnd('payout', rejectedId);
    expect(rejected.final).toMatchObject({ status: 'failed', error: { code: 'STEP_FAILED' } });
    expect(JSON.stringify(rejected.final.error)).toContain('APPROVAL_REJECTED');
    expect((await client.status('transfer', rejectedStep)).timestamps.started_at).toBeUndefined();
  });

  it('ends an execution nobody decides in time with APPROVAL_TIMEOUT, unrun', async () => {
    const id = await invoke('quick_approval', { text: 'late' });
    expect((await client.status('quick_approval', id)).status).toBe('awaiting_approval');
    const { final } = await client.waitForEnd('quick_approval', id);
    expect(final).toMatchObject({
      status: 'failed',
      error: { code: 'APPROVAL_TIMEOUT' },
      approval: { state: 'timed_out', decided_by: 'deadline' },
    });
    expect(final.output).toBeUndefined();
    const late = await post('approver', `/approvals/${id}/approve`);
    expect([late.status, late.body.error.code]).toEqual([409, 'APPROVAL_DECIDED']);
  });

  it('decides by a one-time link, without credentials, once', async () => {
    const id = await invoke('transfer', { amount: 3000, to: 'eve' });
    const link = await post<{ url: string }>('approver', `/approvals/${id}/link`);
    expect(link.status).toBe(201);
    const path = new URL(link.body.url).pathname;
    const shown = await client.request<ApprovalView>(path);
    expect(shown.body).toMatchObject({ execution_id: id, inputs: { amount: 3000, to: 'eve' } });
    const used = await post(undefined, `${path}/approve`);
    expect(used.status).toBe(200);
    expect(used.body.approval).toMatchObject({ state: 'approved', decided_by: 'approver', via: 'link' });
    const twice = await post(undefined, `${path}/reject`);
    expect([twice.status, twice.body.error.code]).toEqual([409, 'APPROVAL_DECIDED']);
    const forged = await post(undefined, `${path.slice(0, -2)}xx/approve`);
    expect(forged.status).toBe(403);
    expect((await client.waitForEnd('transfer', id)).final.status).toBe('completed');
  });

  it('lets an operator require approvals of a skill without a new version, and take it back', async () => {
    const put = (json: unknown, headers: Record<string, string> = ADMIN_HEADERS) =>
      client.request<Refusal & { approval: unknown; set_by?: string }>('/skills/plain_echo/approval', {
        method: 'PUT',
        json,
        headers,
      });
    const bad = await put({ approval: { when: 'region ~ eu' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: '/approval/when' })]);
    expect((await put({ approval: { when: 'always' } }, as.lead)).status).toBe(403);
    expect((await client.run('plain_echo', { text: 'before' })).final.status).toBe('completed');

    const set = await put({ approval: { when: "region == 'eu'", approvers: ['lead'] } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ approval: { when: "region == 'eu'" }, set_by: expect.any(String) });
    expect((await client.run('plain_echo', { text: 'us', region: 'us' })).final.status).toBe('completed');
    const id = await invoke('plain_echo', { text: 'eu', region: 'eu' });
    expect((await client.status('plain_echo', id)).status).toBe('awaiting_approval');
    expect((await post('approver', `/approvals/${id}/approve`)).status).toBe(404);
    expect((await post('lead', `/approvals/${id}/approve`)).status).toBe(200);
    expect((await client.waitForEnd('plain_echo', id)).final.output).toEqual({ text: 'eu' });

    expect((await put({ approval: null })).body.approval).toBeNull();
    expect((await client.run('plain_echo', { text: 'eu', region: 'eu' })).final.status).toBe('completed');
  });

  it("lists, approves and rejects from the command line, and sets an operator's policy", async () => {
    const skillrun = async (who: string, args: string[]) =>
      runSkillrun(args, {
        env: {
          SKILLRUN_URL: system.gateway.url,
          SKILLRUN_API_KEY: (who === 'admin' ? ADMIN_HEADERS : as[who])?.['x-api-key'] ?? '',
        },
      });
    const first = await invoke('transfer', { amount: 7000, to: 'gus' });
    const second = await invoke('transfer', { amount: 8000, to: 'hal' });
    const listed = await skillrun('approver', ['approvals', '--skill', 'transfer']);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^EXECUTION\s+SKILL\s+CALLER\s+INPUTS\s+DEADLINE$/);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(expect.arrayContaining([first, second]));

    const approved = await skillrun('approver', ['approvals', 'approve', first, '--reason', 'ok']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`${first} approved by approver`);
    const again = await skillrun('lead', ['approvals', 'reject', first]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('APPROVAL_DECIDED');
    const rejected = await skillrun('lead', ['approvals', 'reject', second, '--json']);
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({
      status: 'failed',
      error: { code: 'APPROVAL_REJECTED' },
    });
    expect((await client.waitForEnd('transfer', first)).final.status).toBe('completed');

    const set = await skillrun('admin', [
      'approvals',
      'policy',
      'plain_echo',
      '--when',
      'always',
      '--approvers',
      'lead',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('plain_echo: approval when always, by lead');
    const held = await invoke('plain_echo', { text: 'held' });
    expect((await client.status('plain_echo', held)).status).toBe('awaiting_approval');
    expect((await skillrun('admin', ['approvals', 'policy', 'plain_echo', '--clear'])).stdout).toContain(
      "no operator's approval policy",
    );
    expect((await skillrun('lead', ['approvals', 'approve', held])).code).toBe(0);
  });

  it('cancels an execution that waits for its approval, and nobody can approve it after', async () => {
    const id = await invoke('transfer', { amount: 4000, to: 'fay' });
    const canceled = await client.cancel('transfer', id);
    expect(canceled.status).toBe(200);
    expect((await client.status('transfer', id)).status).toBe('canceled');
    expect((await post('approver', `/approvals/${id}/approve`)).body.error.code).toBe('APPROVAL_DECIDED');
    expect((await approvals('approver')).body.approvals.map((a) => a.execution_id)).not.toContain(id);
  });
});
