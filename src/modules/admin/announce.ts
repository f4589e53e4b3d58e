// The generated operator token is a credential: like the demo's (src/demo/announce.ts) it goes to
// a person at a terminal, never into a redirected stdout that a log collector keeps. Only its hash
// is stored, so off a terminal the way in is to choose one's own.
import type { Out } from '../../lib/out.js';

export const ADMIN_TOKEN_HIDDEN =
  'ADMIN_TOKEN: an operator token was generated but is shown only on a terminal (this output is not one); ' +
  'set ADMIN_TOKEN to a secret of your own (visible ASCII without spaces; 16 characters or more advised) and restart to use the operator API.\n';

export function announceAdminToken(out: Out, err: Pick<Out, 'write'>, token: string): void {
  if (out.isTTY === true) out.write(`\nADMIN_TOKEN (shown once; set ADMIN_TOKEN to choose your own): ${token}\n\n`);
  else err.write(ADMIN_TOKEN_HIDDEN);
}
