import { writeFileSync } from 'fs';
import { resolve } from 'path';
import { natsServerAuthorization } from '@ramp/messaging';

writeFileSync(resolve(__dirname, '../../deploy/nats/authorization.conf'), natsServerAuthorization());
process.stdout.write('deploy/nats/authorization.conf written\n');
