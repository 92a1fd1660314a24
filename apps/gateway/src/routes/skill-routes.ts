import {
  type DescriptorContext,
  type InvocationAccepted,
  SkillError,
  skillUrls,
  toSkillDescriptor,
  traceIdFromTraceparent,
} from '@skillrun/core';
import { type Request, Router } from 'express';
import type { InvocationService } from '../invocation-service';
import { requireJson } from '../middleware/require-json';
import { redisDeadline } from '../redis-deadline';
import type { SkillDirectory } from '../skill-directory';

interface SkillParams {
  skillId: string;
}

interface ExecutionParams extends SkillParams {
  executionId: string;
}

export interface SkillRoutesDeps {
  directory: SkillDirectory;
  invocations: InvocationService;
  descriptor: DescriptorContext;
  redisTimeoutMs: number;
}

/** Discovery (GET /skills, GET /skills/:id) and the three-step invocation protocol of spec 001. */
export function skillRoutes({ directory, invocations, descriptor, redisTimeoutMs }: SkillRoutesDeps): Router {
  const router = Router();

  router.get('/skills', async (_req, res) => {
    const skills = await redisDeadline(() => directory.list(), redisTimeoutMs);
    res.json({ skills: skills.map((skill) => toSkillDescriptor(skill, descriptor)) });
  });

  router.get('/skills/:skillId', async (req, res) => {
    const skill = await redisDeadline(() => directory.get(req.params.skillId), redisTimeoutMs);
    if (!skill)
      throw new SkillError('SKILL_NOT_FOUND', `No live worker hosts a skill with id "${req.params.skillId}"`);
    res.json(toSkillDescriptor(skill, descriptor));
  });

  router.post('/skills/:skillId/invoke', requireJson(), async (req: Request<SkillParams>, res) => {
    const traceparent = traceIdFromTraceparent(req.get('traceparent'));
    const execution = await invocations.invoke(req.params.skillId, req.body, traceparent);
    const statusUrl = skillUrls(descriptor.baseUrl, execution.skill_id).status.replace(
      '{execution_id}',
      execution.execution_id,
    );
    const accepted: InvocationAccepted = {
      execution_id: execution.execution_id,
      status: 'accepted',
      skill_id: execution.skill_id,
      trace_id: execution.trace_id,
      timestamps: execution.timestamps,
    };
    res.status(202).location(statusUrl).json(accepted);
  });

  for (const step of ['status', 'result'] as const) {
    router.get(`/skills/:skillId/${step}/:executionId`, async (req: Request<ExecutionParams>, res) => {
      const execution = await invocations.find(req.params.skillId, req.params.executionId);
      const finished = ['completed', 'failed', 'timeout'].includes(execution.status);
      if (!finished) res.setHeader('Retry-After', '1');
      res.setHeader('Cache-Control', 'no-store');
      res.json(execution);
    });
  }

  return router;
}
