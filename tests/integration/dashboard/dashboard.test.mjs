// The merchant dashboard against the real stack (var/dev.env): `duepay dashboard` and `duepay api`
// started here on free loopback ports, Postgres holding sessions, members, keys and the audit
// trail. Users are fresh ethers wallets that sign for real (EIP-191). Covers what the browser test
// does not: each refused sign-in on the real store, the npm `siwe` package reading our messages,
// the role table and a stranger's 404 against Postgres, CSRF, idle expiry and sign-out, and a key
// made in the dashboard creating a charge over REST. Every wait is bounded.
import assert from "node:assert/strict";
import {execFile} from "node:child_process";
import {promisify} from "node:util";
import {after, before, test} from "node:test";
import {Wallet} from "ethers";
import {SiweMessage} from "siwe";

import {env, freePort, sleep, stackSkip, start, stopChildren} from "../../support/stack.mjs";

const execFileP = promisify(execFile);

const skip = stackSkip(["DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE", "DUEPAY_SIGNER_KEY"]);
const IDLE_SECONDS = 3;
let origin;
let idleOrigin;  // a second dashboard whose sessions idle out after IDLE_SECONDS
let api;

async function waitHealthy(url, child) {
  const until = Date.now() + 30000;
  while (Date.now() < until) {
    try {
      if ((await fetch(url + "/healthz")).ok) return;
    } catch {}
    if (child.exitCode !== null) throw new Error(`${child.name} exited: ${child.logs}`);
    await sleep(100);
  }
  throw new Error(`${url} did not answer: ${child.logs}`);
}

before(async () => {
  if (skip) return;
  const dashPort = await freePort();
  origin = `http://127.0.0.1:${dashPort}`;
  const dash = start(["dashboard", "--dashboard-listen", `127.0.0.1:${dashPort}`], "dashboard",
                     {DUEPAY_DASHBOARD_URL: origin});
  const idlePort = await freePort();
  idleOrigin = `http://127.0.0.1:${idlePort}`;
  const idleDash = start(["dashboard", "--dashboard-listen", `127.0.0.1:${idlePort}`], "dashboard-idle",
                         {DUEPAY_DASHBOARD_URL: idleOrigin,
                          DUEPAY_DASHBOARD_IDLE_SECONDS: String(IDLE_SECONDS)});
  const apiPort = await freePort();
  api = `http://127.0.0.1:${apiPort}`;
  const apiChild = start(["api", "--listen", `127.0.0.1:${apiPort}`], "api", {DUEPAY_BASE_URL: api});
  await waitHealthy(origin, dash);
  await waitHealthy(idleOrigin, idleDash);
  await waitHealthy(api, apiChild);
});
after(async () => { await stopChildren(); });

// A browser's view of the dashboard for one wallet: its cookie and the page's CSRF token.
class User {
  constructor(site = origin) {
    this.wallet = Wallet.createRandom();
    this.site = site;
    this.cookie = "";
  }
  get address() { return this.wallet.address; }
  async fetch(path, {method = "GET", form, json, headers = {}, csrf = true, from = this.site} = {}) {
    const h = {...headers};
    if (this.cookie) h.cookie = this.cookie;
    let body;
    if (form !== undefined) {
      const params = new URLSearchParams(form);
      if (csrf && this.csrf) params.set("csrf", this.csrf);
      body = params.toString();
      h["content-type"] = "application/x-www-form-urlencoded";
    } else if (json !== undefined) {
      body = JSON.stringify(json);
      h["content-type"] = "application/json";
      if (csrf && this.csrf) h["x-csrf-token"] = this.csrf;
    }
    if (method !== "GET" && from) h.origin = from;
    const res = await fetch(this.site + path, {method, headers: h, body, redirect: "manual"});
    const text = await res.text();
    return {status: res.status, headers: res.headers, text, json: () => JSON.parse(text)};
  }
  async message(params = "") {
    const r = await this.fetch(`/auth/siwe/nonce?address=${this.address}&chainId=80002${params}`);
    assert.equal(r.status, 200, r.text);
    return r.json().data.message;
  }
  async post(message, signature, from = this.site) {
    return this.fetch("/auth/siwe", {method: "POST", json: {message, signature}, csrf: false, from});
  }
  async signIn() {
    const message = await this.message();
    const r = await this.post(message, await this.wallet.signMessage(message));
    assert.equal(r.status, 200, r.text);
    this.cookie = r.headers.get("set-cookie").split(";")[0];
    const page = await this.fetch("/projects");
    assert.equal(page.status, 200);
    this.csrf = /<meta name="csrf-token" content="([0-9a-f]+)">/.exec(page.text)[1];
    return r;
  }
  async createProject(name) {
    const r = await this.fetch("/projects", {method: "POST", form: {name}});
    assert.equal(r.status, 303, r.text);
    return r.headers.get("location").slice(3);  // /p/<id>
  }
}

const code = (r) => JSON.parse(r.text).meta?.code;

test("our sign-in message reads the same in the npm siwe package", {skip}, async () => {
  const u = new User();
  const text = await u.message();
  const m = new SiweMessage(text);
  assert.equal(m.domain, origin.slice("http://".length));
  assert.equal(m.uri, origin);
  assert.equal(m.address, u.address);
  assert.equal(m.chainId, 80002);
  assert.equal(m.version, "1");
  assert.match(m.nonce, /^[0-9a-f]{32}$/);
  const issued = Date.parse(m.issuedAt);
  assert.ok(Math.abs(Date.now() - issued) < 60000, m.issuedAt);
  assert.equal(Date.parse(m.expirationTime) - issued, 300000);
  assert.equal(m.prepareMessage(), text);  // the package writes back exactly what we sent
  // And one it builds itself is accepted by our parser (with a nonce we issued).
  const own = new SiweMessage({domain: m.domain, address: u.address, statement: "Sign in to the duepay dashboard.",
                               uri: origin, version: "1", chainId: 1, nonce: m.nonce,
                               issuedAt: new Date().toISOString(),
                               expirationTime: new Date(Date.now() + 60000).toISOString()});
  const built = own.prepareMessage();
  const r = await u.post(built, await u.wallet.signMessage(built));
  assert.equal(r.status, 200, r.text);
});

test("each refused sign-in is a clear error and opens nothing", {skip}, async () => {
  const u = new User();
  const text = await u.message();
  const signature = await u.wallet.signMessage(text);
  assert.equal((await u.post(text, signature)).status, 200);
  const reused = await u.post(text, signature);
  assert.equal(reused.status, 401);
  assert.equal(code(reused), "siwe_nonce_used");
  assert.equal(reused.headers.get("set-cookie"), null);

  const text2 = await u.message();
  const bad = await u.post(text2, await Wallet.createRandom().signMessage(text2));
  assert.equal(bad.status, 401);
  assert.equal(code(bad), "siwe_invalid_signature");

  const other = new SiweMessage(await u.message());
  other.domain = "dashboard.evil.example";
  const elsewhere = other.prepareMessage();
  const wrong = await u.post(elsewhere, await u.wallet.signMessage(elsewhere));
  assert.equal(wrong.status, 401);
  assert.equal(code(wrong), "siwe_wrong_domain");

  const old = new SiweMessage(await u.message());
  old.issuedAt = new Date(Date.now() - 120000).toISOString();
  old.expirationTime = new Date(Date.now() - 60000).toISOString();
  const late = old.prepareMessage();
  const expired = await u.post(late, await u.wallet.signMessage(late));
  assert.equal(expired.status, 401);
  assert.equal(code(expired), "siwe_expired");

  const text3 = await u.message();
  const cross = await u.post(text3, await u.wallet.signMessage(text3), "https://evil.example");
  assert.equal(cross.status, 403);
  assert.equal(code(cross), "cross_site_request");
  // The nonce the cross-site attempt carried is still unused: our own page can use it.
  assert.equal((await u.post(text3, await u.wallet.signMessage(text3))).status, 200);
});

test("a new merchant gets a working test key without an operator", {skip}, async () => {
  const owner = new User();
  await owner.signIn();
  const project = await owner.createProject("Noodle Bar");
  const base = `/p/${project}`;
  // The payout wallet: the owner's own, proven with the REST routes' challenge.
  const challenge = await owner.fetch(`${base}/wallet/challenge`, {method: "POST", json: {address: owner.address}});
  assert.equal(challenge.status, 201, challenge.text);
  const c = challenge.json().data;
  const verified = await owner.fetch(`${base}/wallet/verify`, {
    method: "POST", json: {address: owner.address, nonce: c.nonce, signature: await owner.wallet.signMessage(c.message)}});
  assert.equal(verified.status, 200, verified.text);
  assert.match((await owner.fetch(`${base}/wallet`)).text,
               new RegExp(`data-test="payout-address">${owner.address}<`));

  const created = await owner.fetch(`${base}/keys`, {method: "POST", form: {mode: "test"}});
  assert.equal(created.status, 201, created.text);
  const key = /data-test="new-key">(dp_test_[0-9a-f]{48})</.exec(created.text)[1];
  const keyId = /data-key-id="(key_[0-9a-f]{24})"/.exec(created.text)[1];
  const shown = await owner.fetch(`${base}/keys/${keyId}/reveal`, {method: "POST", form: {}});
  assert.equal(shown.status, 200);
  assert.match(shown.text, new RegExp(`data-test="revealed-key">${key}<`));

  const charge = await fetch(`${api}/v1/invoices`, {
    method: "POST", headers: {"x-api-key": key, "content-type": "application/json"},
    body: JSON.stringify({chainId: 80002, amount: "1000000"})});
  const body = await charge.json();
  assert.equal(charge.status, 201, JSON.stringify(body));
  assert.match(body.data.invoiceId, /^0x[0-9a-f]{64}$/);
  // The wallet rail's intent pays the project's verified payout wallet.
  assert.equal(body.data.intent.merchant, owner.address);

  // A live key is shown once; asking to see it again finds nothing.
  const live = await owner.fetch(`${base}/keys`, {method: "POST", form: {mode: "live"}});
  assert.equal(live.status, 201);
  const liveId = /data-test="new-key">dp_live_/.test(live.text) &&
                 [...live.text.matchAll(/data-key-id="(key_[0-9a-f]{24})"/g)].map((m) => m[1])
                     .find((id) => id !== keyId);
  const again = await owner.fetch(`${base}/keys/${liveId}/reveal`, {method: "POST", form: {}});
  assert.equal(again.status, 404);
  assert.doesNotMatch(again.text, /dp_live_[0-9a-f]{64}/);

  // The audit trail names the wallet and the session for each change.
  const audit = await owner.fetch(`${base}/audit`);
  for (const action of ["project.created", "payout_wallet.verified", "api_key.created", "api_key.revealed"]) {
    assert.match(audit.text, new RegExp(action), action);
  }
  assert.match(audit.text, new RegExp(`wallet <code>${owner.address}</code></td><td><code>api_key.revealed`));
  assert.match(audit.text, /ses_[0-9a-f]{24}/);
});

test("roles are enforced by the server and strangers see nothing", {skip}, async () => {
  const owner = new User();
  await owner.signIn();
  const base = `/p/${await owner.createProject("Team Shop")}`;
  const mate = new User();
  await mate.signIn();
  const stranger = new User();
  await stranger.signIn();
  const keysOf = async () => [...(await owner.fetch(`${base}/keys`)).text.matchAll(/data-key-id=/g)].length;

  assert.equal((await owner.fetch(`${base}/members`, {method: "POST", form: {address: mate.address, role: "viewer"}})).status, 303);
  assert.equal((await mate.fetch(`${base}/keys`)).status, 200);
  const viewerPost = await mate.fetch(`${base}/keys`, {method: "POST", form: {mode: "test"}});
  assert.equal(viewerPost.status, 403);
  assert.equal(await keysOf(), 0);
  assert.equal((await mate.fetch(`${base}/settings`, {method: "POST", form: {name: "Mine"}})).status, 403);

  assert.equal((await owner.fetch(`${base}/members`, {method: "POST", form: {address: mate.address, role: "developer"}})).status, 303);
  assert.equal((await mate.fetch(`${base}/keys`, {method: "POST", form: {mode: "test"}})).status, 201);
  assert.equal(await keysOf(), 1);
  assert.equal((await mate.fetch(`${base}/members`, {method: "POST", form: {address: stranger.address, role: "viewer"}})).status, 403);

  assert.equal((await owner.fetch(`${base}/members`, {method: "POST", form: {address: mate.address, role: "admin"}})).status, 303);
  assert.equal((await mate.fetch(`${base}/settings`, {method: "POST", form: {name: "Team Shop 2"}})).status, 200);
  const payout = await mate.fetch(`${base}/wallet/challenge`, {method: "POST", json: {address: mate.address}});
  assert.equal(payout.status, 403);  // only the owner

  for (const path of ["", "/keys", "/members", "/wallet", "/settings", "/audit"]) {
    assert.equal((await stranger.fetch(base + path)).status, 404, path);
  }
  assert.equal((await stranger.fetch(`${base}/keys`, {method: "POST", form: {mode: "test"}})).status, 404);
  assert.equal(await keysOf(), 1);
});

// The last-seen time of the session's row, as Postgres holds it.
async function lastSeen(address) {
  const {stdout} = await execFileP("psql", [env.DATABASE_URL, "-Atc",
    `select last_seen_at from dashboard_sessions where lower(address) = lower('${address}') and ended_at is null`], {env});
  return stdout.trim();
}

test("a busy session reads its row and writes it only once per touch interval", {skip}, async () => {
  // Default idle timeout (30 min): the row is written at most every 30 s.
  const u = new User();
  await u.signIn();
  const first = await lastSeen(u.address);
  assert.match(first, /^\d{4}-/);
  for (let i = 0; i < 3; i++) assert.equal((await u.fetch("/projects")).status, 200);
  assert.equal(await lastSeen(u.address), first);

  // A 3 s idle timeout writes on every request, so activity keeps the session alive past it.
  const busy = new User(idleOrigin);
  await busy.signIn();
  for (let i = 0; i < 2; i++) {
    await sleep((IDLE_SECONDS - 1) * 1000);
    assert.equal((await busy.fetch("/projects")).status, 200);
  }
});

test("CSRF, idle expiry and sign-out", {skip}, async () => {
  const u = new User(idleOrigin);
  await u.signIn();
  const before = (await u.fetch("/projects")).text.match(/href="\/p\//g)?.length ?? 0;
  const noToken = await u.fetch("/projects", {method: "POST", form: {name: "Forged"}, csrf: false});
  assert.equal(noToken.status, 403);
  const crossSite = await u.fetch("/projects", {method: "POST", form: {name: "Forged"}, from: "https://evil.example"});
  assert.equal(crossSite.status, 403);
  assert.equal((await u.fetch("/projects")).text.match(/href="\/p\//g)?.length ?? 0, before);

  // Idle past the timeout: the session is over.
  await sleep((IDLE_SECONDS + 1) * 1000);
  const idle = await u.fetch("/projects");
  assert.equal(idle.status, 303);
  assert.equal(idle.headers.get("location"), "/sign-in");

  await u.signIn();
  const old = u.cookie;
  assert.equal((await u.fetch("/sign-out", {method: "POST", form: {}})).status, 303);
  u.cookie = old;
  assert.equal((await u.fetch("/projects")).status, 303);
});
