import { describe, expect, it } from 'vitest';
import { EventStreamParser } from '../../packages/client/src/event-stream-parser';

const feedAll = (chunks: string[], parser = new EventStreamParser()) => chunks.flatMap((c) => parser.feed(c));

describe('the client reads text/event-stream as the WHATWG rules say', () => {
  it('dispatches on a blank line, joins data lines, keeps the event type and id', () => {
    const events = feedAll(['event: status\nid: 17\ndata: {"a":\ndata: 1}\n\n']);
    expect(events).toEqual([{ event: 'status', id: '17', data: '{"a":\n1}' }]);
  });

  it('handles any chunking, CRLF and lone CR line ends, and a CRLF split across chunks', () => {
    const text = 'data: one\r\n\r\ndata: two\r\rdata: three\n\n';
    const whole = feedAll([text]);
    const byChar = feedAll([...text]);
    const splitCrlf = feedAll(['data: one\r', '\n\r', '\ndata: two\r\r', 'data: three\n\n']);
    const expected = ['one', 'two', 'three'];
    expect(whole.map((event) => event.data)).toEqual(expected);
    expect(byChar.map((event) => event.data)).toEqual(expected);
    expect(splitCrlf.map((event) => event.data)).toEqual(expected);
  });

  it('ignores comments and unknown fields, strips one leading space only, and a BOM', () => {
    const events = feedAll(['\uFEFF: heartbeat\n\nfoo: bar\ndata:  two spaces\ndata\n\n']);
    expect(events).toEqual([{ event: 'message', id: '', data: ' two spaces\n' }]);
  });

  it('does not dispatch an event without data, but keeps its id for the next one and for Last-Event-ID', () => {
    const parser = new EventStreamParser('5');
    expect(parser.feed('id: 9\n\n')).toEqual([]);
    expect(parser.lastEventId).toBe('9');
    expect(parser.feed('data: x\n\n')).toEqual([{ event: 'message', id: '9', data: 'x' }]);
    expect(parser.feed('id: a\0b\ndata: y\n\n')[0]?.id).toBe('9');
  });

  it('reads retry only as digits, and waits for the blank line before dispatching', () => {
    const parser = new EventStreamParser();
    expect(parser.feed('retry: 3000\ndata: x\n')).toEqual([]);
    expect(parser.feed('\nretry: 1s\ndata: y\n\n')).toEqual([
      { event: 'message', id: '', data: 'x', retry: 3000 },
      { event: 'message', id: '', data: 'y' },
    ]);
  });
});
