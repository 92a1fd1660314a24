import { describe, expect, it } from 'vitest';
import { preferredWait, requestedWait } from '../../apps/gateway/src/http/wait-preference';

describe('the wait a GET status or result asks for', () => {
  it('reads RFC 7240 wait from Prefer: the first instance, any case, quoted or not, parameters ignored', () => {
    expect(preferredWait('wait=10')).toBe(10);
    expect(preferredWait('WAIT = 7')).toBe(7);
    expect(preferredWait('wait="5"')).toBe(5);
    expect(preferredWait('respond-async, wait=3; foo=bar')).toBe(3);
    expect(preferredWait('wait=2, wait=9')).toBe(2);
    expect(preferredWait('wait=0')).toBe(0);
    expect(preferredWait('wait=3600')).toBe(3600);
  });

  it('ignores a Prefer it does not understand', () => {
    for (const prefer of [
      undefined,
      '',
      'respond-async',
      'wait',
      'wait=',
      'wait=abc',
      'wait=-1',
      'wait=1.5',
    ]) {
      expect(preferredWait(prefer), String(prefer)).toBeUndefined();
    }
    expect(preferredWait('wait=3601')).toBeUndefined();
    expect(preferredWait(`wait=${'9'.repeat(40)}`)).toBeUndefined();
    // Only the first instance counts, even when it is not understood.
    expect(preferredWait('wait=abc, wait=5')).toBeUndefined();
  });

  it('takes ?wait= before Prefer, and refuses a bad one with INVALID_INPUT', () => {
    expect(requestedWait({ wait: '4' }, 'wait=9')).toBe(4);
    expect(requestedWait({}, 'wait=9')).toBe(9);
    expect(requestedWait({}, undefined)).toBeUndefined();
    for (const query of [
      { wait: 'abc' },
      { wait: '-1' },
      { wait: '3601' },
      { wait: ['1', '2'] },
      { other: '1' },
    ]) {
      expect(() => requestedWait(query, undefined), JSON.stringify(query)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }),
      );
    }
  });
});
