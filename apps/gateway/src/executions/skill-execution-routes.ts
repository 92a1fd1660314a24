import { isTerminalStatus } from '@skillrun/core';
import type { Request, Router } from 'express';
import { goneSignal } from '../http/gone-signal';
import { requestedWait } from '../http/wait-preference';
import { measuredRouter } from '../metrics/measured-router';
import type { ExecutionCanceler } from './execution-canceler';
import type { ExecutionReader } from './execution-reader';
import type { ExecutionStreams } from './execution-stream';
import { pollHintMs } from './poll-hint';

export interface ExecutionParams {
  skillId: string;
  executionId: string;
}

export interface SkillExecutionRoutesDeps {
  executions: ExecutionReader;
  canceler: ExecutionCanceler;
  streams: ExecutionStreams;
}

/**
 * An execution under its skill, on a router mounted at /skills: status and result (spec 001 steps
 * 2 and 3), and (ours) canceling it, its events and its inputs.
 */
export function skillExecutionRoutes(deps: SkillExecutionRoutesDeps): Router {
  const { executions, canceler, streams } = deps;
  const router = measuredRouter();
  router.post('/:skillId/cancel/:executionId', async (req: Request<ExecutionParams>, res) => {
    const { skillId, executionId } = req.params;
    const execution = await canceler.cancel({ skillId, executionId, headers: req.headers });
    res.setHeader('Cache-Control', 'no-store');
    res.json(execution);
  });

  // Ours: the execution's status as server-sent events, until it ends.
  router.get('/:skillId/events/:executionId', async (req: Request<ExecutionParams>, res) => {
    await streams.stream(req, res);
  });

  // Ours: the inputs it was started with, as they were validated (access as for status).
  router.get('/:skillId/inputs/:executionId', async (req: Request<ExecutionParams>, res) => {
    const { skillId, executionId } = req.params;
    const inputs = await executions.inputs({ skillId, executionId, headers: req.headers });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ execution_id: executionId, inputs });
  });

  for (const step of ['status', 'result'] as const) {
    router.get(`/:skillId/${step}/:executionId`, async (req: Request<ExecutionParams>, res) => {
      const { skillId, executionId } = req.params;
      const seconds = requestedWait(req.query, req.get('prefer'));
      const { execution, appliedWaitSeconds } = await executions.read({
        skillId,
        executionId,
        headers: req.headers,
        ...(seconds === undefined
          ? {}
          : { wait: { seconds, until: step === 'status' ? 'change' : 'end', signal: goneSignal(res) } }),
      });
      // Nobody is left to answer when the client went away.
      if (res.closed) return;
      if (appliedWaitSeconds !== undefined) res.setHeader('Preference-Applied', `wait=${appliedWaitSeconds}`);
      if (!isTerminalStatus(execution.status)) {
        // Retry-After has whole seconds only (RFC 9110); Retry-After-Ms, as OpenAI's API sends it,
        // says sooner to the clients that read it. Sooner still: wait with Prefer: wait.
        res.setHeader('Retry-After', '1');
        res.setHeader('Retry-After-Ms', String(pollHintMs(execution.timestamps.created_at)));
      }
      res.setHeader('Cache-Control', 'no-store');
      res.json(execution);
    });
  }
  return router;
}
