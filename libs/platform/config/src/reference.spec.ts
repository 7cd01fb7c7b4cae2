import { readFileSync } from 'fs';
import { resolve } from 'path';
import { renderConfigurationReference } from './reference';
import { SETTINGS } from './settings';

describe('configuration reference', () => {
  it('docs/configuration.md is the rendering of the settings in the code (run `npm run docs:config` after a change)', () => {
    const onDisk = readFileSync(resolve(__dirname, '../../../../docs/configuration.md'), 'utf8');
    expect(onDisk).toBe(renderConfigurationReference());
  });

  it('documents every setting with a variable name and a meaning', () => {
    for (const setting of Object.values(SETTINGS)) {
      expect(setting.env).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(setting.description.length).toBeGreaterThan(20);
    }
  });
});
