// `npm run dev`: the UI from Vite (hot reload) against the real core — `pi-session serve` on the
// demo sessions (read-only), with Vite proxying `/api` to it and adding the token.
//   PI_SESSION_BIN   the pi-session binary (default: ../target/debug/pi-session, built if missing)
//   PI_SESSIONS_DIR  the sessions root (default: ../demo/sessions)
//   PI_SERVE_ARGS    more arguments for `pi-session serve` (e.g. "--allow-writes" on a copy)
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createServer } from "vite";

const ui = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(ui, "..");
const bin = process.env.PI_SESSION_BIN ?? resolve(repo, "target/debug/pi-session");
const sessions = process.env.PI_SESSIONS_DIR ?? resolve(repo, "demo/sessions");

if (!process.env.PI_SESSION_BIN && !existsSync(bin)) {
  console.log("building pi-session (debug) …");
  const r = spawnSync("cargo", ["build", "-p", "pi-session-cli"], { cwd: repo, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const extra = (process.env.PI_SERVE_ARGS ?? "").split(/\s+/).filter(Boolean);
const server = spawn(bin, ["serve", "--sessions-dir", sessions, "--listen", "127.0.0.1:0", ...extra], { stdio: ["ignore", "pipe", "inherit"] });
const stop = () => server.kill("SIGTERM");
process.on("exit", stop);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
server.on("exit", (code) => {
  console.error(`pi-session serve exited (${code})`);
  process.exit(code ?? 1);
});

const url = await new Promise((ok) => createInterface({ input: server.stdout }).once("line", ok));
// The token is in the URL's fragment.
const { origin, hash } = new URL(url);
const token = new URLSearchParams(hash.slice(1)).get("token");

const vite = await createServer({
  root: ui,
  server: {
    proxy: {
      // The proxy adds the token; the page's Origin (Vite's) is not the server's, which refuses
      // other origins, so it is dropped on the way.
      "/api": {
        target: origin,
        changeOrigin: true,
        headers: { Authorization: `Bearer ${token}` },
        configure: (proxy) => proxy.on("proxyReq", (req) => req.removeHeader("origin")),
      },
    },
  },
});
await vite.listen();
vite.printUrls();
console.log(`  ➜  API:     ${origin} (pi-session serve on ${sessions})`);
