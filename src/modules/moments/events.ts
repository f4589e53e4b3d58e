import { Type } from 'typebox';
import { Id } from '../../lib/schemas.js';
import { defineBatchedEvent } from '../events/index.js';
import { createMomentsTogether, likeTogether } from './batch.js';
import { bumpUserStats, usersExist } from '../users/index.js';
import * as repo from './repo.js';

const LikeRef = Type.Object({ moment_id: Id, user_id: Id });

export const momentEvents = [
  defineBatchedEvent(
    'moment.created',
    Type.Object({ moment_id: Id, author_id: Id }),
    async ({ tx, now }, d) => {
      if (!(await usersExist(tx, [d.author_id]))) return 'unknown_user';
      const existing = await repo.findMoment(tx, d.moment_id);
      if (existing === undefined) await repo.createMoment(tx, d.moment_id, d.author_id, now);
      else if (existing.author_id !== d.author_id) return 'moment_exists';
      return undefined;
    },
    createMomentsTogether,
  ),
  ...(['moment.liked', 'moment.unliked'] as const).map((type) =>
    defineBatchedEvent(
      type,
      LikeRef,
      async ({ tx, now }, d) => {
        const moment = await repo.findMoment(tx, d.moment_id);
        if (moment === undefined) return 'unknown_moment';
        if (!(await usersExist(tx, [d.user_id]))) return 'unknown_user';
        const liked = type === 'moment.liked';
        const changed = liked
          ? await repo.addLike(tx, d.moment_id, d.user_id, now)
          : await repo.removeLike(tx, d.moment_id, d.user_id);
        if (!changed) return undefined;
        const delta = liked ? 1 : -1;
        await repo.bumpMoment(tx, d.moment_id, { like_count: delta });
        await bumpUserStats(tx, moment.author_id, { likes_received: delta });
        await bumpUserStats(tx, d.user_id, { likes_given: delta });
        return undefined;
      },
      (ctx, events) => likeTogether(ctx, events, type === 'moment.liked'),
    ),
  ),
];
