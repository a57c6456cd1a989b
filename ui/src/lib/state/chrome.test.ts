import { afterEach, describe, expect, it } from "vitest";
import { RecordedBackend } from "../backend/recorded";
import { ChromeState, Panes } from "./chrome.svelte";

afterEach(() => localStorage.clear());

describe("chrome", () => {
  it("remembers the panes' widths in this window's storage", () => {
    const a = new Panes();
    expect([a.side, a.inspector]).toEqual([340, 320]); // jsdom's window is narrower than 1400 px
    a.side = 280;
    a.inspector = 500;
    const b = new Panes();
    expect([b.side, b.inspector]).toEqual([280, 500]);
    localStorage.setItem("pi-explorer.sideW", "not a width");
    expect(new Panes().side).toBe(340);
  });

  it("says read-only from the app's info, and an error as a toast with its code", () => {
    const chrome = new ChromeState(new RecordedBackend("start"));
    expect(chrome.readOnly).toBe(false);
    chrome.error({ code: "busy", message: "pi is writing" }, "Label failed");
    expect(chrome.toasts.items.map((t) => [t.kind, t.message, t.detail])).toEqual([["error", "Label failed: pi is writing", "busy"]]);
  });
});
