// Test environment shims (jsdom lacks a few browser APIs the views use).
class RO {
  observe() {}
  unobserve() {}
  disconnect() {}
}
const g = globalThis as unknown as Record<string, unknown>;
if (!g.ResizeObserver) g.ResizeObserver = RO;
if (!g.matchMedia) {
  g.matchMedia = (q: string) => ({
    matches: false,
    media: q,
    addEventListener() {},
    removeEventListener() {},
    addListener() {},
    removeListener() {},
    onchange: null,
    dispatchEvent: () => false,
  });
}
if (!Element.prototype.scrollIntoView) Element.prototype.scrollIntoView = function () {};
