// The desktop implementation of `Backend`: Tauri `invoke` and `listen`.
// This file and nothing else imports `@tauri-apps/*`.

import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { Unsubscribe } from "./index";
import { ApiError } from "./index";
import { CommandBackend, type Args } from "./commands";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { RootChanged } from "../bindings/RootChanged";

function subscribe<T>(event: string, cb: (payload: T) => void): Unsubscribe {
  let stop: (() => void) | null = null;
  let cancelled = false;
  listen<T>(event, (e) => cb(e.payload))
    .then((un) => {
      if (cancelled) un();
      else stop = un;
    })
    .catch((e) => console.error(`listen ${event}`, e));
  return () => {
    cancelled = true;
    stop?.();
  };
}

export class TauriBackend extends CommandBackend {
  readonly kind = "tauri" as const;

  protected async call<T>(cmd: string, args: Args): Promise<T> {
    try {
      return await invoke<T>(cmd, args);
    } catch (e) {
      throw ApiError.from(e);
    }
  }
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe {
    return subscribe<RootChanged>("root-changed", cb);
  }
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe {
    return subscribe<IndexProgress>("index-progress", cb);
  }
  onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe {
    return subscribe<SearchIndexProgress>("search-index-progress", cb);
  }
}
