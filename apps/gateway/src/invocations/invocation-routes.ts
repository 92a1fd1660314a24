import { type Execution, type InvocationAccepted, isTerminalStatus, skillUrls } from '@skillrun/core';
import type { Request, Response, Router } from 'express';
import type { ExecutionCanceler } from '../executions/execution-canceler';
import type { ExecutionReader } from '../executions/execution-reader';
import type { ExecutionReplayer } from './execution-replayer';
import type { ExecutionStreams } from '../executions/execution-stream';
import type { InvocationOutcome, InvocationService } from './invocation-service';
import { requireJson } from '../http/require-json';
import { pollHintMs } from '../executions/poll-hint';
import { setDeprecationHeader } from '../http/deprecation-header';
import { type SkillParams, versionQuery } from '../skills/discovery-routes';
import { preferredWait, requestedWait } from '../http/wait-preference';

interface ExecutionParams extends SkillParams {
  executionId: string;
}

export interface InvocationRoutesDeps {
  invocations: InvocationService;
  executions: ExecutionReader;
  canceler: ExecutionCanceler;
  replayer: ExecutionReplayer;
  streams: ExecutionStreams;
  baseUrl: string;
}

/**
 * The three-step invocation protocol of spec 001 (invoke, status, result), and cancel and replay
 * (ours), on the /skills router.
 */
export function invocationRoutes(router: Router, deps: InvocationRoutesDeps): void {
  const { invocations, executions, canceler, replayer, streams, baseUrl } = deps;
  router.post('/:skillId/invoke', requireJson(), async (req: Request<SkillParams>, res) => {
    const { version } = versionQuery.parse({ ...req.query });
    const seconds = preferredWait(req.get('prefer'));
    const outcome = await invocations.invoke({
      skillId: req.params.skillId,
      body: req.body,
      headers: req.headers,
      versionQuery: version,
      address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      ...(seconds ? { waitSeconds: seconds } : {}),
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
}

/** 202 with the execution accepted (and where to read it), or the refusal thrown to the error handler. */
function sendAccepted(res: Response, outcome: InvocationOutcome, baseUrl: string): void {
  res.set(outcome.headers);
  if ('refused' in outcome) throw outcome.refused;
  const { execution, deprecation, replayed, webhook } = outcome.accepted;
  const accepted: InvocationAccepted = {
    execution_id: execution.execution_id,
    status: 'accepted',
    skill_id: execution.skill_id,
    skill_version: execution.skill_version,
    ...(execution.requested_version === undefined ? {} : { requested_version: execution.requested_version }),
    ...(execution.replay_of === undefined ? {} : { replay_of: execution.replay_of }),
    trace_id: execution.trace_id,
    timestamps: execution.timestamps,
    ...(webhook ? { webhook } : {}),
  };
  setDeprecationHeader(res, deprecation);
  // The name Stripe and others use: the execution an earlier request with this key started.
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.status(202).location(statusUrlOf(baseUrl, execution)).json(accepted);
}

/** Where the execution's status is read (the Location of an invocation's answer). */
function statusUrlOf(baseUrl: string, execution: Pick<Execution, 'skill_id' | 'execution_id'>): string {
  return skillUrls(baseUrl, execution.skill_id).status.replace('{execution_id}', execution.execution_id);
}

/**
 * Aborts when the client goes away, for a request that waits. 'close' is also emitted once the
 * answer is sent, when aborting no longer matters: it is not aborted then (an abort makes a
 * DOMException, stack trace and all, and every waiting request's answer would pay for one).
 */
function goneSignal(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
