import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { apiErrors } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { apiKeyAuth, credentialOf } from '../auth/index.js';
import { contentOf, type Accepted } from './content.js';
import { IdempotencyHeaders, idempotencyKeyOf } from './idempotency-key.js';
import { GroupSendBody, PrivateSendBody, SendAccepted } from './schema.js';
import type { SendInput } from './service.js';

const tags = ['Messaging'];
const accepted = { code: 200 as const, data: null, message: 'success' as const, success: false as const };

// The signed paths take both generations' message types; the older paths only the key-only ones.
const GROUP_TYPES: Record<'signed' | 'keyOnly', Accepted> = {
  signed: { named: ['text', 'richtext', 'RC:TxtMsg', 'RCD:Graphic'] },
  keyOnly: { named: ['RC:TxtMsg', 'RCD:Graphic'] },
};
// Echo bots answer a user privately with RCD:Graphic too (decisions.md section 7).
const PRIVATE_TYPES: Record<'signed' | 'keyOnly', Accepted> = {
  signed: { named: ['text', 'richtext', 'RCD:Command'], alsoAccepted: ['RCD:Graphic'] },
  keyOnly: { named: ['RCD:Command'], alsoAccepted: ['RCD:Graphic'] },
};

export function messagingRoutes(app: App, s: Services): void {
  const options = <B extends TSchema>(signed: boolean, summary: string, body: B) => ({
    onRequest: apiKeyAuth(s.auth, { signed }),
    schema: {
      tags,
      summary: signed ? summary : `${summary} (older key-only path)`,
      body,
      headers: IdempotencyHeaders,
      response: { 200: SendAccepted, ...apiErrors, 403: apiErrors[400] },
    },
  });
  const send = async (request: FastifyRequest, reply: FastifyReply, input: Omit<SendInput, 'idempotencyKey'>) => {
    const sent = await s.messaging.send(credentialOf(request), {
      ...input,
      idempotencyKey: idempotencyKeyOf(request),
    });
    if (sent.replayed) void reply.header('idempotent-replayed', 'true');
    return accepted;
  };

  for (const [path, signed] of [
    ['/openapi/messages/group/send', true],
    ['/openapi/send_robot_group_message', false],
  ] as const) {
    const allowed = signed ? GROUP_TYPES.signed : GROUP_TYPES.keyOnly;
    app.post(path, options(signed, 'Send a message to a group', GroupSendBody), async (request, reply) => {
      const b = request.body;
      return send(request, reply, {
        ...contentOf(b, allowed, 'group'),
        chat: { type: 'group', id: b.group_id },
        mentionUserIds: b.to_user_id === undefined || b.to_user_id === null ? [] : [b.to_user_id],
      });
    });
  }

  for (const [path, signed] of [
    ['/openapi/messages/private/send', true],
    ['/openapi/send_robot_message', false],
  ] as const) {
    const allowed = signed ? PRIVATE_TYPES.signed : PRIVATE_TYPES.keyOnly;
    app.post(path, options(signed, 'Send a message to one user', PrivateSendBody), async (request, reply) => {
      const b = request.body;
      return send(request, reply, {
        ...contentOf(b, allowed, 'private'),
        chat: { type: 'private', id: b.to_user_id },
        mentionUserIds: [],
      });
    });
  }
}
