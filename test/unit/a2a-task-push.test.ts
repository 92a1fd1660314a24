import type { Execution } from '@skillrun/core';
import { taskPushHeaders, taskPushPayload } from '@skillrun/core/a2a';
import { describe, expect, it } from 'vitest';

const execution: Execution = {
  execution_id: '6f1c9a52-0000-4000-8000-000000000001',
  status: 'completed',
  skill_id: 'text_stats',
  skill_version: '1.0.0',
  output: { words: 2 },
  attempts: 1,
  max_attempts: 1,
  trace_id: '0af7651916cd43dd8448eb211c80319c',
  priority: 'normal',
  caller: { id: 'me', type: 'service' },
  timestamps: {
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:01.000Z',
    completed_at: '2026-01-01T00:00:01.000Z',
  },
};

describe("an A2A task's push notification", () => {
  it('is a 1.0 StreamResponse holding the task, in the context the message named', () => {
    const { body, contentType } = taskPushPayload(execution, { contextId: 'ctx-1' }, '1.0');
    expect(contentType).toBe('application/a2a+json');
    expect(JSON.parse(body)).toMatchObject({
      task: {
        id: execution.execution_id,
        contextId: 'ctx-1',
        status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:01.000Z' },
        artifacts: [{ artifactId: 'output', parts: [{ data: { words: 2 } }] }],
      },
    });
  });

  it('is the 0.3 task for a configuration made over 0.3, its context its own id when none was named', () => {
    const { body } = taskPushPayload(execution, {}, '0.3');
    expect(JSON.parse(body)).toMatchObject({
      kind: 'task',
      id: execution.execution_id,
      contextId: execution.execution_id,
      status: { state: 'completed' },
    });
  });

  it("carries the configuration's token and credentials, and nothing when it has neither", () => {
    expect(
      taskPushHeaders({
        configId: 'c',
        version: '1.0',
        token: 't-1',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      }),
    ).toEqual({ 'X-A2A-Notification-Token': 't-1', authorization: 'Bearer secret' });
    expect(taskPushHeaders({ configId: 'c', version: '1.0' })).toEqual({});
  });
});
