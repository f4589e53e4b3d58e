// Requests Node's HTTP parser refuses before Fastify sees them (a head over 64 KiB, bytes that are
// not HTTP) are answered in the envelope of the path their request line names, when it can be read.
// It cannot for a head over the limit: Node reads a connection at most 64 KiB at a time and hands
// over only the read that failed, so that answer is in the operator API's envelope.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { AppError, Errors, renderError, surfaceOf } from '../errors.js';
import { paramErrorFor } from './errors.js';

/** A request, as far as these checks read it. */
interface Incoming {
  url?: unknown;
  complete?: unknown;
}

/**
 * The request whose body Node's parser is still reading on this socket (its head was read), when
 * the error is in that body. Node keeps it on the parser (`socket.parser.incoming`), a completed
 * one too, hence the check of `complete`.
 */
function unfinished(socket: Socket): Incoming | undefined {
  const parser: unknown = Reflect.get(socket, 'parser');
  if (typeof parser !== 'object' || parser === null) return undefined;
  const incoming: unknown = Reflect.get(parser, 'incoming');
  if (typeof incoming !== 'object' || incoming === null) return undefined;
  const request: Incoming = incoming;
  return request.complete === false ? request : undefined;
}

/**
 * Whether the request the error is in was answered already: its response began (a bad chunk after
 * a 401), or even finished and left the socket (a GET answered while its body still arrived). It
 * must not get a second, unrequested answer. Node's own handler checks the first
 * (`socket._httpMessage`, the ServerResponse being written).
 */
function answered(socket: Socket, request: Incoming | undefined): boolean {
  const response: unknown = Reflect.get(socket, '_httpMessage');
  if (typeof response === 'object' && response !== null) return Reflect.get(response, 'headersSent') === true;
  return request !== undefined;
}

export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const request = unfinished(socket);
  if (answered(socket, request)) {
    socket.destroy();
    return;
  }
  // Typed as Buffer's JSON form, but Node hands over the Buffer itself (when it has one).
  const raw: unknown = error.rawPacket;
  // The path of a request whose body failed is on the request (the packet holds later bytes only).
  const target =
    typeof request?.url === 'string'
      ? request.url
      : (/^[A-Z]+ (\S+)/.exec(Buffer.isBuffer(raw) ? raw.toString('latin1') : '')?.[1] ?? '');
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
