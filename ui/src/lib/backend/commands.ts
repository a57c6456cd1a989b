// The backend's commands, once: the typed client is generated from the command table in Rust
// (commands.gen.ts, from crates/pi-session-app/src/commands/table.rs by `scripts/bindings`).
// A transport (tauri.ts, http.ts, recorded.ts) says only how a command travels and where the
// events come from.

import { Commands, type Args } from "./commands.gen";
import type { Backend, Unsubscribe } from "./index";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { RootChanged } from "../bindings/RootChanged";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";

export { STATE_CHANGING, WINDOW_ONLY, type Args } from "./commands.gen";

export abstract class CommandBackend extends Commands implements Backend {
  abstract readonly kind: Backend["kind"];
  protected abstract override call<T>(command: string, args: Args): Promise<T>;
  abstract onRootChanged(cb: (e: RootChanged) => void): Unsubscribe;
  abstract onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe;
  abstract onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe;
}
