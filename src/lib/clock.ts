/** Time source; tests pass a fake one instead of sleeping. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/**
 * How far instances' clocks may differ: a time one instance stored is read against another's
 * clock (nonces kept past their expiry, webhook leases held past their attempt).
 */
export const CLOCK_SKEW_MS = 60_000;

/** "YYYY-MM-DD HH:MM:SS" in UTC, the description's date format. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
