import { readFileSync } from 'fs';
import { resolve } from 'path';
import { ERROR_REASONS, FAILURE_REASONS } from '@ramp/contracts';
import { ERRORS_PAGE, renderErrorReference } from './errors-reference';

describe('error reference - docs/api/errors.md is the catalogue in the code', () => {
  it('is the rendering of libs/contracts error catalogues (run `npm run docs:errors` after a change)', () => {
    const onDisk = readFileSync(resolve(__dirname, '../..', ERRORS_PAGE), 'utf8');
    expect(onDisk).toBe(renderErrorReference());
  });

  it('has one row for every error reason, under its code, and one for every failure reason', () => {
    const rows = renderErrorReference().split('\n');
    for (const [reason, { code }] of Object.entries(ERROR_REASONS)) {
      expect(rows.filter((row) => row.startsWith(`| \`${reason}\` | \`${code}\` |`))).toHaveLength(1);
    }
    for (const reason of Object.keys(FAILURE_REASONS))
      expect(rows.filter((row) => row.startsWith(`| \`${reason}\` | `))).toHaveLength(reason in ERROR_REASONS ? 2 : 1);
  });
});
