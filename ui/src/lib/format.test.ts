import { describe, expect, it } from "vitest";
import { fileTag } from "./format";

describe("fileTag", () => {
  it("keeps a short name whole, without .jsonl", () => {
    expect(fileTag("/r/--p--/notes.jsonl")).toBe("notes");
  });
  it("cuts pi's long names in the middle, keeping the time and the end of the uuid", () => {
    const a = fileTag("/r/--p--/2026-03-02T22-59-24-626Z_019cb0c7-1b52-7122-a36e-20a83636094f.jsonl");
    const b = fileTag("/r/--p--/2026-03-02T22-59-24-626Z_019cb0c7-1b52-7122-a36e-20a836aa1234.jsonl");
    expect(a).toBe("2026-03-02T22-59…36094f");
    expect(a).not.toBe(b);
    expect(a.length).toBeLessThanOrEqual(23);
  });
});

describe("tokens", () => {
  it("k, M, B suffixes: 28104.8 million tokens read 28.1B", async () => {
    const { tokens } = await import("./format");
    expect([tokens(950), tokens(12_300), tokens(11_800_000), tokens(28_104_800_000)]).toEqual(["950", "12.3k", "11.8M", "28.1B"]);
  });
});
