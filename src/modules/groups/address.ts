// How the read endpoints name a group: its share URL, under either of its two spellings
// (seed-api.md Conventions: `group_invite_url` or `url`), or (decisions.md section 7) its id `gid`.
import { Type } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import { exactlyOne } from '../users/index.js';

export type GroupAddress = { gid: string } | { url: string };

const shareUrl = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description }));
export const GidParam = Type.Optional(
  Type.String({ minLength: 1, maxLength: 128, description: 'the group id, in place of the share URL' }),
);
/** The query fields of a group named by its share URL (either spelling; optional because `gid` may stand in) or its id. */
export const GroupByShareUrl = {
  group_invite_url: shareUrl('the group share URL (or url); required unless gid is given'),
  url: shareUrl('the group share URL (or group_invite_url)'),
  gid: GidParam,
};

type ShareUrlField = 'group_invite_url' | 'url';
type GroupQuery = { readonly [F in ShareUrlField | 'gid']?: string | undefined };

/**
 * The group a query names. `primary` is the spelling the endpoint documents, named when nothing is
 * given; the other spelling may stand in, or come beside it with the same value. Two different
 * URLs, neither a URL nor gid, or a URL and gid, are parameter errors.
 */
export function groupAddress(primary: ShareUrlField, q: GroupQuery): GroupAddress {
  const other: ShareUrlField = primary === 'url' ? 'group_invite_url' : 'url';
  const [mine, theirs] = [q[primary], q[other]];
  if (mine !== undefined && theirs !== undefined && mine !== theirs) {
    throw new AppError(Errors.paramError, `querystring.${other}: differs from ${primary}`);
  }
  const field = mine === undefined && theirs !== undefined ? other : primary;
  const given = exactlyOne([field, mine ?? theirs], ['gid', q.gid]);
  return given.field === 'gid' ? { gid: given.value } : { url: given.value };
}
