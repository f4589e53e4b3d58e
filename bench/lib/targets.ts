// Targets several cases share: the bare route, and our application with its synthetic community.
import type autocannon from 'autocannon';
import { BARE_PATH } from '../servers/bare.js';
import type { PlatformInfo } from '../servers/platform.js';
import type { LoadRun, Round, Target, TargetResult } from './types.js';

/** GET on the bare Fastify route: the baseline. */
export const bareTarget: Target = {
  label: 'bare',
  server: 'bare',
  requests: () => [{ method: 'GET', path: BARE_PATH }],
};

/** Our application with 2000 users; `requests` gets the server's PlatformInfo. */
export const platformTarget = (
  label: string,
  requests: (info: PlatformInfo, run: LoadRun) => autocannon.Request[],
): Target => ({
  label,
  server: 'platform',
  params: { users: 2000 },
  requests: (raw, run) => requests(raw as PlatformInfo, run),
});

/** The medians of target `label` and of the bare route, and req/s of `label` over the bare route's; none where either is missing. */
export function againstBare(
  r: Record<string, TargetResult>,
  label: string,
): { bare: Round; ours: Round; ratio: number } | undefined {
  const bare = r.bare?.median;
  const ours = r[label]?.median;
  return bare === undefined || ours === undefined ? undefined : { bare, ours, ratio: ours.rps / bare.rps };
}
