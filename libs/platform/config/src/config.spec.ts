import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Config, ConfigError } from './config';

describe('Config', () => {
  it('falls back to the documented default when a variable is unset or empty', () => {
    const config = new Config({ RPC_TIMEOUT_MS: '' });
    expect(config.int('rpcTimeoutMs')).toBe(5000);
    expect(config.string('natsUrl')).toBe('nats://127.0.0.1:4222');
  });

  it('reads the environment', () => {
    const config = new Config({ RPC_TIMEOUT_MS: '250', WEBHOOK_ALLOW_HOSTS: '127.0.0.1, localhost', ALLOW_INSECURE_HTTP: 'true' });
    expect(config.int('rpcTimeoutMs')).toBe(250);
    expect(config.list('webhookAllowHosts')).toEqual(['127.0.0.1', 'localhost']);
    expect(config.bool('allowInsecureHttp')).toBe(true);
  });

  it('names the variable and the rule when a value is malformed', () => {
    expect(() => new Config({ RPC_TIMEOUT_MS: 'soon' }).int('rpcTimeoutMs')).toThrow(/RPC_TIMEOUT_MS must be a whole number/);
    expect(() => new Config({ ALLOW_INSECURE_HTTP: 'maybe' }).bool('allowInsecureHttp')).toThrow(ConfigError);
    expect(() => new Config({ OFFRAMP_FEES: '[1]' }).json('offrampFees')).toThrow(/OFFRAMP_FEES must be a JSON object/);
  });

  it('reads a secret from its variable or from the file its _FILE variable names, never both', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ramp-config-')), 'paystack');
    writeFileSync(file, 'sk_live_from_file\n');
    expect(new Config({ PAYSTACK_SECRET_KEY: 'sk_live_env' }).secret('paystackSecretKey')).toBe('sk_live_env');
    expect(new Config({ PAYSTACK_SECRET_KEY_FILE: file }).secret('paystackSecretKey')).toBe('sk_live_from_file');
    expect(new Config({}).secret('paystackSecretKey')).toBe('');
    expect(() => new Config({ PAYSTACK_SECRET_KEY: 'x', PAYSTACK_SECRET_KEY_FILE: file }).secret('paystackSecretKey')).toThrow(/both set/);
    expect(() => new Config({ PAYSTACK_SECRET_KEY_FILE: `${file}-missing` }).secret('paystackSecretKey')).toThrow(/cannot be read/);
  });
});
