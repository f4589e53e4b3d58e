// getMe, logOut, close.
import { Type } from 'typebox';
import { permissionsOf } from '../../bots/index.js';
import { method } from '../method.js';
import { Directory } from '../presenter.js';

const Nothing = Type.Object({});

export const botMethods = [
  method({
    name: 'getMe',
    summary: 'The bot as a Telegram User, with what it may do',
    params: Nothing,
    result: Type.Object({
      id: Type.Integer(),
      is_bot: Type.Literal(true),
      first_name: Type.String(),
      username: Type.String(),
      can_join_groups: Type.Boolean(),
      can_read_all_group_messages: Type.Boolean(),
      supports_inline_queries: Type.Boolean(),
    }),
    run: async (call) => {
      const me = (await Directory.load(call.s.db.k, { users: [call.botId] })).user(call.botId);
      const permissions = await permissionsOf(call.s.db.k, call.botId);
      return {
        id: me.id,
        is_bot: true as const,
        first_name: me.first_name,
        username: me.username ?? '',
        can_join_groups: true,
        can_read_all_group_messages: permissions.includes('listen_group_messages'),
        supports_inline_queries: false,
      };
    },
  }),
  method({
    name: 'logOut',
    summary: 'Accepted (nothing to log out of)',
    params: Nothing,
    result: Type.Literal(true),
    run: () => Promise.resolve(true as const),
  }),
  method({
    name: 'close',
    summary: 'Accepted (nothing to close)',
    params: Nothing,
    result: Type.Literal(true),
    run: () => Promise.resolve(true as const),
  }),
];
