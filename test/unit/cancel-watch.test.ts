import { SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { CancelWatch } from '../../apps/worker/src/attempt/cancellations';

const canceled = () => new SkillError('EXECUTION_CANCELED', 'The execution was canceled');

describe('an attempt cancel watch', () => {
  it('tells each listener once, and none that was removed', () => {
    const watch = new CancelWatch(() => {});
    const heard: string[] = [];
    watch.onCancel(() => heard.push('kept'));
    const forget = watch.onCancel(() => heard.push('removed'));
    forget();
    watch.cancel(canceled());
    watch.cancel(canceled());
    expect(heard).toEqual(['kept']);
    expect(watch.canceled).toBe(true);
  });

  it('calls a listener added after the cancel at once', () => {
    const watch = new CancelWatch(() => {});
    watch.cancel(canceled());
    let heard = false;
    watch.onCancel(() => {
      heard = true;
    });
    expect(heard).toBe(true);
  });

  it('aborts its signal with the cancel error, whether asked for before the cancel or after', () => {
    const before = new CancelWatch(() => {});
    const early = before.signal;
    const error = canceled();
    before.cancel(error);
    expect(early.aborted).toBe(true);
    expect(early.reason).toBe(error);

    const after = new CancelWatch(() => {});
    after.cancel(error);
    expect(after.signal.aborted).toBe(true);
    expect((after.signal.reason as SkillError).code).toBe('EXECUTION_CANCELED');
  });

  it('is not canceled, and its signal not aborted, until it is', () => {
    const watch = new CancelWatch(() => {});
    expect(watch.canceled).toBe(false);
    expect(watch.signal.aborted).toBe(false);
  });

  it('tells nobody once released, and says so to whoever holds it', () => {
    let released: CancelWatch | undefined;
    const watch = new CancelWatch((which) => {
      released = which;
    });
    let heard = false;
    watch.onCancel(() => {
      heard = true;
    });
    watch.release();
    watch.cancel(canceled());
    expect(released).toBe(watch);
    expect(heard).toBe(false);
  });
});
