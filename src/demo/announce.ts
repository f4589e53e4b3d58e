// What `--demo` shows at start. The demo's App Secret, keys and sign-in link are credentials: they
// go to a person at a terminal, once, and never into a redirected stdout (a log file or a
// collector), where anyone who reads the logs could use them.
import type { Out } from '../lib/out.js';
import { describeDemo, type Demo } from './demo.js';

export const demoHint = (base: string): string =>
  `Demo community loaded (${base}/docs). Its credentials and developer-site sign-in link are shown only on a terminal: run \`npm start\` in one to see them.\n`;

/** Whether the credentials are shown: the caller registers the sign-in link only then. */
export const showsCredentials = (out: Out): boolean => out.isTTY === true;

export function announceDemo(out: Out, demo: Demo, base: string, signInPath?: string): void {
  out.write(showsCredentials(out) ? describeDemo(demo, base, signInPath) : demoHint(base));
}
