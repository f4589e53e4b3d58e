// How the read endpoints name a group: its share URL, or (decisions.md section 7) its id `gid`.
import { Type } from 'typebox';
import { exactlyOne } from '../users/index.js';

export type GroupAddress = { gid: string } | { url: string };

/** The share URL query field; optional in the schema because `gid` may stand in for it. */
export const ShareUrlParam = Type.Optional(
  Type.String({ minLength: 1, maxLength: 1024, description: 'the group share URL; required unless gid is given' }),
);
export const GidParam = Type.Optional(
  Type.String({ minLength: 1, maxLength: 128, description: 'the group id, in place of the share URL' }),
);
/** The query fields of a group named by its share URL (`group_invite_url`) or its id. */
export const GroupByShareUrl = { group_invite_url: ShareUrlParam, gid: GidParam };

/** The group a query names; neither or both fields is a parameter error naming the share URL field. */
export function groupAddress(urlField: string, url: string | undefined, gid: string | undefined): GroupAddress {
  const given = exactlyOne([urlField, url], ['gid', gid]);
  return given.field === 'gid' ? { gid: given.value } : { url: given.value };
}
