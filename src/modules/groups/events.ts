import { Type } from 'typebox';
import { formatDateTime } from '../../lib/clock.js';
import { DateTimeText, Id, INTEGER_COLUMN_MAX, OptionalText } from '../../lib/schemas.js';
import { mayInviteBot } from '../bots/index.js';
import { memberKey } from '../../lib/invalidation.js';
import { defineEvent } from '../events/index.js';
import { usersExist } from '../users/index.js';
import * as repo from './repo.js';

const GroupRef = { group_id: Id, user_id: Id };
/** The invite URL is a unique key, and PostgreSQL refuses an index row over 2704 bytes. */
const INVITE_URL_MAX_BYTES = 2048;
const GroupUpserted = Type.Object({
  group_id: Id,
  name: Type.String({ maxLength: 256 }),
  invite_url: Type.String({ minLength: 1, maxLength: 1024 }),
  pic: OptionalText(),
  is_charge: Type.Optional(Type.Boolean()),
  subchannel_number: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  maximum: Type.Optional(Type.Integer({ minimum: 0, maximum: INTEGER_COLUMN_MAX })),
  created_at: Type.Optional(DateTimeText),
  owner_id: Type.Optional(Id),
});

export const groupEvents = [
  defineEvent('group.upserted', GroupUpserted, async ({ tx, now }, d) => {
    if (Buffer.byteLength(d.invite_url) > INVITE_URL_MAX_BYTES) return 'invite_url_too_long';
    // The group first, locked: the fields merged below are then those of the last upsert of this
    // group to commit (see findGroupLocked).
    const existing = await repo.findGroupLocked(tx, d.group_id);
    const urlOwner = await repo.groupIdByInviteUrl(tx, d.invite_url);
    if (urlOwner !== undefined && urlOwner !== d.group_id) return 'invite_url_taken';
    if (d.owner_id !== undefined && !(await usersExist(tx, [d.owner_id]))) return 'unknown_user';
    await repo.upsertGroup(
      tx,
      {
        group_id: d.group_id,
        name: d.name,
        invite_url: d.invite_url,
        pic: d.pic ?? existing?.pic ?? '',
        is_charge: d.is_charge === undefined ? (existing?.is_charge ?? 0) : d.is_charge ? 1 : 0,
        subchannel_number: d.subchannel_number ?? existing?.subchannel_number ?? 0,
        maximum: d.maximum ?? existing?.maximum ?? 0,
        created_at: d.created_at ?? existing?.created_at ?? formatDateTime(now),
        owner_id: d.owner_id ?? existing?.owner_id ?? null,
      },
      existing === undefined,
    );
    return undefined;
  }),
  defineEvent(
    'group.member.joined',
    Type.Object({
      ...GroupRef,
      role: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('moderator'), Type.Literal('admin')])),
      invited_by: Type.Optional(Id),
    }),
    async ({ tx, now, touch }, d) => {
      // Locked first: the member count read below must still hold when the member is added.
      await repo.lockGroup(tx, d.group_id);
      const group = await repo.findGroup(tx, d.group_id);
      if (group === undefined) return 'unknown_group';
      const users = d.invited_by === undefined ? [d.user_id] : [d.user_id, d.invited_by];
      if (!(await usersExist(tx, users))) return 'unknown_user';
      const role = d.role ?? 'member';
      const current = await repo.roleIn(tx, d.group_id, d.user_id);
      if (current !== undefined) {
        if (current !== role) {
          await repo.setRole(tx, d.group_id, d.user_id, role);
          touch(memberKey(d.group_id, d.user_id));
        }
        return undefined;
      }
      if (!(await mayInviteBot(tx, d.user_id, d.invited_by))) return 'invite_not_allowed';
      if (group.maximum > 0 && group.member_count >= group.maximum) return 'group_full';
      await repo.addMember(
        tx,
        { group_id: d.group_id, user_id: d.user_id, role, invited_by: d.invited_by ?? null },
        now,
      );
      await repo.bumpGroup(tx, d.group_id, { member_count: 1 });
      touch(memberKey(d.group_id, d.user_id));
      return undefined;
    },
  ),
  defineEvent('group.member.left', Type.Object(GroupRef), async ({ tx, touch }, d) => {
    if ((await repo.findGroup(tx, d.group_id)) === undefined) return 'unknown_group';
    if (!(await usersExist(tx, [d.user_id]))) return 'unknown_user';
    if (await repo.removeMember(tx, d.group_id, d.user_id)) {
      await repo.bumpGroup(tx, d.group_id, { member_count: -1 });
      touch(memberKey(d.group_id, d.user_id));
    }
    return undefined;
  }),
];
