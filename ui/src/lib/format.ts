// Small formatting helpers shared by the views.

export function relativeTime(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const d = Math.max(0, now - ms);
  const min = 60_000;
  const hour = 60 * min;
  const day = 24 * hour;
  if (d < min) return "just now";
  if (d < hour) return `${Math.floor(d / min)}m ago`;
  if (d < day) return `${Math.floor(d / hour)}h ago`;
  if (d < 2 * day) return "yesterday";
  if (d < 7 * day) return WEEKDAY.format(new Date(ms));
  return MONTH_DAY.format(new Date(ms));
}

// Formatters are made once: `toLocale*String` builds a new one on every call, which is slow.
const WEEKDAY = new Intl.DateTimeFormat("en-US", { weekday: "short" });
const NUMBER = new Intl.NumberFormat("en-US");

/** `1,234`. */
export function num(n: number): string {
  return NUMBER.format(n);
}

export function clockTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

const MONTH_DAY = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric" });
const MONTH_DAY_YEAR = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" });
const THIS_YEAR = new Date().getFullYear();

export function fullTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const d = new Date(ms);
  const date = (d.getFullYear() === THIS_YEAR ? MONTH_DAY : MONTH_DAY_YEAR).format(d);
  const t = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}:${String(d.getSeconds()).padStart(2, "0")}`;
  return `${date}, ${t}`;
}

export function isoTime(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

export function cost(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "";
  if (v === 0) return "$0";
  if (v < 0.01) return "<$0.01";
  if (v < 100) return `$${v.toFixed(2)}`;
  return `$${Math.round(v)}`;
}

export function preciseCost(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "";
  return `$${v.toFixed(v < 1 ? 3 : 2)}`;
}

export function tokens(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "";
  if (v < 1000) return String(Math.round(v));
  if (v < 100_000) return `${(v / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  if (v < 1_000_000) return `${Math.round(v / 1000)}k`;
  if (v < 1_000_000_000) return `${(v / 1_000_000).toFixed(1)}M`;
  if (v < 1_000_000_000_000) return `${(v / 1_000_000_000).toFixed(1)}B`;
  return `${(v / 1_000_000_000_000).toFixed(1)}T`;
}

export function count(n: number, one: string, many = one + "s"): string {
  return `${num(n)} ${n === 1 ? one : many}`;
}

/** `~` for the home folder, for display. */
export function tildify(path: string | null | undefined): string {
  if (!path) return "";
  return path.replace(/^\/home\/[^/]+(?=\/|$)/, "~").replace(/^\/Users\/[^/]+(?=\/|$)/, "~").replace(/^[A-Za-z]:\\Users\\[^\\]+/, "~");
}

export function basename(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i >= 0 ? path.slice(i + 1) : path;
}

/**
 * A session file's name short enough for a chip, still telling files apart: the name without
 * `.jsonl`, cut in the middle when long (pi's names are `<time>_<uuid>`: the time stays, and
 * the end of the uuid, which differs between files made in the same second).
 */
export function fileTag(path: string): string {
  const stem = basename(path).replace(/\.jsonl$/, "");
  return stem.length > 24 ? `${stem.slice(0, 16)}…${stem.slice(-6)}` : stem;
}

export function shortId(id: string | null | undefined): string {
  if (!id) return "";
  return id.length > 12 ? id.slice(0, 8) : id;
}

/** Plain text of a message's `content` (a string, or the text blocks of an array). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (b && typeof b === "object" && (b as { type?: unknown }).type === "text" ? String((b as { text?: unknown }).text ?? "") : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

export function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

/** A byte count for people. */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} KB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}
