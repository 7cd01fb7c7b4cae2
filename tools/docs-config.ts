import { writeFileSync } from 'fs';
import { resolve } from 'path';
import { renderConfigurationReference } from '@ramp/config';

writeFileSync(resolve(__dirname, '../../docs/configuration.md'), renderConfigurationReference());
process.stdout.write('docs/configuration.md written\n');
