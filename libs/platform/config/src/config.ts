import { readFileSync } from 'node:fs';
import { SETTINGS, SettingName } from './settings';

export type Env = Record<string, string | undefined>;

/** Thrown at start-up for a setting that is missing or malformed: the process exits with this message. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Typed access to the settings of SETTINGS, read from an environment (process.env by default). */
export class Config {
  constructor(private readonly env: Env = process.env) {}

  string(name: SettingName): string {
    const value = this.env[SETTINGS[name].env];
    return value === undefined || value === '' ? SETTINGS[name].default : value;
  }

  /**
   * A secret setting: its variable, or the content of the file its `<VARIABLE>_FILE` names (a mounted Kubernetes
   * Secret), trimmed. Setting both is refused: which one wins would be a guess.
   */
  secret(name: SettingName): string {
    const variable = SETTINGS[name].env;
    const file = this.env[`${variable}_FILE`];
    if (file === undefined || file === '') return this.string(name);
    if (this.env[variable]) throw new ConfigError(`${variable} and ${variable}_FILE are both set: set one`);
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`${variable}_FILE names ${file}, which cannot be read: ${(error as Error).message}`);
    }
  }

  int(name: SettingName, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.string(name);
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${SETTINGS[name].env} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  }

  bool(name: SettingName): boolean {
    const raw = this.string(name).toLowerCase();
    if (raw === '' || raw === 'false' || raw === '0' || raw === 'no') return false;
    if (raw === 'true' || raw === '1' || raw === 'yes') return true;
    throw new ConfigError(`${SETTINGS[name].env} must be true or false, got "${raw}"`);
  }

  list(name: SettingName): string[] {
    return this.string(name)
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }

  /** A JSON object setting; empty means "use the code's defaults" and gives undefined. */
  json<T extends object>(name: SettingName): T | undefined {
    const raw = this.string(name);
    if (raw === '') return undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      return parsed as T;
    } catch {
      throw new ConfigError(`${SETTINGS[name].env} must be a JSON object, got "${raw}"`);
    }
  }

  /** Where and as whom to connect to NATS: NATS_URL, NATS_USER and NATS_PASSWORD. */
  get nats(): { servers: string; user: string; password: string } {
    return { servers: this.string('natsUrl'), user: this.string('natsUser'), password: this.string('natsPassword') };
  }

  get isProduction(): boolean {
    return this.string('nodeEnv') === 'production';
  }
}
