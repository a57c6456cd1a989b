// Words and commands the write toasts show: the exact command that resumes a session in pi,
// and the short name of a session file.

/** Quotes one shell word for sh/bash/zsh (single quotes; a quote inside becomes '\''). */
export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command that resumes a session file in pi (`pi --session <file>`, see pi's README). */
export function resumeCommand(file: string): string {
  return `pi --session ${shellQuote(file)}`;
}

/** The last path component of a file. */
export function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i >= 0 ? path.slice(i + 1) : path;
}

/** What an appended line is, in words (the toast shows the line itself under it). */
export function describeLine(line: string): string {
  try {
    const v = JSON.parse(line) as { type?: string; targetId?: string | null; label?: string | null };
    if (v.type === "leaf") return `a leaf line → ${v.targetId ?? "the start"}`;
    if (v.type === "label") return v.label ? `a label line “${v.label}” → ${v.targetId}` : `a label line clearing ${v.targetId}`;
    return `a ${v.type ?? "new"} line`;
  } catch {
    return "a line";
  }
}

const DAY_TIME = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });

/** A list time: the date and clock time, then how long ago ("Mar 2, 16:57 · 3h ago"). */
export function listWhen(ms: number | null | undefined, now = Date.now(), relative: (ms: number, now: number) => string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const rel = relative(ms, now);
  const abs = DAY_TIME.format(new Date(ms));
  return rel && !/^[A-Z][a-z]{2} \d/.test(rel) ? `${abs} · ${rel}` : abs;
}

/** The most recently modified session that has entries (an empty or header-only file is no
 *  place to start), else the most recently modified one (the list may be grouped or sorted
 *  otherwise). */
export function mostRecent<T extends { modified: number | null; hasEntries?: boolean }>(rows: T[]): T | undefined {
  let best: T | undefined;
  let bestAny: T | undefined;
  const newer = (r: T, b: T | undefined) => !b || (r.modified ?? -Infinity) > (b.modified ?? -Infinity);
  for (const r of rows) {
    if (newer(r, bestAny)) bestAny = r;
    if (r.hasEntries !== false && newer(r, best)) best = r;
  }
  return best ?? bestAny;
}
