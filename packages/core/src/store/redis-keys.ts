/** Every Redis key the service owns (BullMQ owns its own under the same prefix). */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  execution(executionId: string): string {
    return `${this.prefix}:exec:${executionId}`;
  }

  /** HASH skill id → JSON SkillDefinition, as advertised by workers. */
  skills(): string {
    return `${this.prefix}:skills`;
  }

  /** ZSET worker id → lease expiry (ms since epoch) of the workers hosting a skill. */
  skillHosts(skillId: string): string {
    return `${this.prefix}:skill-hosts:${skillId}`;
  }

  /** ZSET worker id → lease expiry of every worker process. */
  workers(): string {
    return `${this.prefix}:workers`;
  }

  memory(callerId: string): string {
    return `${this.prefix}:memory:${callerId}`;
  }
}
