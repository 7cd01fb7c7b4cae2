import { writeFileSync } from 'fs';
import { ARTIFACTS_MODULE, artifactsPath, allArtifacts, renderArtifacts } from './contracts/solidity';

writeFileSync(artifactsPath(), renderArtifacts(allArtifacts()));
process.stdout.write(`${ARTIFACTS_MODULE} written\n`);
