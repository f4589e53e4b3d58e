import { Type } from 'typebox';
import { Id } from '../../lib/schemas.js';
import { userKey } from '../../lib/invalidation.js';
import { defineEvent } from '../events/index.js';
import { findUser, raiseLevel } from '../users/index.js';

/** Users of this level or higher may raise a bot's level ("level energy"). */
export const ENERGIZER_MIN_LEVEL = 5;

export const botEvents = [
  defineEvent('bot.energized', Type.Object({ bot_user_id: Id, by_user_id: Id }), async ({ tx, now, touch }, d) => {
    const [bot, by] = [await findUser(tx, d.bot_user_id), await findUser(tx, d.by_user_id)];
    if (bot === undefined || by === undefined) return 'unknown_user';
    if (bot.is_bot !== 1) return 'not_a_bot';
    if (by.level < ENERGIZER_MIN_LEVEL) return 'level_too_low';
    if (!(await raiseLevel(tx, d.bot_user_id, 1, now))) return 'level_at_maximum';
    touch(userKey(d.bot_user_id));
    return undefined;
  }),
];
