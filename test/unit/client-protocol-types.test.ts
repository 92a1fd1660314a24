import type * as client from '@skillrun/client';
import { SERVICE_ERROR_CODES, SkillrunClient } from '@skillrun/client';
import * as core from '@skillrun/core';
import { describe, expect, it } from 'vitest';

// The client declares its own protocol types so that its package depends on nothing. These
// functions compile only while every shape the service answers (core's types, derived from the
// JSON Schemas the service validates against) is one the client reads: tsc checks them.
const asDescriptor = (value: core.SkillDescriptor): client.SkillDescriptor => value;
const asExecution = (value: core.Execution): client.Execution => value;
const asSkillrunExecution = (value: core.Execution): client.SkillrunExecution => value;
const asAccepted = (value: core.InvocationAccepted): client.InvocationAccepted => value;
const asError = (value: core.ErrorBody): client.ErrorBody => value;
const asSkillPage = (value: core.SkillSearchPage): client.SkillPage => value;
const asExecutionPage = (value: core.ExecutionListPage): client.ExecutionPage => value;
const asVersions = (value: core.SkillVersionList): client.SkillVersionList => value;
const asCaller = (value: core.CallerIdentity): client.CallerIdentity => value;
const asBatchAccepted = (value: core.BatchAccepted): client.BatchAccepted => value;
const asBatchView = (value: core.BatchView): client.BatchView => value;
const asBatchItem = (value: client.BatchItem): core.BatchItem => value;
const asSchedule = (value: core.Schedule): client.Schedule => value;
const asSchedulePage = (value: core.ScheduleListPage): client.SchedulePage => value;
const asNewSchedule = (value: client.NewSchedule): core.NewSchedule => value;
const asScheduleChange = (value: client.ScheduleChange): core.ScheduleChange => value;
const asPauseState = (value: core.SkillPauseState): client.SkillPauseState => value;
const asApprovalPage = (value: core.ApprovalListPage): client.ApprovalPage => value;
const asSkillApproval = (value: core.SkillApprovalState): client.SkillApprovalState => value;
const asApprovalLink = (value: core.ApprovalLink): client.ApprovalLink => value;
const asReplayRequest = (value: client.ReplayRequest): core.ReplayRequest => value;
const asRollout = (value: core.SkillRollout): client.SkillRollout => value;
const asRolloutRequest = (value: client.RolloutRequest): core.RolloutRequest => value;
const asCancelResult = (value: core.BulkCancelResult): client.BulkCancelResult => value;
const asAuditPage = (value: core.AuditPage): client.AuditPage => value;
// The client's action is any string, so that a newer service's actions are asked for too.
const asAuditQuery = (
  value: Omit<client.AuditQuery, 'action'> & { action?: core.AuditAction },
): Partial<core.AuditListQuery> => value;
const asCancelFilter = (
  value: Omit<client.ExecutionQuery, 'status' | 'tag' | 'metadata'> & { status?: string; tag?: string },
): core.ExecutionFilter => value;
const asInvocationContext = (
  value: client.InvocationContext,
): NonNullable<core.InvocationRequest['context']> => value;

describe("the client's protocol types against core's", () => {
  it('reads a descriptor the service builds and validates', async () => {
    const descriptor = asDescriptor(
      core.toSkillDescriptor(
        {
          name: 'greet',
          description: 'Greets.',
          category: 'text',
          input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          output: { type: 'object' },
          mode: 'code',
          calls: [],
          version: '1.2.0',
          tags: [],
          timeout: 1000,
          retry: 0,
        } satisfies core.SkillDefinition,
        {
          baseUrl: 'http://service.test',
          provider: { name: 'test' },
          retryBackoffMs: 1,
          defaults: { access: 'public', capabilityType: 'api', auth: { type: 'api_key', header: 'X-Key' } },
        },
      ),
    );
    expect(() =>
      new core.SchemaValidator(core.SkillDescriptor, 'descriptor').parse(structuredClone(descriptor)),
    ).not.toThrow();

    const sent: Array<{ url: string; headers: Headers }> = [];
    const fetch: typeof globalThis.fetch = async (input, init = {}) => {
      sent.push({ url: String(input), headers: new Headers(init.headers) });
      return Response.json({ execution_id: 'e1', status: 'accepted', skill_id: 'greet' }, { status: 202 });
    };
    const handle = await new SkillrunClient({ apiKey: 'k', fetch }).invoke(descriptor, { name: 'Ada' });
    expect(sent[0]?.url).toBe('http://service.test/skills/greet/invoke?version=1.2.0');
    expect(sent[0]?.headers.get('x-key')).toBe('k');
    expect(handle).toMatchObject({
      statusUrl: 'http://service.test/skills/greet/status/e1',
      resultUrl: 'http://service.test/skills/greet/result/e1',
      cancelUrl: 'http://service.test/skills/greet/cancel/e1',
      eventsUrl: 'http://service.test/skills/greet/events/e1',
    });
    expect([
      asExecution,
      asSkillrunExecution,
      asAccepted,
      asError,
      asSkillPage,
      asExecutionPage,
      asVersions,
      asCaller,
      asInvocationContext,
      asBatchAccepted,
      asBatchView,
      asBatchItem,
      asSchedule,
      asSchedulePage,
      asNewSchedule,
      asScheduleChange,
      asPauseState,
      asReplayRequest,
      asRollout,
      asRolloutRequest,
      asCancelResult,
      asCancelFilter,
      asAuditPage,
      asAuditQuery,

      asApprovalPage,
      asSkillApproval,
      asApprovalLink,
    ]).toHaveLength(27);
  });

  it('names only error codes the service has in its catalogue', () => {
    const unknown = SERVICE_ERROR_CODES.filter((code) => !core.isErrorCode(code));
    expect(unknown).toEqual([]);
  });
});
