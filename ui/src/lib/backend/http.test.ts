// The HTTP transport's own logic: the token from the URL's fragment (then gone from the address
// bar, kept for reloads of the tab), the Bearer header on every call, and the event stream read
// with fetch() (parsing, reconnecting). The server itself is exercised in Chromium by
// tests/serve/run.mjs.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HttpBackend, SseParser, TOKEN_KEY, takeToken } from "./http";
import type { RootChanged } from "../bindings/RootChanged";

beforeEach(() => {
  window.sessionStorage.clear();
  window.history.replaceState(null, "", "/");
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("takeToken", () => {
  it("reads the fragment, removes it from the address bar and keeps it for a reload", () => {
    window.history.replaceState({ keep: 1 }, "", "/?q=1#token=abc123&view=tree");
    expect(takeToken()).toBe("abc123");
    expect(window.location.hash).toBe("#view=tree");
    expect(window.location.search).toBe("?q=1");
    expect(window.location.href).not.toContain("abc123");
    expect(window.history.state).toEqual({ keep: 1 });
    expect(window.sessionStorage.getItem(TOKEN_KEY)).toBe("abc123");
    // A reload: no fragment any more, the kept token.
    window.history.replaceState(null, "", "/");
    expect(takeToken()).toBe("abc123");
  });

  it("is null without a fragment or a kept token, and leaves the address alone", () => {
    window.history.replaceState(null, "", "/#view=tree");
    expect(takeToken()).toBeNull();
    expect(window.location.hash).toBe("#view=tree");
  });

  it("a new fragment replaces the kept token", () => {
    window.sessionStorage.setItem(TOKEN_KEY, "old");
    window.history.replaceState(null, "", "/#token=new");
    expect(takeToken()).toBe("new");
    expect(window.location.hash).toBe("");
    expect(window.sessionStorage.getItem(TOKEN_KEY)).toBe("new");
  });
});

describe("commands", () => {
  it("send the token as a Bearer header, the body as JSON, and no credentials", async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return new Response(JSON.stringify({ sessions: [], indexed: 0, total: 0 }), { status: 200 });
    });
    await new HttpBackend("http://127.0.0.1:1", "tok").listSessions(5);
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe("http://127.0.0.1:1/api/list_sessions");
    const h = seen[0].init.headers as Record<string, string>;
    expect(h.authorization).toBe("Bearer tok");
    expect(h["content-type"]).toBe("application/json");
    expect(seen[0].init.credentials).toBe("omit");
    expect(JSON.parse(seen[0].init.body as string)).toEqual({ limit: 5 });
  });

  it("reject with the server's {code, message}", async () => {
    vi.stubGlobal("fetch", async () => new Response(JSON.stringify({ code: "unauthorized", message: "no token" }), { status: 401 }));
    await expect(new HttpBackend("", null).appInfo()).rejects.toMatchObject({ code: "unauthorized", message: "no token" });
  });
});

describe("SseParser", () => {
  it("reads events split anywhere, with any line end, comments and several data lines", () => {
    const p = new SseParser();
    const text = ': keep-alive\n\nevent: root-changed\r\ndata: {"a":\ndata: 1}\r\rdata: plain\n\nevent: x\nid: 3\ndata:no-space\n\n';
    const got = [];
    for (let i = 0; i < text.length; i += 3) got.push(...p.push(text.slice(i, i + 3)));
    expect(got).toEqual([
      { event: "root-changed", data: '{"a":\n1}' },
      { event: "message", data: "plain" },
      { event: "x", data: "no-space" },
    ]);
  });
});

/** A response whose body streams `chunks`, then ends (or stays open). */
function streamed(chunks: string[], end = true): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      if (end) c.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

describe("live updates", () => {
  it("arrive over fetch() with the Bearer header, and the stream reconnects when it ends", async () => {
    vi.useFakeTimers();
    const calls: RequestInit[] = [];
    vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
      calls.push(init);
      const n = calls.length;
      return streamed([`event: root-changed\ndata: {"changed":["/s/${n}.jsonl"],"added":[],"removed":[]}\n\n`], n < 2);
    });
    const b = new HttpBackend("", "tok");
    const got: RootChanged[] = [];
    const off = b.onRootChanged((e) => got.push(e));
    await vi.advanceTimersByTimeAsync(10);
    expect(got.map((e) => e.changed[0])).toEqual(["/s/1.jsonl"]);
    expect((calls[0].headers as Record<string, string>).authorization).toBe("Bearer tok");
    // The first stream ended: a second connection after the retry delay.
    await vi.advanceTimersByTimeAsync(1100);
    expect(calls).toHaveLength(2);
    expect(got.map((e) => e.changed[0])).toEqual(["/s/1.jsonl", "/s/2.jsonl"]);
    off();
    expect((calls[1].signal as AbortSignal).aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(20000);
    expect(calls).toHaveLength(2);
  });

  it("a refused stream is not retried", async () => {
    vi.useFakeTimers();
    let n = 0;
    vi.stubGlobal("fetch", async () => {
      n++;
      return new Response(JSON.stringify({ code: "unauthorized", message: "" }), { status: 401 });
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const off = new HttpBackend("", null).onIndexProgress(() => {});
    await vi.advanceTimersByTimeAsync(20000);
    expect(n).toBe(1);
    expect(warn).toHaveBeenCalled();
    off();
  });
});
