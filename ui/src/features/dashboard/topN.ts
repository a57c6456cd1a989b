// The dashboard's categories (projects, models): the biggest N by the figure shown, then one
// "other" bar that sums the rest (its sessions are theirs, once each), so 41 projects make 11
// readable bars rather than 41 overprinted ones.

import type { Figure } from "../../lib/bindings/Figure";

export type Metric = "tokens" | "cost";

/** The label of the bar that sums the categories past the top N. */
export const OTHER = "other";

export function topN(figures: Figure[], metric: Metric, n: number): Figure[] {
  const sorted = [...figures].sort((a, b) => b[metric] - a[metric] || a.key.localeCompare(b.key));
  if (sorted.length <= n + 1) return sorted;
  const rest = sorted.slice(n);
  const sessions = [...new Set(rest.flatMap((f) => f.sessions))];
  const other: Figure = {
    key: `${OTHER} (${rest.length})`,
    tokens: rest.reduce((s, f) => s + f.tokens, 0),
    cost: rest.reduce((s, f) => s + f.cost, 0),
    sessions,
  };
  return [...sorted.slice(0, n), other];
}

/** Tokens when every cost is zero (a provider that reports none), else cost. */
export function defaultMetric(totalCost: number): Metric {
  return totalCost > 0 ? "cost" : "tokens";
}
