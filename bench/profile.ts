// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=1): where the server's CPU time goes.
//   npx tsx bench/profile.ts <file.cpuprofile> [--last <seconds>] [--top <n>] [--match <regex>]
// --last keeps only the final seconds (the load, not the seeding before it), --from/--to a window
// in seconds from the profile's start; --match adds the inclusive time of every function whose
// name or file matches; --callers shows the call chains (6 frames) that lead to matching functions.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    last: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    top: { type: 'string', default: '40' },
    match: { type: 'string' },
    callers: { type: 'string' },
  },
});
const [file] = positionals;
if (file === undefined) {
  process.stderr.write(
    'usage: npx tsx bench/profile.ts <file.cpuprofile> [--last S | --from S --to S] [--top N] [--match RE] [--callers RE]\n',
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const short = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'npm:')
    .replace(/^.*\/work\/main\//, '');
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;

// Sample times, to keep only the last seconds.
let t = profile.startTime;
const times = profile.timeDeltas.map((d) => (t += d));
const from =
  values.last !== undefined
    ? profile.endTime - Number(values.last) * 1e6
    : values.from !== undefined
      ? profile.startTime + Number(values.from) * 1e6
      : -Infinity;
const to = values.to !== undefined ? profile.startTime + Number(values.to) * 1e6 : Infinity;

const self = new Map<string, number>();
const selfFile = new Map<string, number>();
const inclusive = new Map<string, number>();
const match = values.match === undefined ? undefined : new RegExp(values.match);
const callersOf = values.callers === undefined ? undefined : new RegExp(values.callers);
const chains = new Map<string, number>();
let total = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const at = times[i] ?? 0;
  if (at < from || at > to) return;
  const node = byId.get(id);
  if (node === undefined) return;
  total++;
  const name = node.callFrame.functionName;
  if (name === '(idle)') {
    idle++;
    return;
  }
  self.set(label(node), (self.get(label(node)) ?? 0) + 1);
  const f = short(node.callFrame.url) || name;
  selfFile.set(f, (selfFile.get(f) ?? 0) + 1);
  if (callersOf !== undefined && callersOf.test(label(node))) {
    const chain: string[] = [];
    for (let cur = parent.get(id); cur !== undefined && chain.length < 6; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (n !== undefined) chain.push(label(n));
    }
    const key = `${label(node)}\n      <- ${chain.join('\n      <- ')}`;
    chains.set(key, (chains.get(key) ?? 0) + 1);
  }
  if (match !== undefined) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (n === undefined) break;
      const key = label(n);
      if (match.test(key) && !seen.has(key)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + 1);
      }
    }
  }
});

const busy = total - idle;
const pct = (n: number) => `${((100 * n) / busy).toFixed(1).padStart(5)}%`;
const top = Number(values.top);
const show = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(v)}  ${k}\n`);
};
process.stdout.write(`${file}: ${total} samples, ${idle} idle; percentages of the ${busy} busy samples\n`);
show('self time by function', self);
show('self time by file', selfFile);
if (callersOf !== undefined) show(`call chains into ${String(callersOf)}`, chains);
if (match !== undefined) show(`inclusive time of functions matching ${String(match)}`, inclusive);
