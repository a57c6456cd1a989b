import "./app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { createBackend } from "./lib/backend";
import { FIRST_SCREEN, startFromHash, type Boot } from "./lib/state/app.svelte";
import { theme } from "./lib/state/theme.svelte";
import { perfHook } from "./lib/perf";

theme.init();
perfHook();

const target = document.getElementById("app")!;
createBackend()
  .then((backend) => {
    // Ask for the session list at once, while the components mount.
    // The most recent sessions first (a big root lists thousands); all of them right after.
    const boot: Boot = { info: backend.appInfo(), list: backend.listSessions(FIRST_SCREEN), start: startFromHash(location.hash) };
    boot.info.catch(() => {});
    boot.list.catch(() => {});
    return mount(App, { target, props: { backend, boot } });
  })
  .catch((e) => {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = `Could not start: ${e instanceof Error ? e.message : String(e)}`;
    target.replaceChildren(p);
  });
