/**
 * The keys of the audit log: few records (administrative acts), so under the prefix, on one shard
 * whatever REDIS_SHARDS says.
 */
export class AuditKeys {
  constructor(private readonly prefix: string) {}

  /**
   * ZSET (all scores 0) of the audit ids, `<at ms, 13 digits>-<random>`: read newest first by
   * range, trimmed to AUDIT_RETENTION_DAYS at each write.
   */
  index(): string {
    return `${this.prefix}:audit`;
  }

  /** HASH of one record (`record`: its JSON; `outcome`, `status`, `error_code` and `details` once answered); expires with the retention. */
  record(auditId: string): string {
    return `${this.prefix}:audit:${auditId}`;
  }
}
