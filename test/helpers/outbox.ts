// The /openapi/ message send paths with the answers they share, and the operator's outbox feed
// (GET /internal/v1/messages) that the messaging tests check what was stored against.
import assert from 'node:assert/strict';
import type { App } from '../../src/http/types.js';
import type { OutboxMessageView } from '../../src/modules/outbox/service.js';
import { adminHeaders } from './app.js';
import { tag } from './richtext.js';

export const GROUP_SEND = '/openapi/messages/group/send';
export const OLD_GROUP_SEND = '/openapi/send_robot_group_message';
export const PRIVATE_SEND = '/openapi/messages/private/send';
export const OLD_PRIVATE_SEND = '/openapi/send_robot_message';

export const ACCEPTED = { code: 200, data: null, message: 'success', success: false };
export const UNKNOWN_GROUP = { error: 'Not Found', code: 404, message: 'unknown group' };
export const IMAGE_LEVEL = { error: 'Forbidden', code: 403, message: 'image sending requires level 2' };
export const paramError = (detail: string) => ({ error: 'Bad Request', code: 401, message: 'Param error', detail });

export const IMG = tag({ uitag: 'img', src: 'https://img.example/p.png', position: 'head' });

/** Reads the operator's outbox feed after a cursor, every page. */
export async function outboxSince(
  app: App,
  cursor: string,
): Promise<{ messages: OutboxMessageView[]; cursor: string }> {
  const messages: OutboxMessageView[] = [];
  let at = cursor;
  for (;;) {
    const res = await app.inject({
      method: 'GET',
      url: `/internal/v1/messages?after=${at}&limit=1000`,
      headers: adminHeaders,
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{ messages: OutboxMessageView[]; next_cursor: string }>();
    messages.push(...page.messages);
    at = page.next_cursor;
    // A page may be short of the limit with more to come (the feed's byte budget): only an empty one ends it.
    if (page.messages.length === 0) return { messages, cursor: at };
  }
}

/** Watches the outbox: `added()` gives the messages stored since the last call (or creation). */
export async function watchOutbox(app: App) {
  let cursor = (await outboxSince(app, '0')).cursor;
  return {
    async added(): Promise<OutboxMessageView[]> {
      const r = await outboxSince(app, cursor);
      cursor = r.cursor;
      return r.messages;
    },
  };
}
