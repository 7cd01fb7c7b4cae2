import { writeFileSync } from 'fs';
import { ARTIFACTS_MODULE, artifactsPath, compileContracts, renderArtifacts } from './contracts/solidity';

writeFileSync(artifactsPath(), renderArtifacts(compileContracts()));
process.stdout.write(`${ARTIFACTS_MODULE} written\n`);
