import { type InvocationAccepted, isTerminalStatus, skillUrls } from '@skillrun/core';
import type { Request, Response, Router } from 'express';
import type { ExecutionReader } from '../execution-reader';
import type { InvocationService } from '../invocation-service';
import { requireJson } from '../middleware/require-json';
import { setDeprecationHeader } from './deprecation-header';
import { type SkillParams, versionQuery } from './discovery-routes';
import { requestedWait } from './wait-preference';

interface ExecutionParams extends SkillParams {
  executionId: string;
}

/** The three-step invocation protocol of spec 001 (invoke, status, result), on the /skills router. */
export function invocationRoutes(
  router: Router,
  invocations: InvocationService,
  executions: ExecutionReader,
  baseUrl: string,
): void {
  router.post('/:skillId/invoke', requireJson(), async (req: Request<SkillParams>, res) => {
    const { version } = versionQuery.parse({ ...req.query });
    const outcome = await invocations.invoke({
      skillId: req.params.skillId,
      body: req.body,
      headers: req.headers,
      versionQuery: version,
      address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    });
    res.set(outcome.headers);
    if ('refused' in outcome) throw outcome.refused;
    const { execution, deprecation } = outcome.accepted;
    const statusUrl = skillUrls(baseUrl, execution.skill_id).status.replace(
      '{execution_id}',
      execution.execution_id,
    );
    const accepted: InvocationAccepted = {
      execution_id: execution.execution_id,
      status: 'accepted',
      skill_id: execution.skill_id,
      skill_version: execution.skill_version,
      ...(execution.requested_version === undefined
        ? {}
        : { requested_version: execution.requested_version }),
      trace_id: execution.trace_id,
      timestamps: execution.timestamps,
    };
    setDeprecationHeader(res, deprecation);
    res.status(202).location(statusUrl).json(accepted);
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
      // Whole seconds only (RFC 9110): a client that must know sooner waits with Prefer: wait instead.
      if (!isTerminalStatus(execution.status)) res.setHeader('Retry-After', '1');
      res.setHeader('Cache-Control', 'no-store');
      res.json(execution);
    });
  }
}

/**
 * Aborts when the client goes away, for a request that waits ('close' is also emitted once the
 * answer is sent, when aborting no longer matters). A request that does not wait needs none.
 */
function goneSignal(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return gone.signal;
}
