import type { ScheduledStart } from '../queue/scheduled-start';
import type { QueuePlace } from '../queue/skill-queue';
import type { Execution } from '../schemas/execution';
import type { JobPayload } from '../schemas/job-payload';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { PendingApproval } from '../store/execution/approval-fields';
import type { RecordExtras } from '../store/execution/execution-record';
import { isGated } from '../store/flow/concurrency-gate';
import type { LaunchOrigin } from './launch-origin';

export interface LaunchRequest {
  payload: JobPayload;
  skill: Pick<SkillDefinition, 'name' | 'version' | 'retry' | 'concurrency'>;
  requestedVersion?: string;
  /** Where it came from (what its record names); POST invoke's when absent. */
  origin?: LaunchOrigin;
  /** Concurrency quotas the execution already holds a slot in (freed when it ends, or if this fails). */
  slots?: string[];
  /** Where fair share puts it in its queue (skill-queue.ts); in order when absent. */
  place?: QueuePlace;
  /** A skill registered from elsewhere: a worker calls its provider (the remote queue). */
  remote?: boolean;
  /** The first retry's delay, when not RETRY_BACKOFF_MS (a registered skill's endpoint.retry says). */
  retryBackoffMs?: number;
  /** Which webhooks hear of it, and whether its changes are announced from the start (see RecordExtras). */
  notify?: Pick<RecordExtras, 'hook' | 'webhook_id' | 'watched'>;
  /** When a delayed execution starts: its job waits in BullMQ's delayed set until then. */
  start?: ScheduledStart;
  /**
   * Its skill's approval policy holds it (`awaiting_approval`): its job waits in BullMQ's delayed
   * set until the approval's deadline, brought forward when it is approved (ExecutionEngine.decide).
   */
  approval?: PendingApproval;
}

/** What a debounced launch came to: a new execution, or the one its key had open (`joined`). */
export interface DebouncedLaunch {
  execution: Execution;
  joined: boolean;
}

/** What one launch of a bulk came to: the execution, or why it does not exist. */
export type LaunchOutcome = { execution: Execution } | { refused: unknown };

/** What a new execution's record holds besides its payload, from its launch. */
export function extrasOf(request: LaunchRequest): RecordExtras {
  return {
    max_attempts: request.skill.retry + 1,
    ...(request.requestedVersion === undefined ? {} : { requested_version: request.requestedVersion }),
    ...(request.slots ? { slots: request.slots } : {}),
    ...originExtras(request.origin),
    ...(request.remote ? { remote: true } : {}),
    ...(request.start === undefined ? {} : { start: request.start }),
    ...(request.approval === undefined ? {} : { approval: request.approval }),
    ...(isGated(request.skill.concurrency, request.payload.concurrency_key) ? { unadmitted: true } : {}),
    ...request.notify,
  };
}

/** What a record names of its launch's origin. */
function originExtras(
  origin: LaunchOrigin | undefined,
): Pick<RecordExtras, 'replay_of' | 'forked_from' | 'steps' | 'schedule_id' | 'batch_id'> {
  switch (origin?.kind) {
    case 'replay':
      return {
        replay_of: origin.replayOf,
        ...(origin.fork ? { forked_from: origin.fork.from, steps: origin.fork.reused } : {}),
      };
    case 'schedule-run':
      return { schedule_id: origin.scheduleId };
    case 'batch-item':
      return { batch_id: origin.batchId };
    default:
      return {};
  }
}

/** The composite's job that waits for this launch (a step's, unless placed apart), if any. */
export function parentJobOf(request: LaunchRequest): { id: string; queue: string } | undefined {
  return request.origin?.kind === 'step' ? request.origin.parentJob : undefined;
}
