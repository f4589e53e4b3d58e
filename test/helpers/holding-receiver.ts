// A webhook receiver that answers at once, except a request it was told to hold: a test waits for
// that request to arrive (no polling, no sleep) and answers it when it chooses.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';

/** A webhook receiver answering `status`, except a request it was told to hold, answered on release. */
export async function holdingReceiver(status: number) {
  const bodies: string[] = [];
  let answer = status;
  let hold: { arrive: () => void; answer: Promise<number> } | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString());
      const held = hold;
      hold = undefined;
      if (held === undefined) {
        res.writeHead(answer).end('ok');
        return;
      }
      held.arrive();
      void held.answer.then((s) => res.writeHead(s).end('ok'));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object', 'listening on a port');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    /** The body of every request received, held or not. */
    bodies,
    answer: (s: number) => {
      answer = s;
    },
    /** Holds the next request: `arrived` resolves when it comes, `release` answers it. */
    holdNext() {
      // Promise executors run at once: both are set before they are read.
      let arrive!: () => void;
      let release!: (status: number) => void;
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      const answer = new Promise<number>((resolve) => {
        release = resolve;
      });
      hold = { arrive, answer };
      return { arrived, release };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

export type HoldingReceiver = Awaited<ReturnType<typeof holdingReceiver>>;
