import "./app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { createBackend } from "./lib/backend";
import { FIRST_SCREEN, type Boot } from "./lib/state/app.svelte";
import { theme } from "./lib/state/theme.svelte";
import { perfHook } from "./lib/perf";

theme.init();
perfHook();

const target = document.getElementById("app")!;
const BOOT_WAIT_MS = 150;
createBackend()
  .then((backend) => {
    // Ask for the session list at once, while the components mount.
    // The most recent sessions first (a big root lists thousands); all of them right after.
    const boot: Boot = { info: backend.appInfo(), list: backend.listSessions(FIRST_SCREEN) };
    boot.info.catch(() => {});
    boot.list.catch(() => {});
    // The app builds the listing while the window starts, so it is usually there at once: wait
    // a moment for it, and the first layout already holds the sessions. A slow one (a first
    // start on a big root) arrives after the window has drawn.
    const both = Promise.all([boot.info, boot.list]).then(([info, list]) => ({ info, list }));
    const moment = new Promise<null>((r) => setTimeout(() => r(null), BOOT_WAIT_MS));
    return Promise.race([both, moment])
      .catch(() => null)
      .then((ready) => {
        if (ready) boot.ready = ready;
        return mount(App, { target, props: { backend, boot } });
      });
  })
  .catch((e) => {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = `Could not start: ${e instanceof Error ? e.message : String(e)}`;
    target.replaceChildren(p);
  });
