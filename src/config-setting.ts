import type { Config } from './config.js';

/** What one setting of the table (config-settings.ts) is, and the parsing its rows share. */

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = NodeJS.ProcessEnv;
export type MutableConfig = { -readonly [K in keyof Config]: Config[K] };

/** One environment variable: how it is read into the config, what it must be, and what it means. */
export interface Setting {
  readonly variable: string;
  /** The default as an operator reads it. */
  readonly default: string;
  readonly meaning: string;
  /** Reads the variable (and its companions) into the config being built; throws ConfigError naming it. */
  read(env: Env, config: MutableConfig): void;
  /** The requirement the final value fails (after overrides), or undefined when it holds. */
  check?(config: Config): { requirement: string; value: unknown } | undefined;
}

export function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}
