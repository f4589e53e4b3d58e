// The browser tests on every store under test (SQLite always, PostgreSQL when reachable, required
// in CI): one Chromium for the file, and per store a fresh app on a real port.
import { after, before, describe } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { startTestApp, type StartOptions, type TestApp } from './app.js';
import { browserSkipReason, launchBrowser, listen } from './browser.js';
import { sessionToken } from './factories.js';
import { storesUnderTest } from './stores.js';

/** What a store's suite sees while its tests run. */
export interface ChromiumStore {
  /** The app on the store whose suite is running. */
  readonly t: TestApp;
  /** Where it listens, e.g. http://127.0.0.1:41234. */
  readonly base: string;
  /** The file's one Chromium, shared by the stores. */
  readonly browser: Browser;
  /** A browser context that is closed with the store's suite, before its app (whose long polls it may hold). */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
}

/** Gives `context` the session cookie of `userId` on the store's app, as the application would. */
export async function signIn(s: ChromiumStore, context: BrowserContext, userId: string): Promise<void> {
  await context.addCookies([{ name: 'op_session', value: await sessionToken(s.t.app, userId), url: s.base }]);
}

function running<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the browser suite is not running');
  return value;
}

/**
 * Registers `body` once per store under test inside one suite named `name`, skipped (or, in CI,
 * failing) without Chromium. Each store's suite starts its own app before its tests and closes
 * it after them.
 */
export async function describeInChromium(
  name: string,
  body: (s: ChromiumStore) => void,
  options: StartOptions = {},
): Promise<void> {
  await describe(name, { skip: browserSkipReason() }, async () => {
    let browser: Browser | undefined;
    before(async () => {
      browser = await launchBrowser();
    });
    after(async () => browser?.close());
    for (const store of await storesUnderTest()) {
      await describe(`${name} [${store}]`, () => {
        let t: TestApp | undefined;
        let base: string | undefined;
        const contexts: BrowserContext[] = [];
        before(async () => {
          t = await startTestApp(store, options);
          base = await listen(t.app);
        });
        after(async () => {
          for (const context of contexts.splice(0)) await context.close();
          await t?.close();
        });
        body({
          get t() {
            return running(t);
          },
          get base() {
            return running(base);
          },
          get browser() {
            return running(browser);
          },
          newContext: async (contextOptions) => {
            const context = await running(browser).newContext(contextOptions);
            contexts.push(context);
            return context;
          },
        });
      });
    }
  });
}
