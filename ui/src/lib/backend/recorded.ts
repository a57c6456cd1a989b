// A `Backend` for unit tests that replays answers recorded from the real core: a lookup by
// (step, command, arguments) in `recorded/<scenario>.json`, nothing computed. The recordings
// are made by a Rust test over `demo/sessions` (crates/pi-session-serve/tests/record.rs) from
// the calls listed in `recorded/requests.json`:
//
//   UPDATE_RECORDED=1 cargo test -p pi-session-serve --test record    # after a core change
//   scripts/record-ui                                                 # after a test's calls change
//
// `step` counts the state-changing calls made so far (writes, the read-only switch), so the
// same read before and after a write finds the answer of its moment.

import type { Unsubscribe } from "./index";
import { ApiError } from "./index";
import { CommandBackend, STATE_CHANGING, type Args } from "./commands";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { RootChanged } from "../bindings/RootChanged";

interface Call {
  step: number;
  command: string;
  args: Args;
  result?: unknown;
  error?: { code: string; message: string };
}
interface Recording {
  scenario: string;
  root: string;
  calls: Call[];
}

const recordings = import.meta.glob<Recording>("./recorded/*.json", { eager: true, import: "default" });

/** JSON with object keys sorted, so equal arguments give equal keys. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  // An absent optional argument and null mean the same to the core (`Option`).
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] != null)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

const keyOf = (step: number, command: string, args: Args) => `${step} ${command} ${canonical(args)}`;

type Env = Record<string, string | undefined>;
const env: Env = (globalThis as { process?: { env: Env } }).process?.env ?? {};

export class RecordedBackend extends CommandBackend {
  readonly kind = "recorded" as const;
  private step = 0;
  private readonly answers = new Map<string, Call>();

  constructor(readonly scenario: string) {
    super();
    const rec = Object.entries(recordings).find(([p]) => p.endsWith(`/${scenario}.json`))?.[1];
    for (const c of rec?.calls ?? []) this.answers.set(keyOf(c.step, c.command, c.args), c);
  }

  protected async call<T>(command: string, args: Args): Promise<T> {
    const step = this.step;
    if (STATE_CHANGING.has(command)) this.step++;
    if (env.RECORD_DISCOVER_URL) return discover<T>(this.scenario, command, args);
    const c = this.answers.get(keyOf(step, command, args));
    if (!c) {
      throw new ApiError(
        "not-recorded",
        `no recorded answer for ${command} ${canonical(args)} at step ${step} of scenario "${this.scenario}": run scripts/record-ui`,
      );
    }
    if (c.error) throw new ApiError(c.error.code, c.error.message);
    return structuredClone(c.result) as T;
  }

  // Nothing is pushed in a replay; tests that need events call the app's handlers.
  onRootChanged(_cb: (e: RootChanged) => void): Unsubscribe {
    return () => {};
  }
  onIndexProgress(_cb: (e: IndexProgress) => void): Unsubscribe {
    return () => {};
  }
  onSearchIndexProgress(_cb: (e: SearchIndexProgress) => void): Unsubscribe {
    return () => {};
  }
}

/** The recordings' root: session paths in recordings and tests start with it. */
export const RECORDED_ROOT = "/demo/sessions";

/**
 * Discovery (scripts/record-ui): the call goes to a real `pi-session serve` on a copy of the
 * demo sessions, and is logged, so the Rust test can record it.
 */
async function discover<T>(scenario: string, command: string, args: Args): Promise<T> {
  const root = env.RECORD_DISCOVER_ROOT!;
  const fs = (await import(/* @vite-ignore */ "node:" + "fs")) as { appendFileSync(p: string, s: string): void };
  fs.appendFileSync(env.RECORD_DISCOVER_OUT!, JSON.stringify({ scenario, command, args }) + "\n");
  const res = await fetch(`${env.RECORD_DISCOVER_URL}/api/${command}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${env.RECORD_DISCOVER_TOKEN}` },
    body: JSON.stringify(args).split(RECORDED_ROOT).join(root),
  });
  const body = JSON.parse((await res.text()).split(root).join(RECORDED_ROOT));
  if (!res.ok) throw ApiError.from(body);
  return body as T;
}
