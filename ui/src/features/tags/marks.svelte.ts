// Tags, pins and archive (issue 14): the app's marks on sessions, stored by the backend in the
// app's data folder (SQLite), keyed by session id. This store only mirrors them for the views.

import type { Marks } from "../../lib/bindings/Marks";
import type { TagCount } from "../../lib/bindings/TagCount";
import type { SessionRow } from "../../lib/bindings/SessionRow";
import type { MarkFilter } from "../../lib/bindings/MarkFilter";
import type { MarkSelection } from "../../lib/bindings/MarkSelection";
import { ApiError, type Backend } from "../../lib/backend";
import type { Toasts } from "../../lib/state/toasts.svelte";
import type { ChromeState } from "../../lib/state/chrome.svelte";

export class MarksState {
  byId = $state.raw<Record<string, Marks>>({});
  tags = $state.raw<TagCount[]>([]);
  showArchived = $state(false);
  onlyPinned = $state(false);
  /** Sessions must carry every one of these tags. */
  tagFilter = $state<string[]>([]);
  error = $state<string | null>(null);
  /** The backend's message when its database of marks is damaged (`organiser-damaged`): it is
   *  left as it is until the user sets it aside. */
  damaged = $state<string | null>(null);

  constructor(
    private backend: Backend,
    private toasts: Toasts,
  ) {}

  /** Notes an error; a damaged database raises the banner instead of a toast. */
  private failed(e: unknown): string {
    const err = ApiError.from(e);
    if (err.code === "organiser-damaged") this.damaged = err.message;
    return err.message;
  }

  async load() {
    try {
      const [m, t] = await Promise.all([this.backend.sessionMarks(), this.backend.sessionTags()]);
      this.byId = m as Record<string, Marks>;
      this.tags = t;
      this.error = null;
      this.damaged = null;
    } catch (e) {
      this.error = this.failed(e);
    }
  }

  /** Sets the damaged database aside (renamed beside itself, never deleted) and starts anew. */
  async setAside() {
    try {
      const a = await this.backend.setAsideOrganiser();
      this.damaged = null;
      this.toasts.show("info", `The damaged file is kept as ${a.movedTo}. Tags, pins and archive marks start anew.`);
      await this.load();
      await this.reselect();
    } catch (e) {
      this.toasts.show("error", this.failed(e));
    }
  }

  of(id: string | null | undefined): Marks | null {
    return id ? (this.byId[id] ?? null) : null;
  }

  /** Sessions whose tags contain this text (case-insensitive). */
  tagText = $state("");
  /** What the backend says the filters keep; null until the first answer (everything shows). */
  selection = $state.raw<MarkSelection | null>(null);
  private asked = 0;

  /** The filters as the backend takes them: "Archived" shows the archived sessions only. */
  filter(): MarkFilter {
    return { showArchived: false, onlyArchived: this.showArchived, tags: [...this.tagFilter], tagText: this.tagText.trim() || null, onlyPinned: this.onlyPinned };
  }

  /** Asks the backend which sessions the filters keep (after the filters or the marks change). */
  async reselect() {
    const n = ++this.asked;
    try {
      const s = await this.backend.selectSessions(this.filter());
      if (n === this.asked) this.selection = s;
    } catch (e) {
      this.error = this.failed(e);
    }
  }

  /** The rows the list shows, as the backend's selection says. */
  visible(rows: SessionRow[]): SessionRow[] {
    const sel = this.selection;
    if (!sel) return rows;
    const kept = new Set(sel.ids);
    return rows.filter((r) => (r.id && this.byId[r.id] ? kept.has(r.id) : sel.unmarked));
  }

  toggleTagFilter(tag: string) {
    this.tagFilter = this.tagFilter.includes(tag) ? this.tagFilter.filter((t) => t !== tag) : [...this.tagFilter, tag];
  }

  private async apply(p: Promise<Marks>) {
    try {
      await p;
      await this.load();
    } catch (e) {
      const message = this.failed(e);
      if (!this.damaged) this.toasts.show("error", message);
    }
  }
  addTag(id: string, tag: string) {
    return this.apply(this.backend.addSessionTag(id, tag));
  }
  removeTag(id: string, tag: string) {
    return this.apply(this.backend.removeSessionTag(id, tag));
  }
  setPinned(id: string, on: boolean) {
    return this.apply(this.backend.setSessionPinned(id, on));
  }
  setArchived(id: string, on: boolean) {
    return this.apply(this.backend.setSessionArchived(id, on));
  }
}

const stores = new WeakMap<ChromeState, MarksState>();

/** The marks store of this app (one per app: its chrome holds the backend and the toasts). */
export function marksOf(chrome: ChromeState): MarksState {
  let s = stores.get(chrome);
  if (!s) {
    s = new MarksState(chrome.backend, chrome.toasts);
    stores.set(chrome, s);
    void s.load();
  }
  return s;
}

/** Pinned sessions move out of their project into a "Pinned" group on top. */
export function pinnedFirst<G extends { cwd: string; items: { row: SessionRow; depth: number }[]; count: number; modified: number }>(groups: G[], marks: MarksState): G[] {
  const pinned: { row: SessionRow; depth: number }[] = [];
  const rest: G[] = [];
  for (const g of groups) {
    // A pinned session takes its forks along (the items nested under it), as in its group.
    const keep: typeof g.items = [];
    for (let i = 0; i < g.items.length; i++) {
      const it = g.items[i];
      if (!marks.of(it.row.id)?.pinned) {
        keep.push(it);
        continue;
      }
      pinned.push({ row: it.row, depth: 0 });
      while (i + 1 < g.items.length && g.items[i + 1].depth > it.depth) {
        const kid = g.items[++i];
        pinned.push({ row: kid.row, depth: kid.depth - it.depth });
      }
    }
    if (keep.length) rest.push(keep.length === g.items.length ? g : { ...g, items: keep, count: keep.length });
  }
  if (!pinned.length) return groups;
  const top = { cwd: PINNED_GROUP, items: pinned, count: pinned.length, modified: Math.max(0, ...pinned.map((p) => p.row.modified ?? 0)) } as G;
  return [top, ...rest];
}

/** The name of the pinned group (not a path). */
export const PINNED_GROUP = "Pinned";
