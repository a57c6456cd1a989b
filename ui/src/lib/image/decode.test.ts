import { describe, expect, it } from "vitest";
import { decodeImage, decodedSize } from "./decode";

// A 1×1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("decodeImage", () => {
  it("decodes a PNG pi wrote, with its type and size", () => {
    const d = decodeImage({ data: PNG, mimeType: "image/png" });
    expect(d.ok).toBe(true);
    if (d.ok) expect([d.type, d.size, d.bytes[1]]).toEqual(["image/png", 70, 0x50]);
    expect(decodedSize(PNG)).toBe(70);
  });
  it("refuses what pi does not write, broken base64, bytes of another type, and too much data", () => {
    expect(decodeImage({ data: PNG, mimeType: "image/svg+xml" })).toMatchObject({ ok: false, why: expect.stringContaining("not an image type") });
    expect(decodeImage({ data: "!!!notbase64", mimeType: "image/png" })).toMatchObject({ ok: false, why: expect.stringContaining("broken base64") });
    expect(decodeImage({ data: PNG, mimeType: "image/jpeg" })).toMatchObject({ ok: false, why: expect.stringContaining("not a JPEG") });
    expect(decodeImage({ data: PNG, mimeType: "image/png" }, 10)).toMatchObject({ ok: false, size: 70, why: expect.stringContaining("too large") });
    expect(decodeImage({ mimeType: "image/png" })).toMatchObject({ ok: false, why: "no image data" });
  });
});
