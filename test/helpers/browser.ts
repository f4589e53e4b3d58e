// Shared setup of the browser tests: Debian's Chromium driven by playwright-core, the app on a
// real port, and a stand-in for an app's redirect endpoint.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import type { App } from '../../src/http/types.js';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here (printed once), or undefined when they can. In CI a
 * missing Chromium is a failure, not a skip.
 */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but ${CHROMIUM} is missing`);
  const reason = `Chromium not found at ${CHROMIUM}: browser tests skipped (apt-get install chromium)`;
  process.stdout.write(`# ${reason}\n`);
  return reason;
}

export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ARGS });

function portOf(address: ReturnType<ReturnType<typeof createServer>['address']>): number {
  if (address === null || typeof address === 'string') throw new Error('not listening on a TCP port');
  return address.port;
}

/** Starts the app on 127.0.0.1 and a free port; returns its base URL. */
export async function listen(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${portOf(app.server.address())}`;
}

export interface CallbackServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (register `${url}/cb` as a redirect URI). */
  url: string;
  /** Every URL requested, in order. */
  hits: URL[];
  close(): Promise<void>;
}

/** A tiny HTTP server standing in for the app's redirect endpoint; it records what it was sent. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const hits: URL[] = [];
  let url = '';
  const server = createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', url));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Back in the app</title><p>Back in the app</p></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${portOf(server.address())}`;
  return {
    url,
    hits,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => {
          if (e === undefined) resolve();
          else reject(e);
        });
      }),
  };
}
