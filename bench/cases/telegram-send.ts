// The Telegram-compatible surface against the native bot methods, side by side in one run: the same
// bot sends the same text into the same group, as grammY sends it (POST, JSON body, token in the
// path) and as the platform's own client libraries do (POST /openapi/bot/sendMessage, X-API-KEY).
// Target: the Telegram surface keeps at least 0.9 of the native sends/s.
import { jsonPost } from '../lib/signing.js';
import { platformTarget } from '../lib/targets.js';
import type { BenchCase, Check, TargetResult } from '../lib/types.js';
import type { PlatformInfo } from '../servers/platform.js';

const RATIO_MIN = 0.9;

/** sendMessage into the bot's group at `path`, numbered texts after `prefix`. */
const sendToGroup = (info: PlatformInfo, path: string, headers: Record<string, string>, prefix: string) => {
  let n = 0;
  return [
    jsonPost(
      path,
      () => headers,
      () => ({ chat_id: info.botGroupId, text: `${prefix} ${n++}` }),
    ),
  ];
};

export const telegramSendCase: BenchCase = {
  name: 'telegram-send',
  description: 'sendMessage through /telegram/bot<token>/ (grammY-style) vs the native /openapi/bot/sendMessage',
  targets: [
    platformTarget('native', (info) =>
      sendToGroup(info, '/openapi/bot/sendMessage', { 'x-api-key': info.bot.api_key }, 'native'),
    ),
    platformTarget('telegram', (info) =>
      sendToGroup(info, `/telegram/bot${info.botTelegramToken}/sendMessage`, {}, 'telegram'),
    ),
  ],
  checks(r: Record<string, TargetResult>): Check[] {
    const native = r.native?.median;
    const telegram = r.telegram?.median;
    if (native === undefined || telegram === undefined) return [];
    const ratio = telegram.rps / native.rps;
    const failed = native.non2xx + native.errors + telegram.non2xx + telegram.errors;
    return [
      { name: 'sends/s ratio telegram/native', value: ratio, limit: `>= ${RATIO_MIN}`, pass: ratio >= RATIO_MIN },
      { name: 'failed sends', value: failed, limit: '= 0', pass: failed === 0 },
    ];
  },
};
