import { Type } from 'typebox';
import { ChainId, Id, INTEGER_COLUMN_MAX, OptionalText } from '../../lib/schemas.js';
import { userKey } from '../../lib/invalidation.js';
import { defineBatchedEvent } from '../events/index.js';
import { upsertedFields, upsertUsersTogether } from './batch.js';
import { followTogether } from './follows-batch.js';
import * as repo from './repo.js';

const Wallet = Type.String({ minLength: 1, maxLength: 128 });

export const userEvents = [
  defineBatchedEvent(
    'user.upserted',
    Type.Object({
      user_id: Id,
      name: Type.String({ maxLength: 256 }),
      wallet_address: Wallet,
      avatar: OptionalText(),
      level: Type.Optional(Type.Integer({ minimum: 0, maximum: INTEGER_COLUMN_MAX })),
      level_icon: OptionalText(),
      chain_id: Type.Optional(ChainId),
    }),
    async ({ tx, now, touch }, d) => {
      // The user first, locked: the wallets read next, and the fields merged, are then those of
      // the last upsert of this user to commit (see findUserLocked).
      const existing = await repo.findUserLocked(tx, d.user_id);
      const chainId = d.chain_id ?? 1;
      const owner = await repo.walletOwner(tx, chainId, d.wallet_address);
      if (owner !== undefined && owner !== d.user_id) return 'wallet_taken';
      await repo.upsertUser(tx, upsertedFields(d, existing), now, existing === undefined);
      if (owner === undefined) await repo.setWallet(tx, d.user_id, chainId, d.wallet_address);
      touch(userKey(d.user_id));
      return undefined;
    },
    upsertUsersTogether,
  ),
  ...(['follow.created', 'follow.deleted'] as const).map((type) =>
    defineBatchedEvent(
      type,
      Type.Object({ follower_id: Id, followed_id: Id }),
      async ({ tx, now }, d) => {
        if (!(await repo.usersExist(tx, [d.follower_id, d.followed_id]))) return 'unknown_user';
        if (d.follower_id === d.followed_id) return 'self_follow';
        const changed =
          type === 'follow.created'
            ? await repo.addFollow(tx, d.follower_id, d.followed_id, now)
            : await repo.removeFollow(tx, d.follower_id, d.followed_id);
        if (changed) {
          const delta = type === 'follow.created' ? 1 : -1;
          await repo.bumpUserStats(tx, d.follower_id, { following: delta });
          await repo.bumpUserStats(tx, d.followed_id, { followers: delta });
        }
        return undefined;
      },
      (ctx, events) => followTogether(ctx, events, type === 'follow.created'),
    ),
  ),
];
