import {
  type RedisScript,
  redisScript,
  type ScriptArg,
  TRANSITION_LUA,
  type TransitionCall,
  type TransitionResult,
  transitionResult,
} from '@skillrun/core';
import { moveToFinished } from 'bullmq/dist/esm/scripts/moveToFinished-14.js';
import { version as bullmqVersion } from 'bullmq/dist/esm/version.js';
import type { Redis } from 'ioredis';

/**
 * How many of moveToFinished's arguments are keys. Its file name says so too, so a BullMQ that
 * changes them fails this import rather than the script.
 */
const BULLMQ_KEYS = moveToFinished.keys;

/**
 * The record's transition (TRANSITION_LUA) and BullMQ's own moveToFinished, in one script. KEYS:
 * BullMQ's, then the transition's; ARGV: BullMQ's, then the transition's, then how many of ARGV are
 * the transition's. Each runs on its own KEYS and ARGV (parameters that hide Redis' globals), as it
 * would alone. The transition runs first, so that the record says the outcome before anything the
 * job's end moves on (a composite reads its steps' records), and under pcall, so that a failure of
 * its own leaves BullMQ's completion as it was when they were two calls. Answers the transition's
 * reply (its error as a string) and BullMQ's.
 */
const FINISH_LUA = `
local function transition(KEYS, ARGV)
${TRANSITION_LUA}
end
local function moveToFinished(KEYS, ARGV)
${moveToFinished.content}
end
local ours = tonumber(ARGV[#ARGV])
local theirs = #ARGV - ours - 1
local ok, reply = pcall(transition, { unpack(KEYS, ${BULLMQ_KEYS + 1}) },
  { unpack(ARGV, theirs + 1, theirs + ours) })
if not ok then reply = type(reply) == 'table' and reply.err or tostring(reply) end
return { reply, moveToFinished({ unpack(KEYS, 1, ${BULLMQ_KEYS}) }, { unpack(ARGV, 1, theirs) }) }
`;

interface Pending {
  call: TransitionCall;
  resolve: (result: TransitionResult) => void;
  reject: (error: Error) => void;
}

/**
 * Sends an attempt's outcome in the same script as BullMQ's completion (or final failure) of its
 * job: one call to Redis where there were two (one command less an execution; docs/performance.md
 * has what it did to the drain). BullMQ defines its scripts on a connection only where
 * no command of the same name is defined yet, so this defines moveToFinished's first: a job with
 * an outcome attached has it sent with its completion, any other job (a webhook's delivery) goes
 * to BullMQ's script as it is. An outcome whose call fails is sent again on its own (a transition
 * applied twice is refused the second time), one still attached when BullMQ says its job ended is
 * sent then (`jobEnded`), and one BullMQ never completes (a forced close) is sent by `flush`: no
 * outcome waits on BullMQ's goodwill.
 */
export class OutcomeCompletions {
  private readonly pending = new Map<string, Pending>();
  private readonly finish: RedisScript<[number | string, unknown]>;
  private readonly bullmqAlone: RedisScript<unknown>;

  /** Defines the scripts on `redis` before any BullMQ worker or queue uses it (else BullMQ's stay). */
  constructor(
    redis: Redis,
    private readonly sendAlone: (call: TransitionCall) => Promise<TransitionResult>,
  ) {
    this.finish = redisScript(redis, 'skillrunFinish', FINISH_LUA);
    this.bullmqAlone = redisScript(redis, 'skillrunMoveToFinished', moveToFinished.content);
    Reflect.set(redis, `${moveToFinished.name}:${bullmqVersion}`, (args: (ScriptArg | undefined)[]) =>
      this.complete(args),
    );
  }

  /** `call` is sent with the completion of job `jobId`; answers what it did. */
  attach(jobId: string, call: TransitionCall): Promise<TransitionResult> {
    return new Promise((resolve, reject) => {
      const earlier = this.pending.get(jobId);
      this.pending.set(jobId, { call, resolve, reject });
      if (earlier) void this.alone(earlier);
    });
  }

  /**
   * BullMQ says job `jobId` has ended (its worker's `completed` or `failed`): an outcome still
   * attached to it did not go with its end, which only a BullMQ that ends jobs some other way
   * would do, and is sent now, late rather than never. True when there was one.
   */
  jobEnded(jobId: string): boolean {
    const pending = this.pending.get(jobId);
    if (!pending) return false;
    this.pending.delete(jobId);
    void this.alone(pending);
    return true;
  }

  /** Sends on their own the outcomes whose jobs BullMQ did not complete. */
  async flush(): Promise<void> {
    const left = [...this.pending.values()];
    this.pending.clear();
    await Promise.all(left.map((pending) => this.alone(pending)));
  }

  /**
   * BullMQ's moveToFinished, called with its keys then its arguments (the job's id first; an absent
   * one is sent empty, as ioredis sends it).
   */
  private async complete(args: (ScriptArg | undefined)[]): Promise<unknown> {
    const keys = args.slice(0, BULLMQ_KEYS) as string[];
    const theirs = args.slice(BULLMQ_KEYS).map((arg) => arg ?? '');
    const jobId = String(theirs[0]);
    const pending = this.pending.get(jobId);
    if (!pending) return this.bullmqAlone(keys, theirs);
    this.pending.delete(jobId);
    const { call } = pending;
    let replies: [number | string, unknown];
    try {
      replies = await this.finish([...keys, ...call.keys], [...theirs, ...call.args, call.args.length]);
    } catch (error) {
      void this.alone(pending);
      throw error;
    }
    const [ours, bullmq] = replies;
    if (typeof ours === 'string') pending.reject(new Error(ours));
    else pending.resolve(transitionResult(ours));
    // A script that answers nothing answers null on its own; in our list it is just not there.
    return bullmq ?? null;
  }

  private alone({ call, resolve, reject }: Pending): Promise<void> {
    return this.sendAlone(call).then(resolve, reject);
  }
}
