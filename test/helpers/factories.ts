// Builds test data through the operator surface, the way the application does.
import { createHash, randomBytes } from 'node:crypto';
import type { App } from '../../src/http/types.js';
import { adminHeaders } from './app.js';

let seq = 0;
export const uid = (prefix = 'x'): string =>
  `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}${randomBytes(2).toString('hex')}`;
export const wallet = (): string => `0x${randomBytes(20).toString('hex')}`;

export interface Ev {
  id?: string;
  type: string;
  data: Record<string, unknown>;
}

export async function postEvents(app: App, events: Ev[]) {
  const res = await app.inject({
    method: 'POST',
    url: '/internal/v1/events',
    headers: adminHeaders,
    payload: { events: events.map((e) => ({ id: e.id ?? uid('evt'), type: e.type, data: e.data })) },
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

/** Posts events and fails unless the batch was accepted with nothing refused. */
export async function applyEvents(app: App, events: Ev[]): Promise<void> {
  const r = await postEvents(app, events);
  const refused = r.body.refused;
  if (r.status !== 200 || !Array.isArray(refused) || refused.length > 0) {
    throw new Error(`events not applied: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

export interface TestUser {
  user_id: string;
  name: string;
  wallet_address: string;
  avatar: string;
  level: number;
  level_icon: string;
}

export function userData(overrides: Partial<TestUser> = {}): TestUser {
  const id = uid('u');
  return {
    user_id: id,
    name: `name-${id}`,
    wallet_address: wallet(),
    avatar: `https://img.example/${id}.png`,
    level: 1,
    level_icon: 'https://img.example/lv1.png',
    ...overrides,
  };
}

/** GET /openapi/user/info's answer for a user. */
export const userInfoAnswer = (u: Pick<TestUser, 'user_id' | 'name' | 'wallet_address' | 'avatar'>) => ({
  code: 1,
  data: { name: u.name, wallet_address: u.wallet_address, avatar: u.avatar, uid: u.user_id },
  message: 'success',
  success: true,
});

export async function createUsers(app: App, n: number, overrides: Partial<TestUser> = {}): Promise<TestUser[]> {
  const users = Array.from({ length: n }, () => userData(overrides));
  await applyEvents(
    app,
    users.map((u) => ({ type: 'user.upserted', data: { ...u } })),
  );
  return users;
}

export interface Creds {
  app_id: string;
  api_key: string;
  app_secret: string;
}

/** A signed-in session of `userId` for the authorize page: the cookie the operator's answer gives. */
export async function createSessionCookie(app: App, userId: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/internal/v1/sessions',
    headers: adminHeaders,
    payload: { user_id: userId },
  });
  if (res.statusCode !== 200) throw new Error(`session not created: ${res.statusCode} ${res.body}`);
  return res.json<{ cookie: string }>().cookie;
}

export async function createApp(
  app: App,
  ownerUserId: string,
  redirectUris = ['https://client.example/cb'],
): Promise<Creds> {
  const res = await app.inject({
    method: 'POST',
    url: '/internal/v1/apps',
    headers: adminHeaders,
    payload: { owner_user_id: ownerUserId, name: 'test app', redirect_uris: redirectUris },
  });
  if (res.statusCode !== 201) throw new Error(`app not created: ${res.statusCode} ${res.body}`);
  return res.json<Creds>();
}

export interface BotCreds extends Creds {
  bot_user_id: string;
  evm_address: string;
  /** `<bot id>:<App Key>`, the token of the Telegram surface. */
  telegram_token: string;
}

/** The fields of a bot's creation answer (operator API and CLI), sorted. */
export const BOT_CREDS_FIELDS = ['api_key', 'app_id', 'app_secret', 'bot_user_id', 'evm_address', 'telegram_token'];

export async function createBot(app: App, ownerUserId: string, name = 'test bot'): Promise<BotCreds> {
  const res = await app.inject({
    method: 'POST',
    url: '/internal/v1/bots',
    headers: adminHeaders,
    payload: { owner_user_id: ownerUserId, name },
  });
  if (res.statusCode !== 201) throw new Error(`bot not created: ${res.statusCode} ${res.body}`);
  return res.json<BotCreds>();
}

/** A bot, its owner and one other user, all members of one group the owner administers. */
export interface GroupChat {
  owner: TestUser;
  user: TestUser;
  bot: BotCreds;
  groupId: string;
}

/** Builds a GroupChat; the bot joins with `botRole` when given (a moderator may see every message). */
export async function createGroupChat(app: App, botRole?: string): Promise<GroupChat> {
  const [owner, user] = (await createUsers(app, 2)) as [TestUser, TestUser];
  const bot = await createBot(app, owner.user_id);
  const groupId = `g${user.user_id}`;
  await applyEvents(app, [
    {
      type: 'group.upserted',
      data: { group_id: groupId, name: 'g', invite_url: `https://chat.example/${groupId}`, owner_id: owner.user_id },
    },
    { type: 'group.member.joined', data: { group_id: groupId, user_id: owner.user_id, role: 'admin' } },
    {
      type: 'group.member.joined',
      data: { group_id: groupId, user_id: bot.bot_user_id, ...(botRole === undefined ? {} : { role: botRole }) },
    },
    { type: 'group.member.joined', data: { group_id: groupId, user_id: user.user_id } },
  ]);
  return { owner, user, bot, groupId };
}

export interface Application {
  id: string;
  status: string;
}

/** A bot's application for a permission, filed through the operator API (pending until approved). */
export async function applyForPermission(app: App, botUserId: string, permission: string): Promise<Application> {
  const res = await app.inject({
    method: 'POST',
    url: '/internal/v1/permission-applications',
    headers: adminHeaders,
    payload: { bot_user_id: botUserId, permission },
  });
  if (res.statusCode !== 201) throw new Error(`no application: ${res.statusCode} ${res.body}`);
  return res.json<Application>();
}

/** The operator approves an application: its status after. */
export async function approveApplication(app: App, id: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: `/internal/v1/permission-applications/${id}/approve`,
    headers: adminHeaders,
  });
  if (res.statusCode !== 200) throw new Error(`not approved: ${res.statusCode} ${res.body}`);
  return res.json<Application>().status;
}

export const sha1 = (s: string): string => createHash('sha1').update(s).digest('hex');

/** Signed-generation headers, as a client computes them. */
export function signedHeaders(
  creds: Creds,
  opts: { nonce?: string; timestamp?: string; secret?: string; now?: number } = {},
): Record<string, string> {
  const nonce = opts.nonce ?? String(10_000_000 + Math.floor(Math.random() * 89_999_999));
  const timestamp = opts.timestamp ?? String(opts.now ?? Date.now());
  return {
    app_id: creds.app_id,
    'x-api-key': creds.api_key,
    nonce,
    timestamp,
    signature: sha1((opts.secret ?? creds.app_secret) + nonce + timestamp),
  };
}

/** Signs `userId` in as the application does (POST /internal/v1/sessions): the op_session cookie's value. */
export async function sessionToken(app: App, userId: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/internal/v1/sessions',
    headers: adminHeaders,
    payload: { user_id: userId },
  });
  if (res.statusCode !== 200) throw new Error(`no session: ${res.statusCode} ${res.body}`);
  const cookie = res.json<{ cookie: string }>().cookie;
  return cookie.slice(cookie.indexOf('=') + 1);
}
