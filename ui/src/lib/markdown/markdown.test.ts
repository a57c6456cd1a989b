import { describe, expect, it } from "vitest";
import { render } from "@testing-library/svelte";
import Markdown from "./Markdown.svelte";
import { decodeEntities, isSafeHref, parseMarkdown } from "./parse";

function renderMd(source: string) {
  const { container } = render(Markdown, { props: { source } });
  return container;
}

/** No element that can run or load anything, and no event-handler attribute anywhere. */
function assertInert(root: Element) {
  expect(root.querySelectorAll("script, img, iframe, object, embed, style, link, svg, video, audio, form").length).toBe(0);
  for (const el of root.querySelectorAll("*")) {
    for (const a of el.attributes) {
      expect(a.name.startsWith("on"), `${el.tagName} has ${a.name}`).toBe(false);
      expect(/javascript:/i.test(a.value) && a.name !== "title", `${el.tagName} ${a.name}=${a.value}`).toBe(false);
    }
  }
  expect(root.querySelectorAll("a").length).toBe(0);
}

describe("safe Markdown", () => {
  it("renders formatting as elements", () => {
    const c = renderMd("Some **bold**, *em*, `code` and\n\n```ts\nconst a = 1 < 2;\n```\n\n- one\n- two");
    expect(c.querySelector("strong")?.textContent).toBe("bold");
    expect(c.querySelector("em")?.textContent).toBe("em");
    expect(c.querySelector("p code")?.textContent).toBe("code");
    expect(c.querySelector("pre code")?.textContent).toBe("const a = 1 < 2;");
    expect(c.querySelectorAll("li").length).toBe(2);
  });

  it("shows <script> blocks as literal text", () => {
    const c = renderMd("before\n\n<script>alert('x')</script>\n\nafter");
    assertInert(c);
    expect(c.textContent).toContain("<script>alert('x')</script>");
  });

  it("shows <img onerror> as literal text", () => {
    const c = renderMd("look <img src=x onerror=alert(1)> here");
    assertInert(c);
    expect(c.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("never makes javascript: links clickable", () => {
    const c = renderMd("[click me](javascript:alert(document.cookie)) and [ok](https://example.com)");
    assertInert(c);
    expect(c.textContent).toContain("click me");
    expect(c.textContent).toContain("javascript:alert(document.cookie)");
    const unsafe = c.querySelector(".md-link.unsafe");
    expect(unsafe?.textContent).toBe("click me");
  });

  it("shows raw HTML blocks and inline HTML as text", () => {
    const c = renderMd('<div onclick="alert(2)" style="position:fixed">x</div>\n\ntext with <b onmouseover="x()">tags</b>');
    assertInert(c);
    expect(c.textContent).toContain('<div onclick="alert(2)" style="position:fixed">x</div>');
    expect(c.textContent).toContain('<b onmouseover="x()">');
    expect(c.querySelector("b")).toBeNull();
  });

  it("keeps markdown images as text and never loads them", () => {
    const c = renderMd("![pic](http://evil.example/x.png)");
    assertInert(c);
    expect(c.textContent).toContain("http://evil.example/x.png");
  });

  it("does not interpret entities as markup", () => {
    const c = renderMd("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#60;b&#62;");
    assertInert(c);
    expect(c.textContent).toContain("<script>alert(1)</script> & <b>");
    expect(c.querySelector("b")).toBeNull();
  });

  it("parses to plain data", () => {
    const blocks = parseMarkdown("# Title\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    expect(blocks.map((b) => b.k)).toEqual(["h", "quote", "table"]);
    expect(decodeEntities("&#x3C;&gt;&bogus;")).toBe("<>&bogus;");
    expect(isSafeHref("javascript:alert(1)")).toBe(false);
    expect(isSafeHref(" JaVaScRiPt:alert(1)")).toBe(false);
    expect(isSafeHref("data:text/html,x")).toBe(false);
    expect(isSafeHref("https://x.test")).toBe(true);
  });
});
