// Group sends per second through HTTP: signed POST /openapi/messages/group/send (text) by a bot
// that is a member of the group, against the bare Fastify route, same machine, same run.
import { signedPost } from '../lib/signing.js';
import { againstBare, bareTarget, platformTarget } from '../lib/targets.js';
import type { BenchCase, Check, TargetResult } from '../lib/types.js';

const RATIO_MIN = 0.3;

export const groupSendCase: BenchCase = {
  name: 'group-send',
  description: 'signed POST /openapi/messages/group/send (text, into the outbox) vs a bare route',
  targets: [
    bareTarget,
    platformTarget('send', (info, run) => {
      let n = 0;
      return [
        signedPost(info.bot, run, '/openapi/messages/group/send', () => ({
          group_id: info.botGroupId,
          object_name: 'text',
          content: `bench message ${n++}`,
        })),
      ];
    }),
  ],
  checks(r: Record<string, TargetResult>): Check[] {
    const m = againstBare(r, 'send');
    if (m === undefined) return [];
    const failed = m.ours.non2xx + m.ours.errors;
    return [
      { name: 'sends/s ratio send/bare', value: m.ratio, limit: `>= ${RATIO_MIN}`, pass: m.ratio >= RATIO_MIN },
      { name: 'failed sends', value: failed, limit: '= 0', pass: failed === 0 },
    ];
  },
};
