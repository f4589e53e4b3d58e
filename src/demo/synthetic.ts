// A synthetic community of any size, as operator events: users with wallets and levels, follows
// (a few popular users), groups with admins, moderators and members, moments and likes, votes,
// lucky draws, lucky boxes with claims, and points credited. Deterministic for a given seed and
// produced lazily in batches, so a million likes never sit in memory at once (`cli seed`, benches).
import { createHash } from 'node:crypto';
import { formatDateTime } from '../lib/clock.js';
import { formatCents, toCents } from '../lib/money.js';
import type { IncomingEvent } from '../modules/events/index.js';

/** The operator's limit on one batch of events. */
export const MAX_BATCH = 1000;

export interface SyntheticOptions {
  /** Number of users, at least 2. */
  users: number;
  /** Total `moment.liked` events (each a distinct user and moment); default 10 per user. */
  likes?: number;
  /** Number of moments; default 2 per user, more when the likes need them, at most MAX_MOMENTS. */
  moments?: number;
  /** PRNG seed (an integer); the same options give the same events. Default 1. */
  seed?: number;
  /** Prefix of every id (users, groups, events...); default `s<seed>n<users>-`, so other seeds or sizes do not collide. */
  prefix?: string;
}

/** How many of each thing the community holds, and how many events build it. */
export interface SyntheticPlan {
  seed: number;
  users: number;
  groups: number;
  memberships: number;
  moments: number;
  follows: number;
  likes: number;
  votes: number;
  voteCasts: number;
  draws: number;
  drawEntries: number;
  drawWins: number;
  boxes: number;
  boxClaims: number;
  credits: number;
  creditedCents: number;
  events: number;
}

// ---------------------------------------------------------------------------------------------
// A tiny seeded PRNG: mulberry32 streams, each keyed by (seed, stream, index) through a 32-bit mix,
// so any entity's randomness can be recomputed without keeping state.

function mix(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35) ^ Math.imul(c + 1, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** Integer in [0, n), heavily skewed to small values (log-uniform: P(k) ~ 1/(k+1)). */
  skewed(n: number): number {
    return Math.min(n - 1, Math.floor(Math.pow(n + 1, this.next())) - 1);
  }
  /** `true` with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

const Stream = {
  users: 1,
  follows: 2,
  groups: 3,
  moments: 4,
  likes: 5,
  votes: 6,
  draws: 7,
  boxes: 8,
  credits: 9,
  layout: 10,
} as const;

const gcd = (a: number, b: number): number => {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
};

/** A step coprime with n, so `(start + k * step) mod n` visits n distinct values for k < n. */
function coprimeStep(rng: Rng, n: number): number {
  if (n <= 2) return 1;
  let step = 1 + rng.int(n - 1);
  while (gcd(step, n) !== 1) step = step + 1 === n ? 1 : step + 1;
  return step;
}

/** A permutation of [0, n) in O(1) memory: the k-th distinct element, for k < n. */
interface Walk {
  start: number;
  step: number;
  n: number;
}
const walk = (rng: Rng, n: number): Walk => ({ start: rng.int(n), step: coprimeStep(rng, n), n });
const at = (w: Walk, k: number): number => (w.start + (k % w.n) * w.step) % w.n;

const FIRST = [
  'Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj',
  'Olivia', 'Peggy', 'Rupert', 'Sybil', 'Trent', 'Uma', 'Victor', 'Walter', 'Xin', 'Yara', 'Zhang', 'Amir',
  'Bea', 'Chen', 'Dara', 'Eitan', 'Fatima', 'Goro', 'Hana', 'Ines', 'Jun', 'Kofi', 'Lena', 'Mei',
]; // prettier-ignore
const LAST = [
  'Smith', 'Nakamura', 'Okafor', 'Ivanova', 'Garcia', 'Li', 'Kowalski', 'Haddad', 'Rossi', 'Novak', 'Tanaka',
  'Silva', 'Müller', 'Dubois', 'Kim', 'Nguyen', 'Singh', 'Andersen', 'Costa', 'Yilmaz',
]; // prettier-ignore
const TOPICS = [
  'Builders', 'Night Owls', 'DeFi Talk', 'Photography', 'Hiking Club', 'Gamers', 'NFT Art', 'Traders',
  'Music Lovers', 'Book Circle', 'Dev Corner', 'Foodies', 'Travel', 'Cat People', 'Runners', 'Memes',
]; // prettier-ignore

const BASE_URL = 'https://community.example';
const EPOCH = Date.UTC(2025, 0, 1);
const DAY = 86_400_000;

interface GroupLayout {
  size: number;
  moderators: number;
  members: Walk;
}

/** Moments a community may have: likesPerMoment takes 4 bytes each. */
export const MAX_MOMENTS = 50_000_000;

/**
 * Moments when none are asked for: 2 per user, more when the likes need them (each like is a
 * distinct moment and user other than its author, so a moment takes at most users - 1), and never
 * more than MAX_MOMENTS, so that every size of community has a default.
 */
export const defaultMoments = (users: number, likes: number): number =>
  Math.min(MAX_MOMENTS, Math.max(2 * users, Math.ceil((2 * likes) / (users - 1))));

export class SyntheticCommunity {
  readonly plan: SyntheticPlan;
  private readonly seed: number;
  private readonly prefix: string;
  private readonly n: number;
  private readonly groups: GroupLayout[];
  /** Likes per moment; the only per-entity array (4 bytes per moment). */
  private readonly likesPerMoment: Int32Array;

  constructor(options: SyntheticOptions) {
    const n = options.users;
    if (!Number.isSafeInteger(n) || n < 2) throw new RangeError('users must be a whole number of at least 2');
    const seed = options.seed ?? 1;
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError('seed must be a whole number >= 0');
    const wantedLikes = options.likes ?? 10 * n;
    if (!Number.isSafeInteger(wantedLikes) || wantedLikes < 0) throw new RangeError('likes must be a whole number');
    const moments = options.moments ?? defaultMoments(n, wantedLikes);
    if (!Number.isSafeInteger(moments) || moments < 1) throw new RangeError('moments must be a whole number >= 1');
    if (moments > MAX_MOMENTS) throw new RangeError(`moments must be at most ${MAX_MOMENTS}`);
    if (wantedLikes > moments * (n - 1)) {
      throw new RangeError(
        `${wantedLikes} likes do not fit ${moments} moments of ${n} users (at most ${moments * (n - 1)})`,
      );
    }
    this.n = n;
    this.seed = seed;
    this.prefix = options.prefix ?? `s${seed}n${n}-`;
    this.groups = this.layoutGroups();
    this.likesPerMoment = this.spreadLikes(moments, wantedLikes);
    this.plan = this.count(moments, wantedLikes);
  }

  private rng(stream: number, index: number): Rng {
    return new Rng(mix(this.seed, stream, index));
  }

  userId(i: number): string {
    return `${this.prefix}u${i}`;
  }
  /** A user's wallet on chain 1: 40 hex digits derived from the seed and the index. */
  wallet(i: number): string {
    return `0x${createHash('sha1').update(`${this.prefix}wallet:${i}`).digest('hex')}`;
  }
  groupId(g: number): string {
    return `${this.prefix}g${g}`;
  }
  inviteUrl(g: number): string {
    return `${BASE_URL}/g/${this.groupId(g)}`;
  }
  momentId(m: number): string {
    return `${this.prefix}m${m}`;
  }
  /** The k-th member of group g (k = 0 is its owner and admin, then its moderators). */
  member(g: number, k: number): number {
    const layout = this.groups[g];
    if (layout === undefined) throw new RangeError(`no group ${g}`);
    return at(layout.members, k);
  }
  groupSize(g: number): number {
    return this.groups[g]?.size ?? 0;
  }
  /** Author of moment m: active (low-index) users post more. */
  momentAuthor(m: number): number {
    return this.rng(Stream.moments, m).skewed(this.n);
  }

  /** Group sizes fall off like a power law: a few big groups, many small ones. */
  private layoutGroups(): GroupLayout[] {
    const n = this.n;
    const count = Math.max(2, Math.round(n / 40));
    const largest = Math.min(n, Math.max(10, Math.round(n / 4)), 5000);
    return Array.from({ length: count }, (_, g) => {
      const rng = this.rng(Stream.layout, g);
      const size = Math.max(Math.min(n, 3), Math.min(largest, Math.round(largest / Math.pow(g + 1, 0.8))));
      const members = walk(rng, n);
      // The owner tends to be a popular user.
      members.start = rng.skewed(n);
      return { size, moderators: Math.min(size - 1, 1 + Math.floor(size / 40)), members };
    });
  }

  /** Zipf-like likes per moment (weight 1/(m+1)^0.9), capped at n - 1, summing exactly to `total`. */
  private spreadLikes(moments: number, total: number): Int32Array {
    const cap = this.n - 1;
    const likes = new Int32Array(moments);
    const weights = new Float64Array(moments);
    for (let m = 0; m < moments; m++) weights[m] = 1 / Math.pow(m + 1, 0.9);
    const weight = (m: number) => weights[m] ?? 0;
    let left = total;
    while (left > 0) {
      let open = 0;
      for (let m = 0; m < moments; m++) if ((likes[m] ?? 0) < cap) open += weight(m);
      let given = 0;
      for (let m = 0; m < moments && given < left; m++) {
        const have = likes[m] ?? 0;
        if (have >= cap) continue;
        const add = Math.min(cap - have, left - given, Math.floor((left * weight(m)) / open));
        likes[m] = have + add;
        given += add;
      }
      if (given === 0) {
        // The shares rounded to nothing: hand out the rest one by one, most popular first.
        for (let m = 0; m < moments && given < left; m++) {
          if ((likes[m] ?? 0) < cap) {
            likes[m] = (likes[m] ?? 0) + 1;
            given++;
          }
        }
      }
      left -= given;
    }
    return likes;
  }

  private count(moments: number, likes: number): SyntheticPlan {
    const plan: SyntheticPlan = {
      seed: this.seed,
      users: this.n,
      groups: this.groups.length,
      memberships: this.groups.reduce((s, g) => s + g.size, 0),
      moments,
      follows: 0,
      likes,
      votes: 0,
      voteCasts: 0,
      draws: 0,
      drawEntries: 0,
      drawWins: 0,
      boxes: 0,
      boxClaims: 0,
      credits: 0,
      creditedCents: 0,
      events: 0,
    };
    // The phases whose sizes are random are replayed once, cheaply, to count their events.
    for (const e of chain(this.follows(), this.activities())) {
      switch (e.type) {
        case 'follow.created':
          plan.follows++;
          break;
        case 'vote.cast':
          plan.voteCasts++;
          break;
        case 'lucky_draw.created':
          plan.draws++;
          break;
        case 'lucky_draw.entered':
          plan.drawEntries++;
          break;
        case 'lucky_draw.won':
          plan.drawWins++;
          break;
        case 'lucky_box.sent':
          plan.boxes++;
          break;
        case 'lucky_box.claimed':
          plan.boxClaims++;
          break;
        case 'points.credited': {
          plan.credits++;
          const amount = amountOf(e.data);
          plan.creditedCents += amount === undefined ? 0 : (toCents(amount) ?? 0);
          break;
        }
      }
    }
    plan.votes = this.voteCount();
    plan.events =
      plan.users +
      plan.groups +
      plan.memberships +
      plan.moments +
      plan.follows +
      plan.likes +
      plan.voteCasts +
      plan.draws +
      plan.drawEntries +
      plan.drawWins +
      plan.boxes +
      plan.boxClaims +
      plan.credits;
    return plan;
  }

  private voteCount(): number {
    return Math.max(1, Math.round(this.n / 10));
  }

  /** Every event, in an order the platform accepts (what is referred to comes first). */
  *events(): Generator<IncomingEvent> {
    yield* this.users();
    yield* this.groupEvents();
    yield* this.momentEvents();
    yield* this.follows();
    yield* this.likeEvents();
    yield* this.activities();
  }

  /** The events in batches of at most `size` (default and maximum 1000). */
  *batches(size = MAX_BATCH): Generator<IncomingEvent[]> {
    if (!Number.isSafeInteger(size) || size < 1 || size > MAX_BATCH) throw new RangeError(`batch size 1..${MAX_BATCH}`);
    let batch: IncomingEvent[] = [];
    for (const e of this.events()) {
      batch.push(e);
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  private ev(id: string, type: string, data: Record<string, unknown>): IncomingEvent {
    return { id: `${this.prefix}${id}`, type, data };
  }

  private *users(): Generator<IncomingEvent> {
    for (let i = 0; i < this.n; i++) {
      const rng = this.rng(Stream.users, i);
      // Most users are low level; about 1 in 10 reaches Lv.5 or more.
      const level = Math.min(20, Math.floor(-Math.log(1 - rng.next()) * 2.2));
      const id = this.userId(i);
      const data: Record<string, unknown> = {
        user_id: id,
        name: `${rng.pick(FIRST)} ${rng.pick(LAST)}${rng.chance(0.3) ? ` ${rng.int(100)}` : ''}`,
        wallet_address: this.wallet(i),
        level,
        level_icon: `${BASE_URL}/levels/${level}.png`,
      };
      if (rng.chance(0.85)) data.avatar = `${BASE_URL}/avatars/${id}.png`;
      yield this.ev(`user-${i}`, 'user.upserted', data);
    }
  }

  private *groupEvents(): Generator<IncomingEvent> {
    for (const [g, layout] of this.groups.entries()) {
      const rng = this.rng(Stream.groups, g);
      const maximum = layout.size <= 500 ? 500 : Math.ceil((layout.size * 1.5) / 1000) * 1000;
      yield this.ev(`group-${g}`, 'group.upserted', {
        group_id: this.groupId(g),
        name: `${rng.pick(TOPICS)} #${g + 1}`,
        invite_url: this.inviteUrl(g),
        pic: `${BASE_URL}/groups/${this.groupId(g)}.png`,
        is_charge: rng.chance(0.1),
        subchannel_number: rng.int(6),
        maximum,
        created_at: formatDateTime(EPOCH + rng.int(365) * DAY + rng.int(DAY)),
        owner_id: this.userId(this.member(g, 0)),
      });
    }
    for (const [g, layout] of this.groups.entries()) {
      for (let k = 0; k < layout.size; k++) {
        const data: Record<string, unknown> = { group_id: this.groupId(g), user_id: this.userId(this.member(g, k)) };
        if (k === 0) data.role = 'admin';
        else if (k <= layout.moderators) data.role = 'moderator';
        yield this.ev(`join-${g}-${k}`, 'group.member.joined', data);
      }
    }
  }

  private *momentEvents(): Generator<IncomingEvent> {
    for (let m = 0; m < this.likesPerMoment.length; m++) {
      yield this.ev(`moment-${m}`, 'moment.created', {
        moment_id: this.momentId(m),
        author_id: this.userId(this.momentAuthor(m)),
      });
    }
  }

  /** Each user follows a few others, mostly popular ones; about a third of edges are mutual (friends). */
  private *follows(): Generator<IncomingEvent> {
    const n = this.n;
    const most = Math.max(1, Math.min(60, Math.floor((n - 1) / 4)));
    for (let u = 0; u < n; u++) {
      const rng = this.rng(Stream.follows, u);
      const count = Math.min(most, Math.floor(-Math.log(1 - rng.next()) * 6));
      const chosen = new Set<number>();
      let tries = 0;
      while (chosen.size < count) {
        // Popular targets first; after many repeats, walk on to the next free user.
        let t = tries++ < count * 8 ? rng.skewed(n) : (u + tries) % n;
        while (t === u || chosen.has(t)) t = (t + 1) % n;
        chosen.add(t);
      }
      let j = 0;
      for (const t of chosen) {
        yield this.ev(`follow-${u}-${j++}`, 'follow.created', {
          follower_id: this.userId(u),
          followed_id: this.userId(t),
        });
        if (rng.chance(0.3)) {
          yield this.ev(`follow-${u}-${j++}`, 'follow.created', {
            follower_id: this.userId(t),
            followed_id: this.userId(u),
          });
        }
      }
    }
  }

  /** Likers of moment m: distinct users other than its author, walked in a seeded order. */
  private *likeEvents(): Generator<IncomingEvent> {
    const n = this.n;
    for (let m = 0; m < this.likesPerMoment.length; m++) {
      const total = this.likesPerMoment[m] ?? 0;
      if (total === 0) continue;
      const author = this.momentAuthor(m);
      const others = walk(this.rng(Stream.likes, m), n - 1);
      const momentId = this.momentId(m);
      for (let k = 0; k < total; k++) {
        const j = at(others, k);
        const user = j < author ? j : j + 1;
        yield this.ev(`like-${m}-${k}`, 'moment.liked', { moment_id: momentId, user_id: this.userId(user) });
      }
    }
  }

  /** Votes, draws, lucky boxes and their claims, points credited. */
  private *activities(): Generator<IncomingEvent> {
    const n = this.n;
    const groups = this.groups.length;
    for (let v = 0; v < this.voteCount(); v++) {
      const rng = this.rng(Stream.votes, v);
      const g = rng.skewed(groups);
      const size = this.groupSize(g);
      const voters = 1 + rng.int(Math.min(size, 30));
      const order = walk(rng, size);
      for (let k = 0; k < voters; k++) {
        yield this.ev(`vote-${v}-${k}`, 'vote.cast', {
          vote_id: `${this.prefix}v${v}`,
          group_id: this.groupId(g),
          user_id: this.userId(this.member(g, at(order, k))),
        });
      }
    }

    const draws = Math.max(1, Math.round(n / 25));
    for (let d = 0; d < draws; d++) {
      const rng = this.rng(Stream.draws, d);
      const g = rng.skewed(groups);
      const layout = this.groups[g];
      if (layout === undefined) continue;
      const drawId = `${this.prefix}d${d}`;
      yield this.ev(`draw-${d}`, 'lucky_draw.created', {
        draw_id: drawId,
        group_id: this.groupId(g),
        initiator_id: this.userId(this.member(g, rng.int(layout.moderators + 1))),
      });
      const entrants = 1 + rng.int(Math.min(layout.size, 40));
      const order = walk(rng, layout.size);
      for (let k = 0; k < entrants; k++) {
        yield this.ev(`draw-${d}-in-${k}`, 'lucky_draw.entered', {
          draw_id: drawId,
          user_id: this.userId(this.member(g, at(order, k))),
        });
      }
      const winners = Math.min(entrants, 1 + rng.int(3));
      for (let k = 0; k < winners; k++) {
        yield this.ev(`draw-${d}-won-${k}`, 'lucky_draw.won', {
          draw_id: drawId,
          user_id: this.userId(this.member(g, at(order, k))),
        });
      }
    }

    const boxes = Math.max(1, Math.round(n / 8));
    for (let b = 0; b < boxes; b++) {
      const rng = this.rng(Stream.boxes, b);
      // Four in five boxes go to a group, the rest are sent privately to a few users.
      const g = rng.chance(0.8) ? rng.skewed(groups) : -1;
      const pool = g >= 0 ? this.groupSize(g) : n;
      const who = (k: number) => (g >= 0 ? this.member(g, k) : k);
      const order = walk(rng, pool);
      const sender = who(at(order, 0));
      const count = 1 + rng.int(Math.min(10, Math.max(1, pool - 1)));
      const parts = split(rng, count * (50 + rng.int(1950)), count);
      const boxId = `${this.prefix}b${b}`;
      const sent: Record<string, unknown> = {
        box_id: boxId,
        sender_id: this.userId(sender),
        amount: formatCents(parts.reduce((s, p) => s + p, 0)),
        count,
      };
      if (g >= 0) sent.group_id = this.groupId(g);
      yield this.ev(`box-${b}`, 'lucky_box.sent', sent);
      // Most boxes are emptied; some are left partly unclaimed.
      const claims = Math.min(pool - 1, rng.chance(0.7) ? count : rng.int(count + 1));
      for (let k = 0; k < claims; k++) {
        yield this.ev(`box-${b}-claim-${k}`, 'lucky_box.claimed', {
          box_id: boxId,
          user_id: this.userId(who(at(order, k + 1))),
          amount: formatCents(parts[k] ?? 1),
        });
      }
    }

    for (let i = 0; i < n; i++) {
      const rng = this.rng(Stream.credits, i);
      if (!rng.chance(0.7)) continue;
      const times = rng.chance(0.1) ? 1 + rng.int(5) : 1;
      for (let j = 0; j < times; j++) {
        // Mostly small amounts, a few large ones, some with cents.
        const cents = (1 + rng.skewed(100_000)) * (rng.chance(0.5) ? 100 : 1);
        yield this.ev(`credit-${i}-${j}`, 'points.credited', { user_id: this.userId(i), amount: formatCents(cents) });
      }
    }
  }
}

/** Splits `total` hundredths (>= parts) into `parts` random shares of at least one hundredth each. */
function split(rng: Rng, total: number, parts: number): number[] {
  const weights = Array.from({ length: parts }, () => rng.next() + 0.05);
  const sum = weights.reduce((s, w) => s + w, 0);
  const spare = total - parts;
  const shares = weights.map((w) => 1 + Math.floor((spare * w) / sum));
  const given = shares.reduce((s, p) => s + p, 0);
  shares[0] = (shares[0] ?? 1) + (total - given);
  return shares;
}

/** The amount of a `points.credited` event's data (decimal text, as `activities` writes it). */
function amountOf(data: unknown): string | undefined {
  return typeof data === 'object' && data !== null && 'amount' in data && typeof data.amount === 'string'
    ? data.amount
    : undefined;
}

function* chain<T>(...parts: Iterable<T>[]): Generator<T> {
  for (const part of parts) yield* part;
}
