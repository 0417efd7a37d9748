/**
 * Compiles test/contracts/TestUSDC.sol with the bundled solc (no download, works offline) and
 * writes test/contracts/TestUSDC.json, the committed artifact the integration tests deploy.
 * Tests never compile: they check `sourceSha256` instead and ask you to run this script when
 * the source changed.  Run: bash scripts/run-node.sh scripts/compile-test-token.ts
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const CONTRACT = 'TestUSDC';
const sourcePath = fileURLToPath(new URL(`../test/contracts/${CONTRACT}.sol`, import.meta.url));
const artifactPath = fileURLToPath(new URL(`../test/contracts/${CONTRACT}.json`, import.meta.url));
// Pinned so the bytecode does not change with solc's default, and so any anvil hardfork runs it.
const EVM_VERSION = 'cancun';

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

const source = readFileSync(sourcePath, 'utf8');
const input = {
  language: 'Solidity',
  sources: { [`${CONTRACT}.sol`]: { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: EVM_VERSION,
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;

const problems = output.errors ?? [];
for (const p of problems) process.stderr.write(`${p.formattedMessage}\n`);
if (problems.some((p) => p.severity === 'error')) process.exit(1);

const compiled = output.contracts?.[`${CONTRACT}.sol`]?.[CONTRACT];
if (!compiled) throw new Error(`solc produced no ${CONTRACT} contract`);

const artifact = {
  contractName: CONTRACT,
  compiler: `solc ${solc.version() as string}`,
  settings: { optimizer: input.settings.optimizer, evmVersion: EVM_VERSION },
  sourceSha256: createHash('sha256').update(source).digest('hex'),
  abi: compiled.abi,
  bytecode: `0x${compiled.evm.bytecode.object}`,
};
writeFileSync(artifactPath, `${JSON.stringify(artifact, null, 2)}\n`);
process.stdout.write(`wrote ${artifactPath} (${compiled.evm.bytecode.object.length / 2} bytes of init code)\n`);
