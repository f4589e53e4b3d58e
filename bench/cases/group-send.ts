// Group sends per second through HTTP: signed POST /openapi/messages/group/send (text) by a bot
// that is a member of the group, against the bare Fastify route, same machine, same run.
import { signedPost } from '../lib/signing.js';
import { bareTarget, platformTarget } from '../lib/targets.js';
import type { BenchCase, Check, TargetResult } from '../lib/types.js';

const RATIO_MIN = 0.3;

export const groupSendCase: BenchCase = {
  name: 'group-send',
  description: 'signed POST /openapi/messages/group/send (text, into the outbox) vs a bare route',
  targets: [
    bareTarget,
    platformTarget('send', (info) => {
      let n = 0;
      return [
        signedPost(info.bot, '/openapi/messages/group/send', () => ({
          group_id: info.botGroupId,
          object_name: 'text',
          content: `bench message ${n++}`,
        })),
      ];
    }),
  ],
  checks(r: Record<string, TargetResult>): Check[] {
    const bare = r.bare?.median;
    const send = r.send?.median;
    if (bare === undefined || send === undefined) return [];
    const ratio = send.rps / bare.rps;
    const failed = send.non2xx + send.errors;
    return [
      { name: 'sends/s ratio send/bare', value: ratio, limit: `>= ${RATIO_MIN}`, pass: ratio >= RATIO_MIN },
      { name: 'failed sends', value: failed, limit: '= 0', pass: failed === 0 },
    ];
  },
};
