import { existsSync, readdirSync, readFileSync } from 'fs';
import { dirname, join } from 'path';

/** The platform's own Solidity, and the TypeScript module its artifacts are generated into. */
export const CONTRACTS_DIR = 'libs/platform/evm/contracts';
export const ARTIFACTS_MODULE = 'libs/platform/evm/src/artifacts.generated.ts';

/** The workspace root, from the source (tests) or from dist/ (`npm run contracts:compile`). */
const ROOT = (() => {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ramp-platform') return dir;
  }
  throw new Error('workspace root not found');
})();
/** Pinned with the compiler package (solc 0.8.30): the same bytes on every machine, so CREATE2 addresses never move. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/** Compiles every contract of CONTRACTS_DIR with solc-js; imports resolve from node_modules (OpenZeppelin). */
export function compileContracts(): Record<string, { abi: unknown[]; bytecode: string }> {
  // Loaded here, not at the top: the module is big and only this function needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string, options: { import(path: string): { contents: string } | { error: string } }): string };
  const dir = join(ROOT, CONTRACTS_DIR);
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.sol'))
    .sort();
  const sources = Object.fromEntries(files.map((name) => [name, { content: readFileSync(join(dir, name), 'utf8') }]));
  const findImport = (path: string) => {
    for (const base of [dir, join(ROOT, 'node_modules')]) {
      try {
        return { contents: readFileSync(join(base, path), 'utf8') };
      } catch {
        // next base
      }
    }
    return { error: `not found: ${path}` };
  };
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS }), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((entry) => entry.formattedMessage).join('\n'));
  const artifacts: Record<string, { abi: unknown[]; bytecode: string }> = {};
  for (const file of files) {
    for (const [name, contract] of Object.entries(output.contracts[file] ?? {})) {
      // Interfaces have no bytecode: only deployable contracts are artifacts.
      if (contract.evm.bytecode.object) artifacts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    }
  }
  return artifacts;
}

/**
 * Published contracts, deployed on local test chains exactly as on mainnet: taken from their npm packages' build
 * artifacts, never recompiled (the router hard-codes the hash of the pair's creation code, which only those bytes have).
 */
export const PUBLISHED_ARTIFACTS: Readonly<Record<string, string>> = {
  UniswapV2Factory: '@uniswap/v2-core/build/UniswapV2Factory.json',
  UniswapV2Pair: '@uniswap/v2-core/build/UniswapV2Pair.json',
  UniswapV2Router02: '@uniswap/v2-periphery/build/UniswapV2Router02.json',
  // ERC-4337 v0.7 (eth-infinitism's audited reference): the EntryPoint, the SimpleAccount and its factory, the
  // verifying paymaster. v0.7 because the bundler (@pimlico/alto) supports it.
  EntryPoint: '@account-abstraction/contracts/artifacts/EntryPoint.json',
  SimpleAccount: '@account-abstraction/contracts/artifacts/SimpleAccount.json',
  SimpleAccountFactory: '@account-abstraction/contracts/artifacts/SimpleAccountFactory.json',
  VerifyingPaymaster: '@account-abstraction/contracts/artifacts/VerifyingPaymaster.json',
};

/** The npm package a published artifact's path names (`@scope/name`). */
const packageOf = (path: string) => path.split('/').slice(0, 2).join('/');

/** The published artifacts' ABIs and creation bytecode. */
export function publishedArtifacts(): Record<string, { abi: unknown[]; bytecode: string }> {
  return Object.fromEntries(
    Object.entries(PUBLISHED_ARTIFACTS).map(([name, path]) => {
      const artifact = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8')) as {
        abi: unknown[];
        bytecode?: string;
        evm?: { bytecode: { object: string } };
      };
      const bytecode = (artifact.bytecode ?? artifact.evm!.bytecode.object).replace(/^0x/, '');
      return [name, { abi: artifact.abi, bytecode: `0x${bytecode}` }];
    }),
  );
}

/** Everything the platform deploys: its own contracts, compiled, and the published ones. */
export function allArtifacts(): Record<string, { abi: unknown[]; bytecode: string }> {
  return { ...compileContracts(), ...publishedArtifacts() };
}

/** The generated module: each contract's ABI `as const` (so viem types every call) and its creation bytecode. */
export function renderArtifacts(artifacts: Record<string, { abi: unknown[]; bytecode: string }>): string {
  const lines = [
    `// Generated by \`npm run contracts:compile\` from ${CONTRACTS_DIR} (solc 0.8.30) and the published artifacts of ${[...new Set(Object.values(PUBLISHED_ARTIFACTS).map(packageOf))].join(', ')}. Do not edit: a test checks it.`,
    '',
  ];
  for (const name of Object.keys(artifacts).sort()) {
    const { abi, bytecode } = artifacts[name];
    lines.push(`export const ${name} = {`, `  abi: ${JSON.stringify(abi)},`, `  bytecode: '${bytecode}',`, '} as const;', '');
  }
  return lines.join('\n');
}

export const artifactsPath = () => join(ROOT, ARTIFACTS_MODULE);
