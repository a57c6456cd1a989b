import { describe, expect, it } from "vitest";
import { RecordedBackend } from "../backend/recorded";
import { AppState, FIRST_SCREEN, startFromHash } from "./app.svelte";

// Answers recorded from the real core over demo/sessions; a session that is not the most recent:
const OLDER = "2026-03-02T18-51-27-978Z";

describe("the session named at start", () => {
  it("is read from the URL's fragment, as /explore writes it", () => {
    expect(startFromHash("#token=abc&session=%2Fs%2Fa%20b.jsonl&entry=4c1d02aa")).toEqual({ session: "/s/a b.jsonl", entry: "4c1d02aa" });
    expect(startFromHash("#session=/s/a.jsonl")).toEqual({ session: "/s/a.jsonl", entry: null });
    expect(startFromHash("#token=abc")).toBeNull();
    expect(startFromHash("")).toBeNull();
  });

  it("opens that session with that entry selected, not the most recent", async () => {
    const probe = new AppState(new RecordedBackend("start"));
    await probe.init();
    const s = probe.session.list!.sessions.find((x) => x.path.includes(OLDER))!;
    expect(probe.session.openPath).not.toBe(s.path);
    await probe.session.open(s.path);
    expect(probe.selection.row).toBe(probe.session.tree.meta!.leafRow);
    const first = probe.session.tree.row(0)!;
    expect(first.id).not.toBe(probe.selection.current!.id);

    const backend = new RecordedBackend("start");
    const app = new AppState(backend);
    await app.init({ info: backend.appInfo(), list: backend.listSessions(FIRST_SCREEN), start: { session: s.path, entry: first.id } });
    expect(app.session.openPath).toBe(s.path);
    expect(app.selection.current?.id).toBe(first.id);
    expect(app.selection.row).toBe(0);
  });
});
