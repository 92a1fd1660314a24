import { describe, expect, it } from 'vitest';
import { ServiceLogs } from '../support/fault-harness/service-logs';
import type { LogLine } from '../support/service-process';

const service = (logs: LogLine[]) => ({ logs, stderr: '' });

describe("fault harness: the gateways' faults, for a failure that saw a 500", () => {
  it('picks every "unhandled error" line of every process, with its request id, place and stack', () => {
    const logs = new ServiceLogs();
    logs.add(
      'gateway A',
      service([
        { msg: 'gateway listening', level: 30 },
        {
          msg: 'unhandled error',
          level: 50,
          time: '2026-12-06T18:00:00.000Z',
          method: 'POST',
          path: '/skills/recorded/invoke',
          request_id: 'r-1',
          err: { type: 'ReplyError', message: 'WRONGTYPE', stack: 'ReplyError: WRONGTYPE\n    at parse' },
        },
        { msg: 'redis unavailable', level: 40 },
      ]),
    );
    logs.add('worker w1', service([{ msg: 'worker ready', level: 30 }]));
    logs.add(
      'gateway B',
      service([
        { msg: 'unhandled error', level: 50, request_id: 'r-2', where: 'mcp tools/call', err: { code: 7 } },
      ]),
    );

    const told = logs.unhandled();
    expect(told.split('\n')[0]).toBe('"unhandled error" lines (2):');
    expect(told).toContain(
      'gateway A: 2026-12-06T18:00:00.000Z request_id=r-1 POST /skills/recorded/invoke\n',
    );
    expect(told).toContain('    ReplyError: WRONGTYPE\n        at parse');
    // An error logged without a stack is told as it was logged.
    expect(told).toContain('gateway B: request_id=r-2 mcp tools/call\n    {"code":7}');
    expect(told).not.toContain('redis unavailable');
    expect(told).not.toContain('worker');
  });

  it('says so when no process logged one', () => {
    const logs = new ServiceLogs();
    logs.add('gateway A', service([{ msg: 'gateway listening', level: 30 }]));
    expect(logs.unhandled()).toBe('no process logged "unhandled error"');
  });
});
