// Chart.js (canvas) for the dashboard: registered piece by piece (tree-shaken). Chart.js draws on
// a canvas and only touches element styles through the CSSOM, so it runs under the app's CSP
// (`style-src 'self'`, no inline styles or scripts). See docs/design.md ("Dashboard").

import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip, type ChartEvent, type ActiveElement } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

import { tokens as tokensText } from "../../lib/format";

export type Bar = { label: string; value: number; tokens: number; cost?: number };

/** The figure on the value axis and in the tooltip. */
export type Metric = "tokens" | "cost";

function money(n: number): string {
  return n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(n === 0 ? 0 : 3)}`;
}

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** A bar chart of `bars`; `onPick(i)` when a bar is clicked. Horizontal for categories. */
export function barChart(canvas: HTMLCanvasElement, bars: Bar[], opts: { horizontal: boolean; color: string; metric?: Metric; onPick: (i: number) => void }): Chart {
  const metric = opts.metric ?? "cost";
  const value = (v: number) => (metric === "cost" ? money(v) : tokensText(v) || "0");
  const text = css("--text-2");
  const grid = css("--border");
  return new Chart(canvas, {
    type: "bar",
    data: {
      labels: bars.map((b) => b.label),
      datasets: [{ data: bars.map((b) => b.value), backgroundColor: css(opts.color), borderRadius: 3, maxBarThickness: 28 }],
    },
    options: {
      indexAxis: opts.horizontal ? "y" : "x",
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (c) => {
              const b = bars[c.dataIndex];
              return `$${Number(b?.cost ?? (metric === "cost" ? c.raw : 0)).toFixed(4)} · ${Math.round(b?.tokens ?? 0).toLocaleString()} tokens`;
            },
          },
        },
      },
      // Value ticks with k/M/B (or $); category labels whole up to 48 characters (the start of
      // a model name, the end of a path), one per bar, never rotated over each other.
      scales: {
        x: {
          ticks: { color: text, autoSkip: true, autoSkipPadding: 12, maxRotation: 0, callback: opts.horizontal ? (v) => value(Number(v)) : undefined },
          grid: { color: grid },
        },
        y: {
          ticks: { color: text, autoSkip: !opts.horizontal, callback: opts.horizontal ? (_v, i) => label(bars[i]?.label ?? "", 48) : (v) => value(Number(v)) },
          grid: { color: grid },
        },
      },
      onClick: (_e: ChartEvent, els: ActiveElement[]) => {
        if (els.length) opts.onPick(els[0].index);
      },
    },
  });
}

/** A label cut to `n` characters: a path keeps its end, anything else its start. */
function label(s: string, n: number): string {
  if (s.length <= n) return s;
  return s.includes("/") ? "…" + s.slice(s.length - n + 1) : s.slice(0, n - 1) + "…";
}

/** Page coordinates of bar `i` of the chart on `canvas` (for the end-to-end tests). */
export function barPoint(canvas: HTMLCanvasElement, i: number): { x: number; y: number } | null {
  const c = Chart.getChart(canvas);
  const el = c?.getDatasetMeta(0).data[i];
  if (!el) return null;
  const r = canvas.getBoundingClientRect();
  const p = el.getProps(["x", "y", "base"], true) as { x: number; y: number; base: number };
  const horizontal = c?.options.indexAxis === "y";
  // The middle of the bar (between its base and its end).
  return horizontal ? { x: r.left + (p.x + p.base) / 2, y: r.top + p.y } : { x: r.left + p.x, y: r.top + (p.y + p.base) / 2 };
}
