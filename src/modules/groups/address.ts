// How the read endpoints name a group: its share URL, under either of its two spellings
// (seed-api.md Conventions: `group_invite_url` or `url`), or (decisions.md section 7) its id `gid`.
import { Type } from 'typebox';
import { AppError, Errors } from '../../errors.js';
import { exactlyOne } from '../users/index.js';
import { inviteUrlId } from './invite-url.js';

export type GroupAddress = { gid: string } | { url: string };

// Empty text is taken (and read as not given): SDKs send an unset field so, beside the one set.
const shareUrl = (description: string) => Type.Optional(Type.String({ maxLength: 1024, description }));
export const GidParam = Type.Optional(
  Type.String({ maxLength: 128, description: 'the group id, in place of the share URL' }),
);
/**
 * The query fields of a group named by its share URL (either spelling; optional because `gid` may
 * stand in) or its id; `primary` is the spelling the endpoint documents.
 */
export const groupByShareUrl = (primary: ShareUrlField) => {
  const said = (field: ShareUrlField, other: ShareUrlField) =>
    shareUrl(
      field === primary
        ? `the group share URL (or ${other}); required unless gid is given`
        : `the group share URL (or ${other})`,
    );
  return { group_invite_url: said('group_invite_url', 'url'), url: said('url', 'group_invite_url'), gid: GidParam };
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
  const [mine, theirs, gid] = [q[primary] || undefined, q[other] || undefined, q.gid || undefined];
  // Two links to one group may differ in what clients append (`&code=<inviter>`): both name it by id.
  const named = (url: string) => inviteUrlId(url) ?? url.trim();
  if (mine !== undefined && theirs !== undefined && named(mine) !== named(theirs)) {
    throw new AppError(Errors.paramError, `querystring.${other}: differs from ${primary}`);
  }
  const field = mine === undefined && theirs !== undefined ? other : primary;
  const given = exactlyOne([field, mine ?? theirs], ['gid', gid]);
  return given.field === 'gid' ? { gid: given.value } : { url: given.value };
}
