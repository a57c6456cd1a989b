// An export, from the ask to the file: in the window the user names the file first (the export
// dialog) and the toast then offers to open it, show it in its folder or copy its path; served in
// a browser, the export is a download (the server writes nothing on its machine).

import { ApiError } from "../../lib/backend";
import { bytes } from "../../lib/format";
import { copyText } from "../../lib/clipboard";
import type { ChromeState, ExportAsk } from "../../lib/state/chrome.svelte";

/** Starts an export: the dialog in the window, the download in a browser. */
export async function startExport(chrome: ChromeState, ask: ExportAsk): Promise<void> {
  if (chrome.backend.kind !== "http") {
    chrome.exportAsk = ask;
    return;
  }
  try {
    const r = await chrome.backend.exportSession(ask.path, ask.leafId, ask.tree, ask.format, null, null);
    download(r.out, r.text ?? "", ask.format === "html" ? "text/html" : "text/markdown");
    chrome.toasts.show("success", `Downloaded ${r.out} (${bytes(r.bytes)}): your browser saved it where it saves downloads`, undefined, 6000);
  } catch (e) {
    chrome.error(e, "Export failed");
  }
}

/** Hands `text` to the browser as a download named `name`. */
export function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Writes the export where the dialog says; answers an error message, or null when written. */
export async function exportNow(chrome: ChromeState, ask: ExportAsk, out: string, replace: boolean): Promise<string | null> {
  try {
    const r = await chrome.backend.exportSession(ask.path, ask.leafId, ask.tree, ask.format, out.trim(), replace);
    const file = r.out;
    chrome.toasts.rich("success", `Exported ${bytes(r.bytes)} to`, {
      code: file,
      ms: 20000,
      actions: [
        { label: "Open", testid: "toast-export-open", run: () => opened(chrome, chrome.backend.openExport(file, false)) },
        { label: "Reveal", testid: "toast-export-reveal", run: () => opened(chrome, chrome.backend.openExport(file, true)) },
        { label: "Copy path", testid: "toast-export-copy", run: () => copyText(file) },
      ],
    });
    return null;
  } catch (e) {
    return ApiError.from(e).message;
  }
}

async function opened(chrome: ChromeState, p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    chrome.error(e, "Could not open it");
  }
}
