import type { Logger } from '../logging/create-logger';
import { MasterSwitches } from './master-switches';
import type { RedisTarget } from './redis-target';
import type { ReplicaCoverage } from './replica-coverage';

/**
 * Says in the log whether ACK_REPLICAS's promise holds (ReplicaCoverage): once at start, and again
 * after each promotion the Sentinels announce (the group's replicas are then others), each time
 * the verdict changes. Not holding is a warning: a 202 may then be lost in a failover, which the
 * operator asked ACK_REPLICAS to rule out; /readyz says it too.
 */
export class ReplicaCoverageWatch {
  private switches: MasterSwitches | undefined;
  /** The verdict last said. */
  private said: string | undefined;
  private closed = false;

  constructor(
    private readonly coverage: ReplicaCoverage,
    private readonly sentinels: NonNullable<RedisTarget['sentinels']>,
    private readonly logger: Logger,
  ) {}

  /** Looks now (not awaited: a Sentinel away must not hold the start) and after each promotion. */
  start(): void {
    void this.look();
    this.switches = new MasterSwitches(this.sentinels, () => void this.look());
  }

  close(): void {
    this.closed = true;
    this.switches?.close();
  }

  private async look(): Promise<void> {
    const { status, detail } = await this.coverage.check();
    if (this.closed || detail === this.said) return;
    this.said = detail;
    if (status === 'failed')
      this.logger.warn({ detail }, 'ACK_REPLICAS does not make a 202 survive every failover');
    else if (status === 'ok')
      this.logger.info({ detail }, 'ACK_REPLICAS covers every replica the Sentinels may promote');
  }
}
