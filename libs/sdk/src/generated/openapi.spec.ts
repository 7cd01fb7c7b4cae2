import { readFileSync } from 'fs';
import { generateSdkTypes, OPENAPI_FILE, SDK_TYPES_FILE } from '../../scripts/codegen';

describe('SDK types - generated from docs/openapi.json', () => {
  it('are what openapi-typescript makes of the committed document today (run `npm run sdk:generate` if not)', async () => {
    const regenerated = await generateSdkTypes(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(readFileSync(SDK_TYPES_FILE, 'utf8')).toBe(regenerated);
  });
});
