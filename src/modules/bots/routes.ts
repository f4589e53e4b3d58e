import { Type } from 'typebox';
import { operatorErrors, strict } from '../../http/internal.js';
import type { App } from '../../http/types.js';
import { Id } from '../../lib/schemas.js';
import type { Services } from '../../services.js';
import { API_ACTOR } from '../admin/index.js';

const PermissionName = Type.Union([
  Type.Literal('listen_group_messages'),
  Type.Literal('subscription_account'),
  Type.Literal('publish_bot'),
]);
const Status = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]);
const Application = Type.Object({
  id: Type.String(),
  bot_user_id: Type.String(),
  permission: PermissionName,
  status: Status,
  note: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  decided_at: Type.Union([Type.String(), Type.Null()]),
});
const Decision = Type.Object({ note: Type.Optional(Type.String({ maxLength: 1000 })) }, strict);

export function permissionRoutes(app: App, s: Services): void {
  const path = '/internal/v1/permission-applications';
  app.post(
    path,
    {
      schema: {
        tags: ['Operator'],
        summary: "File a permission application on a developer's behalf",
        body: Type.Object({ bot_user_id: Id, permission: PermissionName }, strict),
        response: { 201: Application, ...operatorErrors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await s.bots.apply(request.body.bot_user_id, request.body.permission)),
  );

  app.get(
    path,
    {
      schema: {
        tags: ['Operator'],
        summary: 'List permission applications, optionally by status',
        querystring: Type.Object({ status: Type.Optional(Status), bot_user_id: Type.Optional(Id) }),
        response: { 200: Type.Object({ applications: Type.Array(Application) }), ...operatorErrors },
      },
    },
    async (request) => ({
      applications: await s.bots.list({ status: request.query.status, botUserId: request.query.bot_user_id }),
    }),
  );

  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.post(
      `${path}/:id/${action}`,
      {
        // The body is optional: an empty request means "no note".
        preValidation: (request, _reply, done) => {
          const given: unknown = request.body;
          if (given === undefined) request.body = {};
          done();
        },
        schema: {
          tags: ['Operator'],
          summary: `${action === 'approve' ? 'Approve (grants the permission)' : 'Reject'} a permission application`,
          params: Type.Object({ id: Id }),
          body: Decision,
          response: { 200: Application, ...operatorErrors },
        },
      },
      // Recorded in the audit trail with the console's decisions.
      async (request) => s.console.decide(API_ACTOR, request.params.id, decision, request.body.note ?? null),
    );
  }
}
