// Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KiB, bytes that are
// not HTTP) are answered in the envelope of the path their request line names, when it can be read.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { AppError, Errors, renderError, surfaceOf } from '../errors.js';
import { paramErrorFor } from './errors.js';

/**
 * Whether a response already began on the socket: a body that turns out malformed after its route
 * answered (a bad chunk after a 401) must not get a second, unrequested one. Node's own handler
 * checks the same (`socket._httpMessage`, the ServerResponse being written).
 */
function answering(socket: Socket): boolean {
  const response: unknown = Reflect.get(socket, '_httpMessage');
  return typeof response === 'object' && response !== null && Reflect.get(response, 'headersSent') === true;
}

export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (answering(socket)) {
    socket.destroy();
    return;
  }
  // Typed as Buffer's JSON form, but Node hands over the Buffer itself (when it has one).
  const raw: unknown = error.rawPacket;
  const target = /^[A-Z]+ (\S+)/.exec(Buffer.isBuffer(raw) ? raw.toString('latin1') : '')?.[1] ?? '';
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError(Errors.headersTooLarge)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError(Errors.requestTimeout)
        : new AppError(paramErrorFor(target), 'malformed HTTP request');
  const { status, body, headers } = renderError(surfaceOf(target), problem);
  const text = JSON.stringify(body);
  const head = Object.entries({
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head.join('')}\r\n${text}`);
}
