import { Config } from '@ramp/config';
import { mnemonicProblem } from '@ramp/evm';
import { SecretBox } from '@ramp/keys';

/**
 * `npm run custody:seal < mnemonic.txt`: prints the CUSTODY_SEED value for a BIP-39 mnemonic read from standard input,
 * sealed with CUSTODY_SEALING_KEY (AES-256-GCM), once its words and checksum are checked (mnemonicProblem). The mnemonic is never an argument, so it stays out of the
 * shell's history and the process list.
 */
const chunks: Buffer[] = [];
process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
process.stdin.on('end', () => {
  const mnemonic = Buffer.concat(chunks).toString('utf8').trim().split(/\s+/).join(' ');
  const problem = mnemonicProblem(mnemonic);
  if (problem) {
    process.stderr.write(`expected a BIP-39 mnemonic on standard input: ${problem}\n`);
    process.exit(2);
  }
  const config = new Config();
  process.stdout.write(`${new SecretBox(config.string('custodySealingKey') || undefined, config.isProduction).seal(mnemonic)}\n`);
});
