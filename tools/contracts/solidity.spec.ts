import { readFileSync } from 'fs';
import { ARTIFACTS_MODULE, artifactsPath, compileContracts, renderArtifacts } from './solidity';

describe('solidity - the committed artifacts are what the committed contracts compile to', () => {
  it(`${ARTIFACTS_MODULE} is the compiler's output (run \`npm run contracts:compile\` after a change)`, () => {
    const compiled = compileContracts();
    expect(Object.keys(compiled).sort()).toEqual(expect.arrayContaining(['Forwarder', 'ForwarderFactory', 'TestToken', 'WrappedNative']));
    expect(readFileSync(artifactsPath(), 'utf8')).toBe(renderArtifacts(compiled));
  }, 120_000);
});
