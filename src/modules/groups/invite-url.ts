// Share links carry the group's id as an `id` query parameter, and clients append their own
// parameters (`&code=<inviter>`): such a link names its group by that id (decisions.md section 7).
import { faultOf } from '../../lib/nul.js';

/** The `id` query parameter of a share URL, also in a hash route (`https://h5.example/#/group?id=...`). */
export function inviteUrlId(url: string): string | undefined {
  const text = url.trim();
  if (!URL.canParse(text)) return undefined;
  const { searchParams, hash } = new URL(text);
  const hashQuery = hash.indexOf('?');
  const id =
    searchParams.get('id') ?? (hashQuery < 0 ? null : new URLSearchParams(hash.slice(hashQuery + 1)).get('id'));
  // An id the link's own encoding hides (`id=%00`) is no id: PostgreSQL text cannot hold U+0000,
  // so such a link is looked up as written, and is unknown on both stores.
  return id === null || id === '' || faultOf(id) !== undefined ? undefined : id;
}
