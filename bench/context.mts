import type { Redis } from 'ioredis';
import type { BenchConfig } from './config.mjs';
import type { Minimal } from './support/minimal.mjs';
import type { Service, SkillRef } from './support/service.mjs';
import type { Figure } from './table.mjs';

/** What every figure gets: the settings, the Redis, both systems, and where results go. */
export interface BenchContext {
  config: BenchConfig;
  redisUrl: string;
  /** The bench's own connection (polling, INFO): never one of the measured processes'. */
  redis: Redis;
  service: Service;
  minimal: Minimal;
  /** The bench skill's id and version (bench/skills/noop: the no-op the baselines also run). */
  skill: SkillRef;
  figures: Figure[];
  /** Details printed after the table (top commands, GETs per execution, …). */
  details: string[];
  /** Anything odd the service did: non-202 answers, errors, timeouts, crashes. */
  oddities: string[];
  progress(message: string): void;
}
