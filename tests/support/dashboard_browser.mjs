// What every Chromium suite of the merchant dashboard needs (tests/e2e/dashboard*.test.mjs): a
// `duepay dashboard` of its own on a free loopback port, a test wallet inside the page (an
// EIP-1193 provider announced over EIP-6963 and set as window.ethereum, whose signatures are made
// in node), sign-in, bounded clicks and waits, screenshots and axe-core. Debian's chromium only;
// nothing downloads a browser. Every wait is bounded.
import {getBytes, toUtf8String} from "ethers";
import assert from "node:assert/strict";
import {mkdirSync} from "node:fs";
import {createRequire} from "node:module";
import {join} from "node:path";
import puppeteer from "puppeteer-core";

import {env, freePort, sleep, start} from "./stack.mjs";

export const CHAIN = 80002;
export const CHROMIUM = env.DUEPAY_CHROMIUM || "/usr/bin/chromium";
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const SHOTS = env.DUEPAY_SCREENSHOT_DIR || join(env.DUEPAY_BUILD_DIR || "build", "e2e-screenshots");
export const DESKTOP = {width: 1280, height: 860, deviceScaleFactor: 1};
export const MOBILE = {width: 360, height: 780, deviceScaleFactor: 1};

// The browser every dashboard suite drives: headless, no sandbox (a container), English.
export function launchBrowser() {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--lang=en-US"
    ]
  });
}

export async function up(url) {
  try {
    const res = await fetch(url, {signal: AbortSignal.timeout(1000), redirect: "manual"});
    return res.status > 0;
  } catch {
    return false;
  }
}

export async function waitUp(url, what, child) {
  const until = Date.now() + 30000;
  while (!(await up(url))) {
    if (Date.now() > until) throw new Error(`${what} did not come up: ${child?.logs.slice(-2000)}`);
    if (child && child.exitCode !== null) throw new Error(`${what} exited: ${child.logs}`);
    await sleep(200);
  }
}

export async function startDashboard(name, extraEnv = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = start(
      ["dashboard", "--dashboard-listen", `127.0.0.1:${port}`], name,
      {DUEPAY_DASHBOARD_URL: url, DUEPAY_ACCESS_LOG: "0", ...extraEnv});
  await waitUp(`${url}/healthz`, name, child);
  return {url, child};
}

// The test wallet inside the page: an EIP-1193 provider whose every request is answered in node
// by `user.wallet`, announced over EIP-6963 and also set as window.ethereum. personal_sign
// records the text it signed in user.signed.
export async function installWallet(page, user) {
  await page.exposeFunction("__duepayWallet", async (method, params) => {
    const address = user.wallet.address;
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return {result: [address.toLowerCase()]};
      case "eth_chainId":
        return {result: "0x" + CHAIN.toString(16)};
      case "personal_sign": {
        const [hex, from] = params;
        if (String(from).toLowerCase() !== address.toLowerCase()) {
          return {error: {code: 4100, message: `not this wallet's account: ${from}`}};
        }
        const bytes = getBytes(hex);
        user.signed.push(toUtf8String(bytes));
        return {result: await user.wallet.signMessage(bytes)};
      }
      default:
        return {error: {code: 4200, message: `unsupported method ${method}`}};
    }
  });
  await page.evaluateOnNewDocument(() => {
    const provider = {
      async request({method, params}) {
        const answer = await window.__duepayWallet(method, params || []);
        if (answer.error) {
          const e = new Error(answer.error.message);
          e.code = answer.error.code;
          throw e;
        }
        return answer.result;
      },
      on() {},
      removeListener() {}
    };
    const info = {
      uuid: "6f1d3c8e-0d6b-4a53-9d0e-3f7f8d2b1a01",
      name: "duepay test wallet",
      icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E",
      rdns: "test.duepay.wallet"
    };
    const announce = () => window.dispatchEvent(new CustomEvent(
        "eip6963:announceProvider", {detail: Object.freeze({info, provider})}));
    window.addEventListener("eip6963:requestProvider", announce);
    window.ethereum = provider;
  });
}

// A page in `context` at desktop size that keeps the console errors and page errors it saw.
export async function openPage(context, user, {bypassCsp = false} = {}) {
  const page = await context.newPage();
  await page.setViewport(DESKTOP);
  page.consoleErrors = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !/favicon/.test(m.location()?.url || "")) {
      page.consoleErrors.push(m.text());
    }
  });
  page.on("pageerror", (e) => page.consoleErrors.push(String(e)));
  if (bypassCsp) await page.setBypassCSP(true);
  if (user) await installWallet(page, user);
  return page;
}

export async function text(page, sel) {
  return page.$eval(sel, (el) => el.textContent.trim());
}

export function path(page) {
  return new URL(page.url()).pathname;
}

// Clicks `sel` and waits for the navigation it causes; the page's own status line explains a
// navigation that never comes.
export async function clickAndWait(page, sel, statusSel) {
  try {
    const [resp] = await Promise.all([
      page.waitForNavigation({timeout: 30000, waitUntil: "load"}), page.click(sel)
    ]);
    return resp;
  } catch (e) {
    const status = statusSel ? await text(page, statusSel).catch(() => "?") : "";
    throw new Error(`${sel}: no navigation (${e.message}); page says: ${status}; console: ${
        page.consoleErrors.join(" | ")}`);
  }
}

// Signs `user` in at `base` in `page`: the sign-in page, its button, the wallet's signature, and
// the redirect to /projects.
export async function signIn(page, base) {
  await page.goto(`${base}/sign-in`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=sign-in]", "[data-test=sign-in-status]");
  assert.equal(page.url(), `${base}/projects`);
}

export async function sessionCookie(page, base) {
  return (await page.cookies(base)).find((c) => c.name === "duepay_session");
}

// The names of the projects the signed-in user of `page` sees on /projects.
export async function projectNames(page, base) {
  await page.goto(`${base}/projects`, {waitUntil: "load"});
  assert.equal(path(page), "/projects");
  return page.$$eval("table[data-test=projects] tbody tr td:first-child", (tds) =>
      tds.map((td) => td.textContent.trim()));
}

export async function createCharge(apiKey) {
  const res = await fetch(env.DUEPAY_BASE_URL + "/v1/invoices", {
    method: "POST",
    headers: {"x-api-key": apiKey, "content-type": "application/json"},
    body: JSON.stringify({chainId: CHAIN, amount: "1000000"})
  });
  return {status: res.status, body: await res.json()};
}

export async function shot(page, name, {mobile = false} = {}) {
  mkdirSync(SHOTS, {recursive: true});
  const sizes = [["desktop", DESKTOP], ...(mobile ? [["360", MOBILE]] : [])];
  for (const [label, vp] of sizes) {
    await page.setViewport(vp);
    await page.screenshot({path: join(SHOTS, `dashboard-${name}-${label}.png`), fullPage: true});
  }
  await page.setViewport(DESKTOP);
}

// axe-core on the page as it is: the violations of impact serious or critical (none expected).
export async function axe(page) {
  await page.addScriptTag({path: AXE});
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, {resultTypes: ["violations"]});
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + n.failureSummary)
    }));
  });
  return result;
}

export function grave(violations) {
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

