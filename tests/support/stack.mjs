// What every node suite that drives build/duepay against the dev stack (var/dev.env) needs: the
// binary, the environment and whether it is a dev stack's, subprocesses whose stderr is kept for
// failure messages and which stopChildren() ends, and a free loopback port. Used by
// tests/integration/merchant/support.mjs, tests/integration/webhooks/webhooks.test.mjs,
// tests/integration/chain/chain.test.mjs, tests/e2e/checkout.test.mjs,
// tests/e2e/dashboard.test.mjs and tests/e2e/dashboard_webhooks.test.mjs (whose browser helpers
// are tests/support/dashboard_browser.mjs). Every wait is bounded.
import http from "node:http";
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";

export const run = promisify(execFile);
export const env = process.env;
export const BIN = env.DUEPAY_BIN || "build/duepay";
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The `skip` of a node:test suite: false when every variable of `required` is set, else why not.
export function stackSkip(required) {
  const missing = required.filter((k) => !env[k]);
  return missing.length ? `dev stack environment absent (${missing.join(", ")}): source var/dev.env` : false;
}

// Every child start() started, in order.
export const children = [];

// Runs `duepay <args>` with the environment plus `extraEnv`; its stderr is kept in child.logs
// (the last 100-200 kB, or all of it with `keepAll` when a test looks for an early line).
export function start(args, name, extraEnv = {}, { keepAll = false } = {}) {
  const child = spawn(BIN, args, { env: { ...env, ...extraEnv }, stdio: ["ignore", "ignore", "pipe"] });
  child.logs = "";
  child.stderr.on("data", (d) => {
    child.logs += d.toString();
    if (!keepAll && child.logs.length > 200000) child.logs = child.logs.slice(-100000);
  });
  child.name = name;
  children.push(child);
  return child;
}

// `duepay chainwatch --chain <chain>` started, once it has caught up with the chain or stands by
// for another leader (60 s at most); `options` as start()'s.
export async function startChainwatch(chain, options = {}) {
  const child = start(["chainwatch", "--chain", String(chain)], "chainwatch", {}, options);
  const until = Date.now() + 60000;
  while (Date.now() < until) {
    if (/caught up/.test(child.logs) || /standby/.test(child.logs)) return child;
    if (child.exitCode !== null) throw new Error(`chainwatch exited: ${child.logs}`);
    await sleep(200);
  }
  throw new Error(`chainwatch did not start: ${child.logs}`);
}

// SIGTERM to every running child, up to `graceMs` for them to exit, then SIGKILL to the rest.
export async function stopChildren(graceMs = 5000) {
  const running = (c) => c.exitCode === null && c.signalCode === null;
  for (const c of children) if (running(c)) c.kill("SIGTERM");
  const until = Date.now() + graceMs;
  while (Date.now() < until && children.some(running)) await sleep(100);
  for (const c of children) if (running(c)) c.kill("SIGKILL");
}

// `pred()` polled every 100 ms until it gives a truthy value, which is returned; after `timeoutMs`
// an error naming `what`, with `context()` (e.g. a role's last log lines) appended.
export async function waitUntil(pred, what, timeoutMs = 30000, context = () => "") {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const v = await pred();
    if (v) return v;
    await sleep(100);
  }
  throw new Error(`no ${what} within ${timeoutMs} ms\n${context()}`);
}

export async function freePort() {
  const srv = http.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}
