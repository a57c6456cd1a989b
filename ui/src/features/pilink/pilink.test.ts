import { describe, expect, it } from "vitest";
import { answerText } from "./pilink.svelte";

const pi = { pid: 42, piVersion: "1.6.0", error: null } as const;

describe("a pi's answer to an offer", () => {
  it("says where pi went, or why it stayed", () => {
    expect(answerText({ ...pi, answer: { answer: "accepted", summarize: false, moved: { sessionFile: "/s.jsonl", leafId: "a1" } } })).toEqual({ kind: "success", text: "pi 1.6.0 (pid 42) moved there" });
    expect(answerText({ ...pi, answer: { answer: "accepted", summarize: true, moved: null } }).kind).toBe("info");
    expect(answerText({ ...pi, answer: { answer: "declined" } }).text).toContain("declined");
    expect(answerText({ ...pi, answer: { answer: "timed-out" } }).text).toContain("did not answer");
    expect(answerText({ ...pi, answer: { answer: "failed", message: "busy compacting" } })).toEqual({ kind: "warning", text: "pi 1.6.0 (pid 42) could not move: busy compacting" });
    expect(answerText({ pid: 7, piVersion: "0.73.1", answer: null, error: { code: "pi-link", message: "socket gone" } }).kind).toBe("error");
  });
});
