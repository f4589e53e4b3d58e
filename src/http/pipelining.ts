// HTTP/1.1 lets a client send requests on one connection without waiting for the answers. Node
// parses every request in what it has read before it stops reading, and each answer waits behind
// the ones ahead of it until the client reads them: a client that sends a thousand requests in one
// write and reads nothing pins a thousand answers for as long as it keeps the connection open.
// Clients that pipeline send a few; past MAX_WAITING unanswered on one connection, it is closed.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const MAX_WAITING = 16;

/** Requests begun and not yet answered, by connection (gone with the connection). */
const waiting = new WeakMap<Socket, number>();

/**
 * Counts a request on its connection; false (the connection closed, the request dropped) when the
 * client already has MAX_WAITING unanswered.
 */
export function admitted(request: FastifyRequest, reply: FastifyReply): boolean {
  const { socket } = request.raw;
  const n = (waiting.get(socket) ?? 0) + 1;
  waiting.set(socket, n);
  if (n <= MAX_WAITING) return true;
  // Hijacked: Fastify skips the rest of the request's handling and sends nothing.
  reply.hijack();
  socket.destroy();
  return false;
}

/** The request's answer went out: one fewer waiting on its connection. */
export function answered(request: FastifyRequest): void {
  const { socket } = request.raw;
  const n = waiting.get(socket);
  if (n !== undefined) waiting.set(socket, n - 1);
}
