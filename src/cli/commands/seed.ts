import { MAX_BATCH, MAX_MOMENTS, SyntheticCommunity } from '../../demo/synthetic.js';
import { json, parse, UsageError, wholeNumber, withNewOrExistingServices, type Command } from '../io.js';
import { progress } from '../progress.js';

export const seedCommand: Command = {
  name: 'seed',
  summary: 'load a synthetic community of N users through the operator events',
  usage: [
    'seed --users N [--likes M] [--moments K] [--seed S] [--batch B]',
    '  --users N    users (at least 2)',
    '  --likes M    like events spread over the moments (default 10 per user)',
    `  --moments K  moments, at most ${MAX_MOMENTS} (default 2 per user, more when the likes need them, up to that)`,
    '  --seed S     PRNG seed: the same options give the same community (default 1)',
    `  --batch B    events per batch, 1 to ${MAX_BATCH} (default ${MAX_BATCH})`,
  ].join('\n'),
  async run(args, io) {
    const v = parse(this, args, {
      users: { type: 'string' },
      likes: { type: 'string' },
      moments: { type: 'string' },
      seed: { type: 'string' },
      batch: { type: 'string' },
    });
    const users = wholeNumber(this, v.users, 'users', 2, 100_000_000);
    const likes = v.likes === undefined ? undefined : wholeNumber(this, v.likes, 'likes', 0, 1_000_000_000);
    const moments = v.moments === undefined ? undefined : wholeNumber(this, v.moments, 'moments', 1, MAX_MOMENTS);
    const seed = wholeNumber(this, v.seed, 'seed', 0, 2 ** 32 - 1, 1);
    const batch = wholeNumber(this, v.batch, 'batch', 1, MAX_BATCH, MAX_BATCH);
    let community: SyntheticCommunity;
    try {
      community = new SyntheticCommunity({
        users,
        seed,
        ...(likes !== undefined ? { likes } : {}),
        ...(moments !== undefined ? { moments } : {}),
      });
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(e.message, this);
      throw e;
    }
    const { plan } = community;

    // Seeding a new store is how a load test starts.
    const summary = await withNewOrExistingServices(io, async (s) => {
      const now = io.now ?? (() => performance.now());
      const started = now();
      const bar = progress(io.stderr, 'seed', plan.events, now);
      const totals = { applied: 0, duplicates: 0, refused: 0 };
      const refusedBy: Record<string, number> = {};
      try {
        for (const events of community.batches(batch)) {
          const r = await s.events.ingest(events);
          totals.applied += r.applied;
          totals.duplicates += r.duplicates;
          totals.refused += r.refused.length;
          for (const { reason } of r.refused) refusedBy[reason] = (refusedBy[reason] ?? 0) + 1;
          bar.increment(events.length);
        }
      } finally {
        bar.stop();
      }
      const seconds = (now() - started) / 1000;
      return {
        plan,
        ...totals,
        refused_by_reason: refusedBy,
        seconds: Math.round(seconds * 100) / 100,
        events_per_second: Math.round(plan.events / seconds),
        sample_user_ids: [0, 1, 2].map((i) => community.userId(i)),
      };
    });
    io.stdout.write(json(summary));
    return 0;
  },
};
