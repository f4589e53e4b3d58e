import { Type } from 'typebox';
import { bumpUserGroup } from '../../db/counters.js';
import { toCents } from '../../lib/money.js';
import { Amount, Id } from '../../lib/schemas.js';
import { defineEvent } from '../events/index.js';
import { bumpGroup, findGroup, lockGroupIfRoom } from '../groups/index.js';
import { bumpUserStats, lockUserStatsIfRoom, usersExist } from '../users/index.js';
import * as repo from './repo.js';

const DrawRef = Type.Object({ draw_id: Id, user_id: Id });

/** Amounts must be > 0 with at most two decimals. */
const positiveCents = (amount: string | number): number | undefined => {
  const cents = toCents(amount);
  return cents !== undefined && cents > 0 ? cents : undefined;
};

export const activityEvents = [
  defineEvent('vote.cast', Type.Object({ vote_id: Id, group_id: Id, user_id: Id }), async ({ tx, now }, d) => {
    if ((await findGroup(tx, d.group_id)) === undefined) return 'unknown_group';
    if (!(await usersExist(tx, [d.user_id]))) return 'unknown_user';
    const groupOfVote = await repo.voteGroup(tx, d.vote_id);
    if (groupOfVote === undefined) await repo.createVote(tx, d.vote_id, d.group_id);
    else if (groupOfVote !== d.group_id) return 'vote_group_mismatch';
    if (await repo.castVote(tx, d.vote_id, d.user_id, now)) {
      await bumpUserGroup(tx, d.user_id, d.group_id, { votes: 1 });
    }
    return undefined;
  }),
  defineEvent(
    'lucky_draw.created',
    Type.Object({ draw_id: Id, group_id: Id, initiator_id: Id }),
    async ({ tx, now }, d) => {
      if ((await findGroup(tx, d.group_id)) === undefined) return 'unknown_group';
      if (!(await usersExist(tx, [d.initiator_id]))) return 'unknown_user';
      const existing = await repo.findDraw(tx, d.draw_id);
      if (existing !== undefined) {
        return existing.group_id === d.group_id && existing.initiator_id === d.initiator_id ? undefined : 'draw_exists';
      }
      await repo.createDraw(tx, d, now);
      await bumpUserGroup(tx, d.initiator_id, d.group_id, { draws_initiated: 1 });
      return undefined;
    },
  ),
  ...(['lucky_draw.entered', 'lucky_draw.won'] as const).map((type) =>
    defineEvent(type, DrawRef, async ({ tx, now }, d) => {
      const draw = await repo.findDraw(tx, d.draw_id);
      if (draw === undefined) return 'unknown_draw';
      if (!(await usersExist(tx, [d.user_id]))) return 'unknown_user';
      const entry = await repo.findEntry(tx, d.draw_id, d.user_id);
      // A win implies an entry: a win reported first also counts the entry once.
      if (entry === undefined) {
        await repo.addEntry(tx, d.draw_id, d.user_id, now);
        await bumpUserGroup(tx, d.user_id, draw.group_id, { draws_entered: 1 });
      }
      if (type === 'lucky_draw.won' && entry?.won !== 1) {
        await repo.markWon(tx, d.draw_id, d.user_id);
        await bumpUserGroup(tx, d.user_id, draw.group_id, { draws_won: 1 });
      }
      return undefined;
    }),
  ),
  defineEvent(
    'lucky_box.sent',
    Type.Object({
      box_id: Id,
      sender_id: Id,
      amount: Amount,
      count: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
      group_id: Type.Optional(Id),
    }),
    async ({ tx, now }, d) => {
      const cents = positiveCents(d.amount);
      if (cents === undefined) return 'invalid_amount';
      if (!(await usersExist(tx, [d.sender_id]))) return 'unknown_user';
      if (d.group_id !== undefined && (await findGroup(tx, d.group_id)) === undefined) return 'unknown_group';
      if ((await repo.findBox(tx, d.box_id)) !== undefined) return 'box_exists';
      // Checked (and locked) before anything is written, so a refusal changes nothing.
      const sent = { boxes_sent: 1, boxes_sent_cents: cents };
      if (!(await lockUserStatsIfRoom(tx, d.sender_id, sent))) return 'amount_too_large';
      if (d.group_id !== undefined && !(await lockGroupIfRoom(tx, d.group_id, sent))) return 'amount_too_large';
      await repo.createBox(
        tx,
        { box_id: d.box_id, sender_id: d.sender_id, group_id: d.group_id ?? null, amount_cents: cents, count: d.count },
        now,
      );
      await bumpUserStats(tx, d.sender_id, sent);
      if (d.group_id !== undefined) await bumpGroup(tx, d.group_id, sent);
      return undefined;
    },
  ),
  defineEvent('lucky_box.claimed', Type.Object({ box_id: Id, user_id: Id, amount: Amount }), async ({ tx, now }, d) => {
    const cents = positiveCents(d.amount);
    if (cents === undefined) return 'invalid_amount';
    // Locked first: the claimed count and amount read below must still hold when the claim is added.
    await repo.lockBox(tx, d.box_id);
    const box = await repo.findBox(tx, d.box_id);
    if (box === undefined) return 'unknown_box';
    if (!(await usersExist(tx, [d.user_id]))) return 'unknown_user';
    if (box.claimed_count >= box.count) return 'box_empty';
    if (box.claimed_cents + cents > box.amount_cents) return 'amount_exceeds_box';
    // Before the claim is written, so a refusal changes nothing.
    const received = { boxes_received: 1, boxes_received_cents: cents };
    if (!(await lockUserStatsIfRoom(tx, d.user_id, received))) return 'amount_too_large';
    if (!(await repo.addClaim(tx, d.box_id, d.user_id, cents, now))) return 'already_claimed';
    await repo.bumpBox(tx, d.box_id, { claimed_count: 1, claimed_cents: cents });
    await bumpUserStats(tx, d.user_id, received);
    if (box.group_id !== null) await bumpUserGroup(tx, d.user_id, box.group_id, { boxes_received: 1 });
    return undefined;
  }),
];
