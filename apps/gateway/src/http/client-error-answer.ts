import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ErrorCode, type ErrorEnvelope, httpStatusOf, SkillError } from '@skillrun/core';

/** What Node's HTTP parser reports, in the catalogue's terms. */
function errorOf(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'The request headers are over the size limit (16 KB)' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' };
    default:
      return { code: 'INVALID_INPUT', message: 'The request is not well-formed HTTP' };
  }
}

/**
 * Answers requests Node refuses before Express sees them (headers over the limit, a request sent
 * too slowly, malformed HTTP) with the error envelope instead of Node's bare status line, then
 * closes the connection, whose framing can no longer be trusted.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away (or a reset) has nobody left to answer.
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const { code, message } = errorOf(error.code);
    const body = JSON.stringify({ error: new SkillError(code, message).toBody() } satisfies ErrorEnvelope);
    const status = httpStatusOf(code);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
