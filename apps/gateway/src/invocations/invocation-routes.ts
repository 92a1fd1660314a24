import {
  BulkReplayRequest,
  type Execution,
  type InvocationAccepted,
  isTerminalStatus,
  SchemaValidator,
  skillUrls,
} from '@skillrun/core';
import type { Request, Response, Router } from 'express';
import type { ExecutionReader } from '../executions/execution-reader';
import type { ExecutionParams } from '../executions/skill-execution-routes';
import { setDeprecationHeader } from '../http/deprecation-header';
import { goneSignal } from '../http/gone-signal';
import { requireJson } from '../http/require-json';
import { preferredWait } from '../http/wait-preference';
import { idempotencyKeyOf } from '../idempotency/idempotency-key-header';
import { measuredRouter } from '../metrics/measured-router';
import { type SkillParams, versionQuery } from '../skills/discovery-routes';
import type { ExecutionReplayer } from './execution-replayer';
import type { InvocationOutcome, InvocationService } from './invocation-service';

const replayFilter = new SchemaValidator(BulkReplayRequest, 'replay filter');

export interface InvocationRoutesDeps {
  invocations: InvocationService;
  executions: ExecutionReader;
  replayer: ExecutionReplayer;
  baseUrl: string;
}

/**
 * What starts executions, on a router mounted at /skills: invoking a skill (spec 001 step 1, the
 * hot path), and replaying an execution (ours).
 */
export function invocationRoutes(deps: InvocationRoutesDeps): Router {
  const { invocations, executions, replayer, baseUrl } = deps;
  const router = measuredRouter();
  router.post('/:skillId/invoke', requireJson(), async (req: Request<SkillParams>, res) => {
    const { version } = versionQuery.parse({ ...req.query });
    const seconds = preferredWait(req.get('prefer'));
    const idempotencyKey = idempotencyKeyOf(req.headers);
    const outcome = await invocations.invoke({
      skillId: req.params.skillId,
      body: req.body,
      headers: req.headers,
      versionQuery: version,
      address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      ...(seconds ? { waitSeconds: seconds } : {}),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    // A new webhook's secret is shown once, in the 202: that answer is not traded for the outcome.
    if (seconds === undefined || 'refused' in outcome || outcome.accepted.webhook) {
      sendAccepted(res, outcome, baseUrl);
      return;
    }
    // Prefer: wait (RFC 7240): the answer once the execution ends, in the same round trip.
    const { execution: launched, watch } = outcome.accepted;
    const signal = goneSignal(res);
    const { execution, appliedWaitSeconds } = watch
      ? await executions.endOf({ launched, watch, seconds, signal })
      : await executions.read({
          skillId: req.params.skillId,
          executionId: launched.execution_id,
          headers: req.headers,
          wait: { seconds, until: 'end', signal },
        });
    if (res.closed) return;
    if (appliedWaitSeconds !== undefined) res.setHeader('Preference-Applied', `wait=${appliedWaitSeconds}`);
    if (!isTerminalStatus(execution.status)) {
      sendAccepted(res, outcome, baseUrl);
      return;
    }
    res.set(outcome.headers);
    setDeprecationHeader(res, outcome.accepted.deprecation);
    if (outcome.accepted.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).location(statusUrlOf(baseUrl, execution)).json(execution);
  });

  router.post(
    '/:skillId/replay/:executionId',
    requireJson({ optional: true }),
    async (req: Request<ExecutionParams>, res) => {
      const outcome = await replayer.replay({
        skillId: req.params.skillId,
        executionId: req.params.executionId,
        body: req.body,
        headers: req.headers,
        address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      });
      sendAccepted(res, outcome, baseUrl);
    },
  );
  return router;
}

/**
 * POST /executions/replay, on a router mounted at /executions: replaying, in bulk, what a history
 * filter finds.
 */
export function replayAllRoutes(replayer: ExecutionReplayer): Router {
  const router = measuredRouter();
  router.post('/replay', requireJson(), async (req, res) => {
    const filter = replayFilter.parse(req.body);
    res.json(await replayer.replayAll(filter, req.headers, req.ip ?? req.socket.remoteAddress ?? 'unknown'));
  });
  return router;
}

/** 202 with the execution accepted (and where to read it), or the refusal thrown to the error handler. */
function sendAccepted(res: Response, outcome: InvocationOutcome, baseUrl: string): void {
  res.set(outcome.headers);
  if ('refused' in outcome) throw outcome.refused;
  const { execution, deprecation, replayed, webhook, debounced } = outcome.accepted;
  const accepted: InvocationAccepted = {
    execution_id: execution.execution_id,
    status: 'accepted',
    skill_id: execution.skill_id,
    skill_version: execution.skill_version,
    ...(execution.requested_version === undefined ? {} : { requested_version: execution.requested_version }),
    ...(execution.replay_of === undefined ? {} : { replay_of: execution.replay_of }),
    ...(execution.forked_from === undefined ? {} : { forked_from: execution.forked_from }),
    trace_id: execution.trace_id,
    timestamps: execution.timestamps,
    ...(webhook ? { webhook } : {}),
  };
  setDeprecationHeader(res, deprecation);
  // The name Stripe and others use: the execution an earlier request with this key started.
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (debounced) res.setHeader('Debounced', 'true');
  res.status(202).location(statusUrlOf(baseUrl, execution)).json(accepted);
}

/** Where the execution's status is read (the Location of an invocation's answer). */
function statusUrlOf(baseUrl: string, execution: Pick<Execution, 'skill_id' | 'execution_id'>): string {
  return skillUrls(baseUrl, execution.skill_id).status.replace('{execution_id}', execution.execution_id);
}
