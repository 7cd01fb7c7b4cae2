// `npm run sdk:generate`: regenerates libs/sdk/src/generated/openapi.ts from docs/openapi.json.
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { dirname } from 'path';
import { generateSdkTypes, OPENAPI_FILE, SDK_TYPES_FILE } from '../../libs/sdk/scripts/codegen';

generateSdkTypes(readFileSync(OPENAPI_FILE, 'utf8'))
  .then((types) => {
    mkdirSync(dirname(SDK_TYPES_FILE), { recursive: true });
    writeFileSync(SDK_TYPES_FILE, types);
    process.stdout.write(`${SDK_TYPES_FILE} written\n`);
  })
  .catch((error: unknown) => {
    process.stderr.write(`sdk:generate failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
