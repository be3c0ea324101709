/** Small statistics and formatting helpers for the bench. Percentiles use the nearest-rank method. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** The mean: for a figure read on a coarse clock (the page's, 0.1 ms steps), which a median would round away. */
export const mean = (values: readonly number[]): number => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN);

/** Milliseconds, with a precision that suits the size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (Math.abs(value) >= 10) return `${value.toFixed(0)} ms`;
  return `${value.toFixed(1)} ms`;
}

export function kB(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

export function MB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const sleep = (msec: number) => new Promise<void>((resolve) => setTimeout(resolve, msec));
