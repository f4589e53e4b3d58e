// HTTP/1.1 over a plain socket, for request targets and bytes that inject() and fetch() normalise
// (absolute-form targets, malformed escapes, invalid UTF-8).
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import type { App } from '../../src/http/types.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The port of `app`, listening on loopback from the first call on. */
export async function listeningPort(app: App): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** Sends `head` (request line and headers, without the blank line) and `body`; reads until close. */
export function rawRequest(port: number, head: string, body: Buffer = Buffer.alloc(0)): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${head}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const end = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
  });
}

/** Connects, lets `talk` write, and answers all the server wrote until it closed or reset the connection. */
function exchange(port: number, talk: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      talk(socket);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that destroys the socket may reset it: what it wrote before still counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve(Buffer.concat(chunks).toString());
    });
  });
}

/** Writes `bytes` as they are (no framing added). */
export const rawExchange = (port: number, bytes: string): Promise<string> =>
  exchange(port, (socket) => {
    socket.write(bytes);
  });

/** Writes `bytes` and ends the sending side (half-close). */
export const rawHalfClosed = (port: number, bytes: string): Promise<string> =>
  exchange(port, (socket) => {
    socket.end(bytes);
  });

/** Writes `first`, then `then` once the server has begun to answer. */
export const rawConversation = (port: number, first: string, then: string): Promise<string> =>
  exchange(port, (socket) => {
    socket.once('data', () => {
      socket.write(then);
    });
    socket.write(first);
  });
