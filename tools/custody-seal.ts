import { Config } from '@ramp/config';
import { SecretBox } from '@ramp/keys';

/**
 * `npm run custody:seal < mnemonic.txt`: prints the CUSTODY_SEED value for a BIP-39 mnemonic read from standard input,
 * sealed with SECRETS_ENCRYPTION_KEY (AES-256-GCM). The mnemonic is never an argument, so it stays out of the
 * shell's history and the process list.
 */
const chunks: Buffer[] = [];
process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
process.stdin.on('end', () => {
  const mnemonic = Buffer.concat(chunks).toString('utf8').trim().split(/\s+/).join(' ');
  const words = mnemonic.split(' ').length;
  if (![12, 15, 18, 21, 24].includes(words)) {
    process.stderr.write(`expected a BIP-39 mnemonic of 12 to 24 words on standard input, got ${words} word(s)\n`);
    process.exit(2);
  }
  const config = new Config();
  process.stdout.write(`${new SecretBox(config.string('secretsEncryptionKey') || undefined, config.isProduction).seal(mnemonic)}\n`);
});
