// A tiny read-only hook for benchmarks and end-to-end tests:
//
//   window.__piExplorer = { ready, lastRowsRenderedAt, frameTimes, firstSessionsAt }
//
// - ready: true once the first tree rows of a session are on screen;
// - lastRowsRenderedAt: performance.now() when the tree view last rendered a new window of rows;
// - frameTimes: requestAnimationFrame deltas (ms) recorded while the tree scrolls (last 1000);
// - firstSessionsAt: performance.now() when the session list was first on screen (0 before).
// Only the tree view writes it; nothing in the app reads it.

export interface PerfHook {
  ready: boolean;
  lastRowsRenderedAt: number;
  frameTimes: number[];
  firstSessionsAt: number;
  /** performance.now() when fork graph nodes were first on screen (0 before). */
  forkGraphAt: number;
  /** Named durations (ms) of steps worth watching in benchmarks. */
  marks: Record<string, number>;
}

/**
 * A hook for end-to-end tests (WebDriver cannot scroll a virtualised list to a row it cannot see):
 *
 *   window.__piExplorerTest = { reveal(id) }
 *
 * reveal(id) selects entry `id` of the open session and scrolls the tree to it, as clicking a
 * search hit does (opening the folds that hide it). It changes nothing on disk.
 */
export interface TestHook {
  reveal(id: string): Promise<void>;
  /** The selected entry's id (the tree may not draw its row while another view is shown). */
  selectedId(): string | null;
  /** Page coordinates of bar `i` of dashboard chart `chart` (set while the dashboard is shown). */
  barPoint?(chart: string, i: number): { x: number; y: number } | null;
}

declare global {
  interface Window {
    __piExplorer?: PerfHook;
    __piExplorerTest?: TestHook;
  }
}

export function perfHook(): PerfHook {
  if (typeof window === "undefined") return { ready: false, lastRowsRenderedAt: 0, frameTimes: [], firstSessionsAt: 0, forkGraphAt: 0, marks: {} };
  if (!window.__piExplorer) window.__piExplorer = { ready: false, lastRowsRenderedAt: 0, frameTimes: [], firstSessionsAt: 0, forkGraphAt: 0, marks: {} };
  return window.__piExplorer;
}

let recording = false;
let last = 0;
let stopAt = 0;

/** Records frame deltas for a while after each scroll event. */
export function recordScrollFrames() {
  const hook = perfHook();
  stopAt = performance.now() + 300;
  if (recording) return;
  recording = true;
  let first = true;
  const step = (t: number) => {
    if (first) {
      first = false;
      last = t;
      requestAnimationFrame(step);
      return;
    }
    hook.frameTimes.push(t - last);
    if (hook.frameTimes.length > 1000) hook.frameTimes.splice(0, hook.frameTimes.length - 1000);
    last = t;
    if (t < stopAt) requestAnimationFrame(step);
    else recording = false;
  };
  requestAnimationFrame(step);
}
