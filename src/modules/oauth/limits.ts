// Budgets of the login flow's writes. Each code exchange and refresh adds a refresh_tokens row kept
// for its 14 days (reuse detection needs it), and each Allow adds a code (or a payment's one-time
// token): unlimited, one app looping refresh on one login of its own added rows at 510/s (~600
// million in 14 days). The limits bound what one login can add while a real client never meets them.
import type { Bucket, Claim } from '../../lib/rate-limit.js';

/**
 * Per app and user, exchanges and refreshes together: the bound on one login's rows. Rotation makes
 * a login's refreshes one after another, and a client refreshes once per access token (2 hours);
 * several devices of one user, an eager client refreshing every few minutes, or a test suite
 * running its login checks against one user stay far below it. 300 at once, then one every 10 s: at
 * most ~8,900 rows a day, ~121,000 over the 14 days (a loop measured 510/s, ~600 million, without).
 * Keyed by user, not by token family: a new family needs only an Allow and an exchange, so a family
 * key would let one user multiply the budget; keyed by app as well, so one app's loop cannot refuse
 * the user's other apps.
 */
export const LOGIN_BUCKET: Bucket = { perSecond: 1 / 10, burst: 300 };

/**
 * Per app, exchanges and refreshes together, so that one app cannot take the store's write path
 * whatever its number of users: RATE_LIMIT_TOKEN_APP_PER_S (1,000 by default) with ten seconds of
 * it at once. An app of 1M users refreshing every hour needs ~280/s on average (every 2 hours, as
 * the access token lives, ~140/s); its peaks, and a wave of refreshes after an outage, fit the
 * burst. Not the per-login bound: the app-wide rate allows far more rows than one login could need.
 */
export const appBucket = (perSecond: number): Bucket => ({ perSecond, burst: perSecond * 10 });

/**
 * Per user, every Allow on the authorize page (any app, logins and payments): a person presses it a
 * few times a minute at most, a test suite's logins and payments for one user a few dozen times in
 * a run. 100 at once, then one every 5 s. Keyed by user alone: another app cannot spend it, since an
 * Allow needs the user's session and the page's CSRF token.
 */
export const ALLOW_BUCKET: Bucket = { perSecond: 1 / 5, burst: 100 };

/**
 * The claims of an exchange or a refresh: the login's bucket first (what a retry of it waits for),
 * then the app's. App ids (`app_<hex>`) hold no colon, so the login key names one app and user.
 */
export const grantClaims = (appId: string, userId: string, app: Bucket): Claim[] => [
  { key: `login:${appId}:${userId}`, bucket: LOGIN_BUCKET },
  { key: `login-app:${appId}`, bucket: app },
];

export const allowClaims = (userId: string): Claim[] => [{ key: `allow:${userId}`, bucket: ALLOW_BUCKET }];
