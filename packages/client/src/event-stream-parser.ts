/** One server-sent event. */
export interface ServerSentEvent {
  /** `message` when the event names no type. */
  event: string;
  data: string;
  /** The last event id the stream set (what `Last-Event-ID` sends on reconnection). */
  id: string;
  /** A reconnection delay the server asked for, in ms. */
  retry?: number;
}

/**
 * The WHATWG `text/event-stream` interpretation (HTML, "Server-sent events", 9.2.6), fed text as it
 * arrives: lines end with CRLF, LF or CR; a blank line dispatches; `:` starts a comment; `data`
 * lines join with LF; `id` persists across events (and is ignored when it holds NULL); `retry` only
 * as digits; an event without data is not dispatched. Written here rather than depending on a
 * package for some 60 lines, so that the client depends on nothing.
 */
export class EventStreamParser {
  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  private retry: number | undefined;
  private started = false;
  private pendingCr = false;
  lastEventId = '';

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
  }

  /** Parses a chunk of text; returns the events it completes. */
  feed(chunk: string): ServerSentEvent[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    // A CR that ended the previous chunk already ended its line: a LF right after it is its pair.
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      if (match[0] === '\r' && match.index === this.buffer.length - 1) {
        this.pendingCr = true;
      }
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const eventType = this.eventType;
    const retry = this.retry;
    this.data = [];
    this.eventType = '';
    this.retry = undefined;
    if (data.length === 0) return undefined;
    return {
      event: eventType || 'message',
      data: data.join('\n'),
      id: this.lastEventId,
      ...(retry === undefined ? {} : { retry }),
    };
  }
}
