import { readFileSync } from 'fs';
import { keccak256, type Hex } from 'viem';
import { allArtifacts, ARTIFACTS_MODULE, artifactsPath, compileContracts, publishedArtifacts, renderArtifacts } from './solidity';

/** The pair creation code's hash that UniswapV2Library.pairFor (in the router) hard-codes: mainnet's. */
const UNISWAP_V2_PAIR_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';

describe('solidity - the committed artifacts are what the committed contracts compile to', () => {
  it(`${ARTIFACTS_MODULE} is the compiler's output and the published artifacts (run \`npm run contracts:compile\` after a change)`, () => {
    expect(Object.keys(compileContracts()).sort()).toEqual(expect.arrayContaining(['Forwarder', 'ForwarderFactory', 'TestToken', 'WrappedNative']));
    expect(readFileSync(artifactsPath(), 'utf8')).toBe(renderArtifacts(allArtifacts()));
  }, 120_000);

  it("the published Uniswap V2 pair is mainnet's bytes: the router finds the pairs the factory creates", () => {
    const { UniswapV2Pair, UniswapV2Router02 } = publishedArtifacts();
    expect(keccak256(UniswapV2Pair!.bytecode as Hex)).toBe(UNISWAP_V2_PAIR_INIT_CODE_HASH);
    expect(UniswapV2Router02!.bytecode).toContain(UNISWAP_V2_PAIR_INIT_CODE_HASH.slice(2));
  });
});
