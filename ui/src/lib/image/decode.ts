// Session images (pi's `{type: "image", data: <base64>, mimeType}` blocks, pasted screenshots
// and tool results) decoded into blob: URLs for an <img>: only the types pi writes, at most
// MAX_BYTES decoded, and only when the bytes are what the type says. Nothing is ever inserted as
// HTML, and nothing remote is loaded (the CSP allows `img-src 'self' data: blob:`).

/** The image types pi writes. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** Decoded images above this are not shown (a note says so). */
export const MAX_BYTES = 10 * 1024 * 1024;

export type Decoded =
  | { ok: true; bytes: Uint8Array<ArrayBuffer>; type: ImageType; size: number }
  | { ok: false; why: string; type: string; size: number | null };

/** Bytes that a base64 text of `n` characters decodes to (padding and whitespace aside). */
export function decodedSize(b64: string): number {
  const s = b64.replace(/\s+/g, "");
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

function magic(bytes: Uint8Array, type: ImageType): boolean {
  const at = (i: number, ...b: number[]) => b.every((x, k) => bytes[i + k] === x);
  switch (type) {
    case "image/png":
      return at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
    case "image/jpeg":
      return at(0, 0xff, 0xd8, 0xff);
    case "image/gif":
      return at(0, 0x47, 0x49, 0x46, 0x38);
    case "image/webp":
      return at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50);
  }
}

/** Decodes an image block (untrusted), or says why it is not shown. */
export function decodeImage(block: { data?: unknown; mimeType?: unknown }, max = MAX_BYTES): Decoded {
  const type = typeof block.mimeType === "string" ? block.mimeType.toLowerCase() : "";
  if (!(IMAGE_TYPES as readonly string[]).includes(type)) return { ok: false, why: `not an image type pi writes (${type || "none"})`, type, size: null };
  if (typeof block.data !== "string" || !block.data) return { ok: false, why: "no image data", type, size: null };
  const size = decodedSize(block.data);
  if (size > max) return { ok: false, why: `too large to show (${bytesText(size)}; at most ${bytesText(max)})`, type, size };
  let bin: string;
  try {
    bin = atob(block.data.replace(/\s+/g, ""));
  } catch {
    return { ok: false, why: "broken base64: the data does not decode", type, size };
  }
  const bytes = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  if (!magic(bytes, type as ImageType)) return { ok: false, why: `the data is not a ${type.slice(6).toUpperCase()} image`, type, size: bytes.length };
  return { ok: true, bytes, type: type as ImageType, size: bytes.length };
}

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
