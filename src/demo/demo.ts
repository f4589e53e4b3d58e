// A small demo community loaded on first `npm start`, and the ready-to-paste calls against it.
import type { IncomingEvent } from '../modules/events/index.js';
import { ASSISTANT_USER_ID } from '../db/migrations/0003_developers.js';
import type { Services } from '../services.js';

const META_KEY = 'demo';

/** The demo's developer: owns the demo app and bot. */
const DEVELOPER_ID = '10001';

export interface Demo {
  userId: string;
  developerId: string;
  groupUrl: string;
  app: { app_id: string; api_key: string; app_secret: string };
  bot: { bot_user_id: string; api_key: string };
}

interface StoredDemo {
  userId: string;
  groupUrl: string;
  appId: string;
  botUserId: string;
  botAppId: string;
}

const isStoredDemo = (v: unknown): v is StoredDemo =>
  typeof v === 'object' && v !== null && ['userId', 'groupUrl', 'appId', 'botUserId', 'botAppId'].every((k) => k in v);

const people = [
  { user_id: '10001', name: 'Alice', level: 6 },
  { user_id: '10002', name: 'Bob', level: 3 },
  { user_id: '10003', name: 'Carol', level: 2 },
  { user_id: '10004', name: 'Dave', level: 1 },
];

export function demoEvents(): IncomingEvent[] {
  let n = 0;
  const ev = (type: string, data: Record<string, unknown>): IncomingEvent => ({ id: `demo-${++n}`, type, data });
  const groupUrl = 'https://community.example/g/open-platform-demo';
  return [
    ...people.map((p, i) =>
      ev('user.upserted', {
        ...p,
        wallet_address: `0x${String(i + 1).repeat(40)}`,
        avatar: `https://community.example/avatars/${p.user_id}.png`,
        level_icon: `https://community.example/levels/${p.level}.png`,
      }),
    ),
    ev('follow.created', { follower_id: '10002', followed_id: '10001' }),
    ev('follow.created', { follower_id: '10003', followed_id: '10001' }),
    ev('follow.created', { follower_id: '10001', followed_id: '10002' }),
    ev('group.upserted', {
      group_id: '20001',
      name: 'Open Platform Demo',
      invite_url: groupUrl,
      pic: 'https://community.example/groups/20001.png',
      is_charge: false,
      subchannel_number: 3,
      maximum: 500,
      created_at: '2026-01-15 09:30:00',
      owner_id: '10001',
    }),
    ev('group.member.joined', { group_id: '20001', user_id: '10001', role: 'admin' }),
    ev('group.member.joined', { group_id: '20001', user_id: '10002', role: 'moderator' }),
    ev('group.member.joined', { group_id: '20001', user_id: '10003' }),
    ev('moment.created', { moment_id: '30001', author_id: '10001' }),
    ev('moment.created', { moment_id: '30002', author_id: '10002' }),
    ev('moment.liked', { moment_id: '30001', user_id: '10002' }),
    ev('moment.liked', { moment_id: '30001', user_id: '10003' }),
    ev('moment.liked', { moment_id: '30002', user_id: '10001' }),
    ev('vote.cast', { vote_id: '40001', group_id: '20001', user_id: '10002' }),
    ev('lucky_draw.created', { draw_id: '50001', group_id: '20001', initiator_id: '10001' }),
    ev('lucky_draw.entered', { draw_id: '50001', user_id: '10002' }),
    ev('lucky_draw.won', { draw_id: '50001', user_id: '10002' }),
    ev('lucky_box.sent', { box_id: '60001', sender_id: '10001', amount: '10.00', count: 2, group_id: '20001' }),
    ev('lucky_box.claimed', { box_id: '60001', user_id: '10002', amount: '6.5' }),
    ev('points.credited', { user_id: '10001', amount: '1000' }),
    ev('points.credited', { user_id: '10002', amount: '250.75' }),
  ];
}

/** Loads the demo community once (when the store has none) and returns its credentials. */
export async function ensureDemo(s: Services): Promise<Demo> {
  const row = await s.db.k.selectFrom('meta').select('value').where('key', '=', META_KEY).executeTakeFirst();
  const parsed: unknown = row === undefined ? undefined : JSON.parse(row.value);
  const stored = isStoredDemo(parsed) ? parsed : await createDemo(s);
  const app = await s.apps.revealCredentials(stored.appId);
  const bot = await s.apps.revealCredentials(stored.botAppId);
  return {
    userId: stored.userId,
    developerId: DEVELOPER_ID,
    groupUrl: stored.groupUrl,
    app,
    bot: { bot_user_id: stored.botUserId, api_key: bot.api_key },
  };
}

async function createDemo(s: Services): Promise<StoredDemo> {
  await s.events.ingest(demoEvents());
  const app = await s.apps.createApp({
    owner_user_id: DEVELOPER_ID,
    name: 'Demo App',
    redirect_uris: [`${s.config.publicUrl}/demo/callback`],
  });
  const bot = await s.apps.createBot({ owner_user_id: DEVELOPER_ID, name: 'Demo Bot', description: 'Says hello.' });
  const stored: StoredDemo = {
    userId: '10002',
    groupUrl: 'https://community.example/g/open-platform-demo',
    appId: app.app_id,
    botUserId: bot.bot_user_id,
    botAppId: bot.app_id,
  };
  await s.db.k
    .insertInto('meta')
    .values({ key: META_KEY, value: JSON.stringify(stored) })
    .execute();
  return stored;
}

export function describeDemo(d: Demo, base: string, signInPath?: string): string {
  // A current route (GET /openapi/user/info is deprecated): the followers of the key's owner, Alice.
  const q = `${base}/openapi/user/followers?page=1&size=20`;
  return [
    '',
    'Demo community loaded. Try the API:',
    '',
    "  # key-only: who follows the Demo App's owner",
    `  curl -s -H 'X-API-KEY: ${d.app.api_key}' '${q}'`,
    '',
    '  # signed (SHA1 of App Secret + nonce + timestamp)',
    `  N=$(shuf -i 10000000-99999999 -n 1); T=$(date +%s%3N); curl -s -H 'app_id: ${d.app.app_id}' -H 'X-API-KEY: ${d.app.api_key}' -H "nonce: $N" -H "timestamp: $T" -H "signature: $(printf '%s' "${d.app.app_secret}$N$T" | sha1sum | cut -d' ' -f1)" '${q}'`,
    '',
    `  App: app_id=${d.app.app_id}  App Key=${d.app.api_key}  App Secret=${d.app.app_secret}`,
    `  Bot: user_id=${d.bot.bot_user_id}  App Key=${d.bot.api_key}`,
    `  API reference: ${base}/docs`,
    ...(signInPath === undefined
      ? []
      : [
          `  Developer site, signed in as the demo developer (${d.developerId}): ${base}${signInPath}`,
          '',
          '  Then, in the same browser (the link signs you in for the playground too):',
          `  Talk to the demo bot (it echoes, offers Yes/No buttons): ${base}/playground/?bot=${d.bot.bot_user_id}`,
          `  Create a bot by chatting with the assistant (try /newbot): ${base}/playground/?bot=${ASSISTANT_USER_ID}`,
          `  Sign in with the Demo App (OAuth with PKCE, as a client would): ${base}/demo/login`,
          `  Operator console (sign in with the ADMIN_TOKEN): ${base}/console/`,
        ]),
    '',
  ].join('\n');
}
