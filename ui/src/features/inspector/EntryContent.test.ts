import { describe, expect, it } from "vitest";
import { render } from "@testing-library/svelte";
import EntryContent from "./EntryContent.svelte";

const evil = '<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>';

function inert(root: Element) {
  expect(root.querySelectorAll("script, img, iframe, a, object, embed").length).toBe(0);
  for (const el of root.querySelectorAll("*")) for (const a of el.attributes) expect(a.name.startsWith("on")).toBe(false);
}

describe("entry content", () => {
  it("renders untrusted user, assistant, tool and unknown entries as text", () => {
    const entries = [
      { type: "message", message: { role: "user", content: `hi ${evil}` } },
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: evil }, { type: "thinking", thinking: evil }, { type: "toolCall", id: "t", name: "bash", arguments: { command: evil } }] } },
      { type: "message", message: { role: "toolResult", toolName: "read", toolCallId: "t", content: [{ type: "text", text: evil }], isError: false } },
      { type: "message", message: { role: "bashExecution", command: evil, output: evil, exitCode: 1 } },
      { type: "compaction", summary: evil, firstKeptEntryId: "abc", tokensBefore: 10 },
      { type: "whatever-new", payload: evil },
    ];
    for (const raw of entries) {
      const { container, unmount } = render(EntryContent, { props: { raw } });
      inert(container);
      expect(container.textContent).toContain("<script>alert(1)</script>");
      unmount();
    }
  });

  it("renders pi 1.x system messages, usage entries and context edits as distinct, inert nodes", () => {
    const usage = { input: 10, output: 5, cacheRead: 2, cacheWrite: 1, totalTokens: 18, cost: { total: 0.5 } };
    const cases: [unknown, string][] = [
      [{ type: "message", message: { role: "system", content: evil, sections: { tools: evil }, toolsAdded: ["read"] } }, "system-message"],
      [{ type: "usage", kind: "title", provider: "p", model: "m", usage, note: evil }, "usage-entry"],
      [{ type: "context_edit", targetId: "abc", replacement: { content: evil } }, "context-edit"],
      [{ type: "context_edit", targetId: "abc", replacement: { content: [{ type: "text", text: evil }] } }, "context-edit"],
      [{ type: "compaction", summary: "s", firstKeptEntryId: "c", tokensBefore: 1, systemMessage: { role: "system", content: evil }, usage }, "compaction-system"],
    ];
    for (const [raw, testid] of cases) {
      const { container, unmount } = render(EntryContent, { props: { raw } });
      inert(container);
      expect(container.querySelector(`[data-testid="${testid}"]`)).not.toBeNull();
      expect(container.textContent).toContain("<script>alert(1)</script>");
      unmount();
    }
    const { container } = render(EntryContent, { props: { raw: { type: "context_edit", targetId: "abc", replacement: null } } });
    expect(container.textContent).toContain("drops");
    expect(container.textContent).not.toContain("replaces");
  });

  it("folds thinking and tool calls with a one-line summary", () => {
    const { container } = render(EntryContent, {
      props: { raw: { type: "message", message: { role: "assistant", content: [{ type: "thinking", thinking: "hmm" }, { type: "toolCall", id: "1", name: "read", arguments: { path: "src/x.ts" } }] } } },
    });
    const details = container.querySelectorAll("details");
    expect(details).toHaveLength(2);
    expect([...details].every((d) => !d.open)).toBe(true);
    expect(details[1].querySelector("summary")?.textContent).toContain("read src/x.ts");
  });
});
