import { writeFileSync } from 'fs';
import { resolve } from 'path';
import { ERRORS_PAGE, renderErrorReference } from './docs/errors-reference';

writeFileSync(resolve(__dirname, '../..', ERRORS_PAGE), renderErrorReference());
process.stdout.write(`${ERRORS_PAGE} written\n`);
