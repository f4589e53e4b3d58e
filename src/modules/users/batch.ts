// A run of user.upserted events applied together: the users and wallets the run names are read
// once, the events are played in order against that state in memory (refusals and all), and what
// changed is written in a few set-based statements.
import { userKey } from '../../lib/invalidation.js';
import type { BatchContext, Outcome } from '../events/index.js';
import { findUsers, replaceWallets, upsertUsers, walletsAtOrOwnedBy, type WalletRow } from './batch-repo.js';
import type { UserFields } from './repo.js';

export interface UserUpsert {
  user_id: string;
  name: string;
  wallet_address: string;
  avatar?: string | undefined;
  level?: number | undefined;
  level_icon?: string | undefined;
  chain_id?: number | undefined;
}

/** The row an upsert leaves: given fields replace, missing optional ones keep what the user had. */
export const upsertedFields = (d: UserUpsert, existing: UserFields | undefined): UserFields => ({
  user_id: d.user_id,
  name: d.name,
  wallet_address: d.wallet_address,
  avatar: d.avatar ?? existing?.avatar ?? '',
  level: d.level ?? existing?.level ?? 0,
  level_icon: d.level_icon ?? existing?.level_icon ?? '',
  is_bot: existing?.is_bot ?? 0,
});

const walletKey = (chainId: number, norm: string) => `${chainId}:${norm}`;
const sameWallet = (a: WalletRow | undefined, b: WalletRow | undefined) =>
  a !== undefined && b !== undefined && a.user_id === b.user_id && a.address === b.address;

export async function upsertUsersTogether(ctx: BatchContext, events: readonly UserUpsert[]): Promise<Outcome[]> {
  const keyOf = (d: UserUpsert) => [d.chain_id ?? 1, d.wallet_address.toLowerCase()] as const;
  const userIds = new Set(events.map((d) => d.user_id));
  // Locked on PostgreSQL (findUsers' forUpdate) before anything else is read: a concurrent batch
  // upserting one of these users has committed, or waits for this one to commit, so the fields
  // merged below, and the wallets read next, are current when written back.
  const users = new Map((await findUsers(ctx, userIds, true)).map((u) => [u.user_id, u]));
  const found = new Set(users.keys());
  const loaded = await walletsAtOrOwnedBy(ctx, events.map(keyOf), userIds);
  const initial = new Map(loaded.map((w) => [walletKey(w.chain_id, w.address_norm), w]));
  const wallets = new Map(initial);
  /** user id and chain → key of the user's wallet on that chain. */
  const held = new Map(loaded.map((w) => [`${w.user_id}\u0000${w.chain_id}`, walletKey(w.chain_id, w.address_norm)]));
  const written = new Map<string, UserFields>();

  const outcomes = events.map((d): Outcome => {
    const [chainId, norm] = keyOf(d);
    const key = walletKey(chainId, norm);
    const owner = wallets.get(key)?.user_id;
    if (owner !== undefined && owner !== d.user_id) return 'wallet_taken';
    const fields = upsertedFields(d, users.get(d.user_id));
    users.set(d.user_id, fields);
    written.set(d.user_id, fields);
    if (owner === undefined) {
      const mine = `${d.user_id}\u0000${chainId}`;
      const previous = held.get(mine);
      if (previous !== undefined) wallets.delete(previous);
      wallets.set(key, { chain_id: chainId, address_norm: norm, address: d.wallet_address, user_id: d.user_id });
      held.set(mine, key);
    }
    ctx.touch(userKey(d.user_id));
    return undefined;
  });

  const created = new Set([...written.keys()].filter((id) => !found.has(id)));
  await upsertUsers(ctx, [...written.values()], created);
  const removed = [...initial].filter(([k, w]) => !sameWallet(w, wallets.get(k))).map(([, w]) => w);
  const added = [...wallets].filter(([k, w]) => !sameWallet(w, initial.get(k))).map(([, w]) => w);
  await replaceWallets(ctx, removed, added);
  return outcomes;
}
