import { describe, expect, it } from "vitest";
import { baseName, describeLine, resumeCommand, shellQuote } from "./writeText";

describe("write toasts", () => {
  it("quotes paths for the shell only when needed", () => {
    expect(shellQuote("/home/a/s.jsonl")).toBe("/home/a/s.jsonl");
    expect(shellQuote("/home/a/My Projects/s.jsonl")).toBe("'/home/a/My Projects/s.jsonl'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("$(rm -rf ~)")).toBe("'$(rm -rf ~)'");
  });
  it("names the command that resumes a fork in pi", () => {
    expect(resumeCommand("/s/--home-x--/2026_abc.jsonl")).toBe("pi --session /s/--home-x--/2026_abc.jsonl");
  });
  it("names files and lines", () => {
    expect(baseName("/a/b/c.jsonl")).toBe("c.jsonl");
    expect(baseName("C:\\a\\c.jsonl")).toBe("c.jsonl");
    expect(describeLine('{"type":"leaf","id":"x","targetId":"ab12"}')).toBe("a leaf line → ab12");
    expect(describeLine('{"type":"label","targetId":"ab12","label":"here"}')).toBe("a label line “here” → ab12");
    expect(describeLine('{"type":"label","targetId":"ab12","label":null}')).toBe("a label line clearing ab12");
    expect(describeLine("not json")).toBe("a line");
  });
});

describe("finding your way", () => {
  it("shows the time and the relative time in the list", async () => {
    const { listWhen } = await import("./writeText");
    const { relativeTime } = await import("../../lib/format");
    const now = Date.UTC(2026, 2, 2, 20, 0, 0);
    const t = Date.UTC(2026, 2, 2, 17, 30, 0);
    const s = listWhen(t, now, relativeTime);
    expect(s).toMatch(/^Mar 2, \d\d:30 · 2h ago$/);
    // Older than a week: the relative part would repeat the date, so only the date and time.
    expect(listWhen(Date.UTC(2026, 0, 5, 9, 5), now, relativeTime)).toMatch(/^Jan 5, \d\d:05$/);
    expect(listWhen(null, now, relativeTime)).toBe("");
  });
  it("starts on the most recent session", async () => {
    const { mostRecent } = await import("./writeText");
    expect(mostRecent([{ modified: 1, p: "a" }, { modified: 9, p: "b" }, { modified: null, p: "c" }])?.p).toBe("b");
    expect(mostRecent([])).toBeUndefined();
    // An empty file, however new, is not where the app starts; with nothing else, it is.
    expect(mostRecent([{ modified: 1, p: "a", hasEntries: true }, { modified: 9, p: "empty", hasEntries: false }])?.p).toBe("a");
    expect(mostRecent([{ modified: 9, p: "empty", hasEntries: false }])?.p).toBe("empty");
  });
});
