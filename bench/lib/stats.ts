// Small statistics helpers.

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** Nearest-rank percentile (0 < p <= 100) of values sorted ascending. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? NaN;
}

/** A growable list of latencies, in one Float64Array (millions of samples cost little). */
export class Samples {
  private data = new Float64Array(1 << 16);
  private n = 0;
  push(v: number): void {
    if (this.n === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = v;
  }
  get length(): number {
    return this.n;
  }
  sorted(): Float64Array {
    return this.data.slice(0, this.n).sort();
  }
}

export const round2 = (v: number): number => Math.round(v * 100) / 100;
