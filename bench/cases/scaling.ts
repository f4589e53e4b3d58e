// Statistics cost the same at any size: median latency of GET /openapi/moment/praise_info and
// GET /openapi/group/info on a community with 10 thousand likes and on one with 1 million.
import { signedGet } from '../lib/signing.js';
import type { BenchCase, Check, Target, TargetResult } from '../lib/types.js';
import type { PlatformInfo } from '../servers/platform.js';

const RATIO_MAX = 1.3;
const USERS = 10_000;
const SIZES = { '10k': 10_000, '1m': 1_000_000 } as const;

/** A wallet per sampled user; the synthetic community gives each user a deterministic wallet. */
const cycle = <T>(items: readonly T[]) => {
  let i = 0;
  return () => items[i++ % items.length];
};

const endpoints = {
  praise: (info: PlatformInfo) => {
    const next = cycle(info.wallets);
    return () => `/openapi/moment/praise_info?wallet_address=${encodeURIComponent(next() ?? '')}&chain_id=1`;
  },
  group: (info: PlatformInfo) => {
    const next = cycle(info.groupUrls);
    return () => `/openapi/group/info?group_invite_url=${encodeURIComponent(next() ?? '')}`;
  },
};

const targets: Target[] = Object.entries(SIZES).flatMap(([size, likes]) =>
  Object.entries(endpoints).map(([endpoint, path]) => ({
    label: `${endpoint}-${size}`,
    server: 'platform',
    params: { users: USERS, likes },
    requests: (raw: unknown, run) => [signedGet((raw as PlatformInfo).creds, run, path(raw as PlatformInfo))],
  })),
);

export const scalingCase: BenchCase = {
  name: 'scaling',
  description: `praise_info and group/info latency with ${USERS} users and 10 thousand vs 1 million likes (seeded by the synthetic community)`,
  connections: 10,
  targets,
  checks(r: Record<string, TargetResult>): Check[] {
    return Object.keys(endpoints).flatMap((endpoint) => {
      const small = r[`${endpoint}-10k`]?.median;
      const large = r[`${endpoint}-1m`]?.median;
      if (small === undefined || large === undefined) return [];
      const ratio = large.p50 / small.p50;
      return [
        { name: `${endpoint} median latency 1m/10k`, value: ratio, limit: `< ${RATIO_MAX}`, pass: ratio < RATIO_MAX },
        {
          name: `${endpoint} failed requests`,
          value: small.non2xx + small.errors + large.non2xx + large.errors,
          limit: '= 0',
          pass: small.non2xx + small.errors + large.non2xx + large.errors === 0,
        },
      ];
    });
  },
};
