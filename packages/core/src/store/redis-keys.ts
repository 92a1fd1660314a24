/** Every Redis key the service owns (BullMQ owns its own under the same prefix). */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  execution(executionId: string): string {
    return `${this.prefix}:exec:${executionId}`;
  }

  /** ZSET (all scores 0) of every skill id in the registry, read in lexical order for pagination. */
  skillIds(): string {
    return `${this.prefix}:registry:ids`;
  }

  /** HASH version → JSON RegistryEntry: every version of a skill ever published. */
  skillVersions(skillId: string): string {
    return `${this.prefix}:registry:skill:${skillId}`;
  }

  /** HASH version → JSON Deprecation. */
  deprecations(skillId: string): string {
    return `${this.prefix}:registry:deprecated:${skillId}`;
  }

  /** ZSET worker id → lease expiry (ms since epoch) of the workers hosting one version of a skill. */
  skillHosts(skillId: string, version: string): string {
    return `${this.prefix}:skill-hosts:${skillId}@${version}`;
  }

  /** ZSET worker id → lease expiry of every worker process. */
  workers(): string {
    return `${this.prefix}:workers`;
  }

  /** ZSET execution id → deadline (epoch ms) of the composites waiting for a step. */
  waitingComposites(): string {
    return `${this.prefix}:composites:waiting`;
  }

  memory(callerId: string): string {
    return `${this.prefix}:memory:${callerId}`;
  }
}
