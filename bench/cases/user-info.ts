// Signed GET /openapi/user/info on our app against a bare Fastify route, same machine, same run.
import { signedGet } from '../lib/signing.js';
import { againstBare, bareTarget, platformTarget } from '../lib/targets.js';
import type { BenchCase, Check, TargetResult } from '../lib/types.js';

const RATIO_MIN = 0.6;
const P99_MAX_MS = 15;

export const userInfoCase: BenchCase = {
  name: 'user-info',
  description:
    'signed GET /openapi/user/info (fresh nonce + timestamp + SHA1 signature per request, signed before the round) vs a bare route',
  targets: [
    bareTarget,
    platformTarget('ours', (info, run) => {
      const paths = info.userIds.map((id) => `/openapi/user/info?user_id=${encodeURIComponent(id)}`);
      let i = 0;
      return [signedGet(info.creds, run, () => paths[i++ % paths.length] ?? '')];
    }),
  ],
  checks(r: Record<string, TargetResult>): Check[] {
    const m = againstBare(r, 'ours');
    if (m === undefined) return [];
    const { bare, ours, ratio } = m;
    return [
      { name: 'req/s ratio ours/bare', value: ratio, limit: `>= ${RATIO_MIN}`, pass: ratio >= RATIO_MIN },
      { name: 'ours p99 latency (ms)', value: ours.p99, limit: `<= ${P99_MAX_MS}`, pass: ours.p99 <= P99_MAX_MS },
      {
        name: 'failed requests (non-2xx + errors, all rounds)',
        value: ours.non2xx + ours.errors + bare.non2xx + bare.errors,
        limit: '= 0',
        pass: ours.non2xx + ours.errors + bare.non2xx + bare.errors === 0,
      },
    ];
  },
};
