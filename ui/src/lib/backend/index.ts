// The one way the UI reaches the backend: every command of the command table (docs/ipc.md) is a
// typed method, generated from Rust (commands.gen.ts).
// Implementations: `tauri.ts` (the desktop window), `http.ts` (the browser, talking to
// `pi-session serve`) and `recorded.ts` (unit tests: answers recorded from the real core).
// Nothing else in the UI imports `@tauri-apps/*`.

import { HttpBackend, takeToken } from "./http";
import { TauriBackend } from "./tauri";
import type { CommandApi } from "./commands.gen";
import type { ErrorCode } from "../bindings/ErrorCode";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { RootChanged } from "../bindings/RootChanged";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";

export type Unsubscribe = () => void;

/** The backend: every command of the command table, typed (commands.gen.ts), and its events. */
export interface Backend extends CommandApi {
  /** Which implementation is running. */
  readonly kind: "tauri" | "http" | "recorded";

  /** `search-index-progress`: while the search index builds or updates. */
  onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe;
  /** `root-changed`: files under the root grew, appeared or disappeared. */
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe;
  /** `index-progress`: while the full index builds. */
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe;
}

/** The error codes of docs/ipc.md (generated from the core's `ErrorCode`), `internal` for anything that did not come as `{code, message}`. */
export type { ErrorCode };

/** A failed command: branch on `code`, show `message`. */
export class ApiError extends Error {
  readonly code: ErrorCode | string;
  constructor(code: ErrorCode | string, message: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }

  /** Wraps whatever a command rejected with. */
  static from(e: unknown): ApiError {
    if (e instanceof ApiError) return e;
    if (e && typeof e === "object" && "code" in e && "message" in e) {
      const o = e as { code: unknown; message: unknown };
      return new ApiError(String(o.code), String(o.message));
    }
    if (e instanceof Error) return new ApiError("internal", e.message);
    return new ApiError("internal", String(e));
  }
}

/** True inside the desktop app (Tauri injects this global before the page loads). */
export function isTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

/** Picks the implementation: Tauri inside the window, else HTTP to the server that served the
 *  page, with the token from the URL's fragment (or kept from it before this reload). */
export async function createBackend(): Promise<Backend> {
  if (isTauri()) return new TauriBackend();
  return new HttpBackend("", takeToken());
}
