#!/usr/bin/env node
// Compiles infra/chain/contracts/**/*.sol with solc-js (npm `solc`, pinned in package.json)
// through the standard-JSON interface, optimizer on, and writes one artifact per contract to
// infra/chain/out/<Name>.json: { contractName, sourceName, abi, bytecode, deployedBytecode,
// initCodeHash }. out/manifest.json records a hash of the inputs; when it matches, nothing is
// recompiled (use --force to override). Usage: node infra/chain/compile.mjs [--force]
//
// As a module: `await loadArtifacts()` compiles if stale and returns { Name: artifact }.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
export const contractsDir = join(here, 'contracts');
export const outDir = join(here, 'out');

// Fixed compiler settings. bytecodeHash "none" keeps the bytecode (and so the Forwarder's
// init-code hash and the deposit addresses) independent of comments and file paths.
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

function listSources(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listSources(full));
    else if (entry.name.endsWith('.sol')) files.push(full);
  }
  return files.sort();
}

function readInputs() {
  const sources = {};
  for (const file of listSources(contractsDir)) {
    // Source unit names relative to infra/chain with '/' so relative imports resolve.
    const name = relative(here, file).split(sep).join('/');
    sources[name] = { content: readFileSync(file, 'utf8') };
  }
  return { language: 'Solidity', sources, settings };
}

function solcVersion() {
  return require('solc/package.json').version;
}

function inputHash(input) {
  return createHash('sha256').update(solcVersion()).update(JSON.stringify(input)).digest('hex');
}

function readManifest() {
  try {
    return JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
}

// Write through a temporary file and rename, so concurrent compiles (two test files, the deploy
// script) never see a half-written artifact.
function writeAtomic(path, text) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Compile if the inputs changed since the last compile. Returns { compiled, contracts }. */
export async function compileContracts({ force = false, quiet = false } = {}) {
  const input = readInputs();
  const hash = inputHash(input);
  const manifest = readManifest();
  if (!force && manifest && manifest.inputHash === hash &&
      manifest.contracts.every((n) => existsSync(join(outDir, `${n}.json`)))) {
    return { compiled: false, contracts: manifest.contracts };
  }

  const solc = require('solc');
  const { keccak256 } = await import('ethers');
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const problems = output.errors ?? [];
  for (const p of problems) {
    if (!quiet || p.severity === 'error') process.stderr.write(`${p.formattedMessage}\n`);
  }
  if (problems.some((p) => p.severity === 'error')) {
    throw new Error('solc reported errors; see above');
  }

  mkdirSync(outDir, { recursive: true });
  const names = [];
  for (const [sourceName, contracts] of Object.entries(output.contracts)) {
    for (const [contractName, c] of Object.entries(contracts)) {
      if (names.includes(contractName)) throw new Error(`duplicate contract name ${contractName}`);
      names.push(contractName);
      const bytecode = `0x${c.evm.bytecode.object}`;
      const artifact = {
        contractName,
        sourceName,
        compiler: `solc ${solc.version()}`,
        abi: c.abi,
        bytecode,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
        initCodeHash: bytecode === '0x' ? null : keccak256(bytecode),
      };
      writeAtomic(join(outDir, `${contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
    }
  }
  names.sort();
  writeAtomic(join(outDir, 'manifest.json'),
    `${JSON.stringify({ inputHash: hash, solc: solc.version(), settings, contracts: names }, null, 2)}\n`);
  return { compiled: true, contracts: names };
}

/** Compile if stale, then return every artifact by contract name. */
export async function loadArtifacts() {
  const { contracts } = await compileContracts({ quiet: true });
  const artifacts = {};
  for (const name of contracts) {
    artifacts[name] = JSON.parse(readFileSync(join(outDir, `${name}.json`), 'utf8'));
  }
  return artifacts;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const { compiled, contracts } = await compileContracts({ force: process.argv.includes('--force') });
  const what = compiled ? 'compiled' : 'up to date';
  console.log(`${what}: ${contracts.join(', ')} (${Date.now() - started} ms) -> ${relative(process.cwd(), outDir) || '.'}`);
}
