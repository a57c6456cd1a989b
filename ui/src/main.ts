import "./app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { createBackend } from "./lib/backend";
import { theme } from "./lib/state/theme.svelte";
import { perfHook } from "./lib/perf";

theme.init();
perfHook();

const target = document.getElementById("app")!;
createBackend()
  .then((backend) => mount(App, { target, props: { backend } }))
  .catch((e) => {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = `Could not start: ${e instanceof Error ? e.message : String(e)}`;
    target.replaceChildren(p);
  });
