import type { IncomingHttpHeaders } from 'node:http';

/**
 * A request's header fields by lower-case name, as Node parses them (`req.headers`): what the
 * services read credentials and trace context from, without knowing of Express.
 */
export type RequestHeaders = Readonly<IncomingHttpHeaders>;

/** A header's value by name (any case); a field Node keeps as a list reads as its values joined. */
export function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
