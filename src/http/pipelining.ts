// HTTP/1.1 lets a client send requests on one connection without waiting for the answers. Node
// parses every request in what it has read before it stops reading, and each answer waits behind
// the ones ahead of it until the client reads them: a client that sends a thousand requests in one
// write and reads nothing pins a thousand answers for as long as it keeps the connection open.
// Clients that pipeline send a few; past MAX_WAITING unanswered on one connection, it is closed.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const MAX_WAITING = 16;

/** Requests begun and not yet answered, by connection (gone with the connection). */
const waiting = new WeakMap<Socket, number>();

/** A response closed (sent, or its connection gone): one request fewer waits on its connection. */
function answered(this: ServerResponse): void {
  const { socket } = this.req;
  waiting.set(socket, (waiting.get(socket) ?? 1) - 1);
}

/**
 * Counts each request on its connection from the moment Node hands it over until its response
 * closes (sent, or the connection gone), ahead of Fastify: requests Fastify answers without its
 * hooks (a malformed path) count too.
 */
export function limitPipelining(server: Server): void {
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    const n = (waiting.get(socket) ?? 0) + 1;
    waiting.set(socket, n);
    // One shared listener, no closure or once-wrapper per request: a held long poll keeps its
    // listener for as long as it waits, 10,000 times over. 'close' is emitted once.
    response.on('close', answered);
    // Node still hands over the rest of what it read; app.ts runs nothing for a closed connection.
    if (n > MAX_WAITING) socket.destroy();
  });
}
