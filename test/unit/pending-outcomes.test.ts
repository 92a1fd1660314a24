import type { TransitionCall, TransitionResult } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';
import { PendingOutcomes } from '../../apps/worker/src/attempt/pending-outcomes';

const call: TransitionCall = { executionId: 'e1', keys: [], args: [] };

/** A send that fails with `errors` first, in order, then answers `applied`; counts its calls. */
function sendFailing(...errors: Error[]) {
  const sent = { count: 0 };
  const send = async (_call: TransitionCall): Promise<TransitionResult> => {
    sent.count += 1;
    const error = errors.shift();
    if (error) throw error;
    return 'applied';
  };
  return { send, sent };
}

describe("an attempt's outcome, written as its job ends", () => {
  it('is sent again while Redis is away (a failover), until it is written: its job may end on the promoted master', async () => {
    const { send, sent } = sendFailing(
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:6379'), { code: 'ECONNREFUSED' }),
    );
    const outcomes = new PendingOutcomes(send, 1);
    const heard = outcomes.attach('job-1', call);
    await outcomes.write('job-1');
    expect(sent.count).toBe(3);
    expect(await heard).toBe('applied');
  });

  it('is not sent again for a fault of ours: whoever attached it hears the error, and the job may end', async () => {
    const { send, sent } = sendFailing(new Error('ERR Error running script: attempt to index a nil value'));
    const outcomes = new PendingOutcomes(send, 1);
    const heard = outcomes.attach('job-1', call);
    await outcomes.write('job-1');
    expect(sent.count).toBe(1);
    await expect(heard).rejects.toThrow('ERR Error running script');
  });
});
