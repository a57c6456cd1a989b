// Chart.js (canvas) for the dashboard: registered piece by piece (tree-shaken). Chart.js draws on
// a canvas and only touches element styles through the CSSOM, so it runs under the app's CSP
// (`style-src 'self'`, no inline styles or scripts). See docs/design.md ("Dashboard").

import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip, type ChartEvent, type ActiveElement } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export type Bar = { label: string; value: number; tokens: number };

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** A bar chart of `bars`; `onPick(i)` when a bar is clicked. Horizontal for categories. */
export function barChart(canvas: HTMLCanvasElement, bars: Bar[], opts: { horizontal: boolean; color: string; onPick: (i: number) => void }): Chart {
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
            label: (c) => `$${Number(c.raw).toFixed(4)} · ${Math.round(bars[c.dataIndex]?.tokens ?? 0).toLocaleString()} tokens`,
          },
        },
      },
      scales: {
        x: { ticks: { color: text, autoSkip: true, maxRotation: 0 }, grid: { color: grid } },
        y: { ticks: { color: text, autoSkip: false, callback: opts.horizontal ? (_v, i) => truncate(bars[i]?.label ?? "", 28) : undefined }, grid: { color: grid } },
      },
      onClick: (_e: ChartEvent, els: ActiveElement[]) => {
        if (els.length) opts.onPick(els[0].index);
      },
    },
  });
}

function truncate(s: string, n: number): string {
  return s.length > n ? "…" + s.slice(s.length - n + 1) : s;
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
