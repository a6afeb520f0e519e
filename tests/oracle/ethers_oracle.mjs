// Differential oracle: duepay's EVM encodings (through oracle_cli) against ethers v6.
//
//   node tests/oracle/ethers_oracle.mjs <path/to/oracle_cli> [--n 1000] [--seed 123]
//   ORACLE_SEED=123 node tests/oracle/ethers_oracle.mjs build/tests/oracle/oracle_cli
//
// Fresh random cases every run; the seed is printed so a failure can be replayed. Exits non-zero
// on any disagreement and prints "oracle: <passed> passed, <failed> failed".
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { ethers } from "ethers";

const args = process.argv.slice(2);
const cli = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
const flag = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
if (!cli) {
  console.error("usage: ethers_oracle.mjs <oracle_cli> [--n N] [--seed S]");
  process.exit(2);
}
const N = Number(flag("n") ?? process.env.ORACLE_N ?? 1000);
const seed = Number(flag("seed") ?? process.env.ORACLE_SEED ?? randomInt(2 ** 31));
console.log(`oracle: seed=${seed} n=${N} ethers=${ethers.version} (replay with ORACLE_SEED=${seed})`);

// sfc32: small, fast, seedable; good enough to pick test inputs.
function sfc32(a, b, c, d) {
  return () => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
}
const next32 = sfc32(0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0);
for (let i = 0; i < 20; i++) next32();
const below = (n) => next32() % n;
const bytes = (n) => Uint8Array.from({ length: n }, () => next32() & 0xff);
const hex = (n) => ethers.hexlify(bytes(n));
const pick = (xs) => xs[below(xs.length)];
// A uint of a random bit length, so small, mid and full-width values all occur.
const uintBits = (maxBits) => {
  const bits = below(maxBits + 1);
  if (bits === 0) return 0n;
  let v = BigInt(ethers.hexlify(bytes(Math.ceil(bits / 8))));
  return v & ((1n << BigInt(bits)) - 1n);
};
const N_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const randomKey = () => {
  for (;;) {
    const k = BigInt(hex(32));
    if (k > 0n && k < N_ORDER) return ethers.toBeHex(k, 32);
  }
};
const MESSAGE_ALPHABET = [..."abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;-_\n\t\"\\/",
  "฿", "ไ", "ก", "é", "ß", "€", "中", "文", "😀", "🔐", "\u0000"];
const randomMessage = () => Array.from({ length: below(300) }, () => pick(MESSAGE_ALPHABET)).join("");

const TYPES = {
  PaymentIntent: [
    { name: "invoiceId", type: "bytes32" }, { name: "merchant", type: "address" },
    { name: "token", type: "address" }, { name: "amount", type: "uint256" },
    { name: "feeBps", type: "uint16" }, { name: "deadline", type: "uint256" },
  ],
};
const randomIntent = () => ({
  chainId: pick([137n, 80002n]),
  verifyingContract: ethers.getAddress(hex(20)),
  invoiceId: hex(32),
  merchant: ethers.getAddress(hex(20)),
  token: ethers.getAddress(hex(20)),
  amount: uintBits(256),
  feeBps: below(65536),
  deadline: pick([BigInt(1_700_000_000 + below(200_000_000)), uintBits(256)]),
});
const intentCase = (it) => ({
  chainId: it.chainId.toString(), verifyingContract: it.verifyingContract, invoiceId: it.invoiceId,
  merchant: it.merchant, token: it.token, amount: it.amount.toString(), feeBps: it.feeBps,
  deadline: it.deadline.toString(),
});
const typedDomain = (it) => ({ name: "duepay", version: "1", chainId: it.chainId, verifyingContract: it.verifyingContract });
const typedValue = (it) => ({ invoiceId: it.invoiceId, merchant: it.merchant, token: it.token, amount: it.amount, feeBps: it.feeBps, deadline: it.deadline });
// ethers' verdict: { address } or { rejected: our expected error code } ("bad address checksum" is
// the checksum case, any other rejection is a malformed address).
const ethersGetAddress = (text) => {
  try {
    return { address: ethers.getAddress(text) };
  } catch (e) {
    return { rejected: /bad address checksum/.test(e.message) ? "invalid_address_checksum" : "invalid_address" };
  }
};

// Each check: a case for oracle_cli plus a verdict on its answer (null = agree, else a reason).
const checks = [];
const add = (kind, c, verdict) => checks.push({ kind, c: { id: checks.length, ...c }, verdict });

for (let i = 0; i < N; i++) {
  const data = bytes(below(601));
  const want = ethers.keccak256(data);
  add("keccak256", { op: "keccak", data: ethers.hexlify(data) }, (r) => (r.hash === want ? null : `want ${want}`));
}

const addressCheck = (text) => {
  const want = ethersGetAddress(text);
  add("getAddress", { op: "address", text }, (r) => {
    if (want.rejected) {
      if (r.ok) return `ethers rejects ${text}, we accepted`;
      return r.code === want.rejected ? null : `code ${r.code}, want ${want.rejected}`;
    }
    if (!r.ok) return `ethers accepts ${text} as ${want.address}, we rejected: ${r.code}`;
    return r.address === want.address ? null : `want ${want.address}`;
  });
};
for (let i = 0; i < N; i++) {
  const lower = hex(20);
  const checksummed = ethers.getAddress(lower);
  addressCheck(lower);
  addressCheck(checksummed);
  addressCheck("0x" + lower.slice(2).toUpperCase());
  // One letter with its case flipped: ethers rejects unless the address then has a single case.
  const letters = [...checksummed].map((ch, j) => (j >= 2 && /[a-fA-F]/.test(ch) ? j : -1)).filter((j) => j >= 0);
  if (letters.length > 0) {
    const j = pick(letters);
    const ch = checksummed[j];
    const flipped = checksummed.slice(0, j) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + checksummed.slice(j + 1);
    addressCheck(flipped);
  }
}
for (let i = 0; i < N / 10; i++) {
  // Malformed: wrong length or a non-hex character.
  const body = hex(20).slice(2);
  const text = pick([
    "0x" + body.slice(0, below(40)),
    "0x" + body + hex(1 + below(3)).slice(2),
    "0x" + body.slice(0, 39) + pick(["g", "z", " ", "x", "-"]),
  ]);
  addressCheck(text);
}

for (let i = 0; i < N; i++) {
  const it = randomIntent();
  const want = ethers.TypedDataEncoder.hash(typedDomain(it), TYPES, typedValue(it));
  add("TypedDataEncoder.hash", { op: "intent_hash", ...intentCase(it) }, (r) => (r.digest === want ? null : `want ${want}`));
}

for (let i = 0; i < N; i++) {
  const it = randomIntent();
  const key = randomKey();
  const wallet = new ethers.Wallet(key);
  add("verifyTypedData(our signature)", { op: "intent_sign", key, ...intentCase(it) }, (r) => {
    const digest = ethers.TypedDataEncoder.hash(typedDomain(it), TYPES, typedValue(it));
    if (r.digest !== digest) return `digest: want ${digest}`;
    if (r.address !== wallet.address) return `address: want ${wallet.address}`;
    const recovered = ethers.verifyTypedData(typedDomain(it), TYPES, typedValue(it), r.signature);
    if (recovered !== wallet.address) return `ethers recovered ${recovered}`;
    // RFC 6979 is deterministic: ethers' own signature must be byte-identical.
    const theirs = wallet.signingKey.sign(digest).serialized;
    return r.signature === theirs ? null : `signature differs from ethers' ${theirs}`;
  });
}

for (let i = 0; i < N; i++) {
  const message = randomMessage();
  const want = ethers.hashMessage(message);
  add("hashMessage", { op: "message_hash", message }, (r) => (r.hash === want ? null : `want ${want}`));
}

for (let i = 0; i < N; i++) {
  const message = randomMessage();
  const key = randomKey();
  const address = ethers.computeAddress(key);
  add("verifyMessage(our signature)", { op: "message_sign", message, key }, (r) => {
    if (r.address !== address) return `address: want ${address}`;
    const recovered = ethers.verifyMessage(message, r.signature);
    return recovered === address ? null : `ethers recovered ${recovered}`;
  });
}

const signed = [];
for (let i = 0; i < N; i++) {
  const message = randomMessage();
  const wallet = new ethers.Wallet(randomKey());
  const signature = wallet.signMessageSync(message);
  signed.push({ digest: ethers.hashMessage(message), signature, address: wallet.address });
  add("recover(ethers signMessage)", { op: "recover", digest: ethers.hashMessage(message), signature }, (r) =>
    r.ok && r.address === wallet.address ? null : `want ${wallet.address}, got ${JSON.stringify(r)}`);
}

// Contract checks, not ethers parity: the malleable high-s twin and a bad v must be refused.
for (const s of signed.slice(0, Math.max(1, N / 10))) {
  const sig = ethers.Signature.from(s.signature);
  const highS = ethers.toBeHex(N_ORDER - BigInt(sig.s), 32);
  const twin = ethers.concat([sig.r, highS, sig.v === 27 ? "0x1c" : "0x1b"]);
  add("reject high-s", { op: "recover", digest: s.digest, signature: twin }, (r) =>
    !r.ok && r.code === "invalid_signature" ? null : `accepted high-s: ${JSON.stringify(r)}`);
  const badV = ethers.concat([sig.r, sig.s, ethers.toBeHex(pick([0, 1, 29, 30, 37]), 1)]);
  add("reject bad v", { op: "recover", digest: s.digest, signature: badV }, (r) =>
    !r.ok && r.code === "invalid_signature" ? null : `accepted bad v: ${JSON.stringify(r)}`);
}

const coder = ethers.AbiCoder.defaultAbiCoder();
for (let i = 0; i < N; i++) {
  const factory = ethers.getAddress(hex(20));
  const invoiceId = hex(32);
  const merchant = ethers.getAddress(hex(20));
  const feeBps = below(65536);
  const initCodeHash = hex(32);
  const salt = ethers.keccak256(coder.encode(["bytes32", "address", "uint16"], [invoiceId, merchant, feeBps]));
  const want = ethers.getCreate2Address(factory, salt, initCodeHash);
  add("getCreate2Address", { op: "create2", factory, invoiceId, merchant, feeBps, initCodeHash }, (r) => {
    if (r.salt !== salt) return `salt: want ${salt}`;
    return r.address === want ? null : `address: want ${want}`;
  });
}

const input = checks.map((c) => JSON.stringify(c.c)).join("\n") + "\n";
const run = spawnSync(cli, [], { input, maxBuffer: 1 << 28, encoding: "utf8" });
if (run.error) throw run.error;
if (run.stderr) process.stderr.write(run.stderr);
const answers = new Map();
for (const line of run.stdout.split("\n")) {
  if (!line) continue;
  const r = JSON.parse(line);
  answers.set(r.id, r);
}

let passed = 0;
let failed = 0;
const perKind = new Map();
for (const check of checks) {
  const r = answers.get(check.c.id);
  let why;
  if (!r) why = "no answer from oracle_cli";
  else if (r.error) why = `oracle_cli error: ${r.error}`;
  else {
    try { why = check.verdict(r); } catch (e) { why = `verdict threw: ${e.message}`; }
  }
  const k = perKind.get(check.kind) ?? { passed: 0, failed: 0 };
  if (why) {
    failed++;
    k.failed++;
    if (failed <= 20) console.log(`FAIL ${check.kind}: ${JSON.stringify(check.c)} -> ${JSON.stringify(r)}: ${why}`);
  } else {
    passed++;
    k.passed++;
  }
  perKind.set(check.kind, k);
}
for (const [kind, k] of perKind) console.log(`  ${kind.padEnd(32)} ${k.passed} passed, ${k.failed} failed`);
if (run.status !== 0 && failed === 0) {
  console.log(`oracle_cli exited with status ${run.status}`);
  failed++;
}
console.log(`oracle: ${passed} passed, ${failed} failed (seed ${seed})`);
process.exit(failed === 0 ? 0 : 1);
