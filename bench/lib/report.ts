// Plain-text tables of a run's results.
import type { CaseResult } from './types.js';

const fmt = (v: number, digits = 0): string =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '-';

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  '))
    .join('\n');
}

export function formatCase(c: CaseResult): string {
  const rows = [
    [
      'target',
      'req/s (median)',
      'p50 ms',
      'p99 ms',
      'max ms',
      'req/s per round',
      'non-2xx',
      'errors',
      'server CPU',
      'server CPU µs/req',
      'load-gen CPU',
    ],
    ...c.targets.map((t) => [
      t.label,
      fmt(t.median.rps, t.median.rps < 100 ? 1 : 0),
      fmt(t.median.p50, 2),
      fmt(t.median.p99, 2),
      fmt(t.median.max, 1),
      t.rounds.map((r) => fmt(r.rps, r.rps < 100 ? 1 : 0)).join(' / '),
      fmt(t.median.non2xx),
      fmt(t.median.errors),
      `${fmt(t.median.serverCpu * 100)}%`,
      fmt((t.median.serverCpu * 1e6) / t.median.rps, 1),
      `${fmt(t.median.loadCpu * 100)}%`,
    ]),
  ];
  const notes = [
    ...c.notes.map((n) => `  ${n}`),
    ...c.targets.flatMap((t) => t.notes.map((n) => `  ${t.label}: ${n}`)),
  ];
  const checks = c.checks.map(
    (k) => `  ${k.pass ? 'PASS' : 'FAIL'}  ${k.name} = ${fmt(k.value, Number.isInteger(k.value) ? 0 : 2)} (${k.limit})`,
  );
  const body =
    c.targets.length === 0
      ? []
      : [
          table(rows)
            .split('\n')
            .map((l) => `  ${l}`)
            .join('\n'),
          '',
        ];
  return [`== ${c.name}: ${c.description}`, ...notes, '', ...body, ...checks, ''].join('\n');
}
