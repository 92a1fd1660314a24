import { type InvocationAccepted, isTerminalStatus, skillUrls, traceIdFromTraceparent } from '@skillrun/core';
import { type Request, Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import type { ExecutionReader } from '../execution-reader';
import type { InvocationService } from '../invocation-service';
import { requireJson } from '../middleware/require-json';
import { setDeprecationHeader } from './deprecation-header';
import { type SkillParams, versionQuery } from './discovery-routes';
import { requestedWait } from './wait-preference';

interface ExecutionParams extends SkillParams {
  executionId: string;
}

/** The three-step invocation protocol of spec 001: invoke, status, result. */
export function invocationRoutes(
  invocations: InvocationService,
  executions: ExecutionReader,
  authenticator: Authenticator,
  baseUrl: string,
): Router {
  const router = Router();

  router.post('/skills/:skillId/invoke', requireJson(), async (req: Request<SkillParams>, res) => {
    const { version } = versionQuery.parse({ ...req.query });
    const { execution, deprecation } = await invocations.invoke({
      skillId: req.params.skillId,
      body: req.body,
      identify: (sources) => authenticator.identify(req, sources),
      versionQuery: version,
      traceparentTraceId: traceIdFromTraceparent(req.get('traceparent')),
      address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      report: (headers) => {
        for (const [name, value] of Object.entries(headers)) res.append(name, value);
      },
    });
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
    router.get(`/skills/:skillId/${step}/:executionId`, async (req: Request<ExecutionParams>, res) => {
      const { skillId, executionId } = req.params;
      const seconds = requestedWait(req.query, req.get('prefer'));
      const gone = new AbortController();
      // Also emitted once the answer is sent, when aborting no longer matters.
      res.once('close', () => gone.abort());
      const { execution, appliedWaitSeconds } = await executions.read({
        skillId,
        executionId,
        identify: () => authenticator.identify(req),
        ...(seconds === undefined
          ? {}
          : { wait: { seconds, until: step === 'status' ? 'change' : 'end', signal: gone.signal } }),
      });
      if (gone.signal.aborted) return;
      if (appliedWaitSeconds !== undefined) res.setHeader('Preference-Applied', `wait=${appliedWaitSeconds}`);
      // Whole seconds only (RFC 9110): a client that must know sooner waits with Prefer: wait instead.
      if (!isTerminalStatus(execution.status)) res.setHeader('Retry-After', '1');
      res.setHeader('Cache-Control', 'no-store');
      res.json(execution);
    });
  }

  return router;
}
