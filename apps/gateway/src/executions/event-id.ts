import type { EventPosition } from './execution-events';

/**
 * The id of an event of an execution's stream, which a client sends back as Last-Event-ID: where
 * it was in both of the stream's orders, `<status change time, epoch ms>:<last chunk's seq>`. An
 * execution that streamed no chunk has the time alone, as its ids have always been.
 */
export function eventIdOf({ changedAt, seq }: EventPosition): string {
  return seq === 0 ? String(changedAt) : `${changedAt}:${seq}`;
}

/** The position a Last-Event-ID names; anything unreadable in it counts from the start. */
export function positionOf(lastEventId: string | undefined): EventPosition {
  const [time = '', seq = ''] = (lastEventId ?? '').split(':', 2);
  return { changedAt: wholeNumber(time), seq: wholeNumber(seq) };
}

function wholeNumber(text: string): number {
  return /^\d{1,16}$/.test(text) ? Number(text) : 0;
}
