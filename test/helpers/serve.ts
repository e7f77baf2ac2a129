import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ServedVitrine {
  url: string;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  process: ChildProcess;
  dataDir: string;
  stop(): Promise<void>;
}

/** The servers running now, by the database they serve. */
const running = new Map<ServedVitrine, string>();

/** Stops every server still running on a database (before the database is dropped). */
export async function stopServesOn(databaseUrl: string) {
  await Promise.all([...running].filter(([, url]) => url === databaseUrl).map(([served]) => served.stop()));
}

/** `vitrine serve` on a free port, as an operator starts it; resolves once it prints where it listens. */
export async function startServe(
  databaseUrl: string,
  env: Record<string, string> = {},
  args: string[] = [],
  /** Another release's `bin/vitrine.js` (the upgrade test starts the previous one). */
  bin = path.resolve('bin/vitrine.js'),
  /** Node's own flags (--cpu-prof is refused in NODE_OPTIONS; the API processes inherit these). */
  nodeArgs: string[] = [],
): Promise<ServedVitrine> {
  return startServeCommand(databaseUrl, process.execPath, [...nodeArgs, bin, 'serve', '--port', '0', ...args], env);
}

/**
 * A command that runs `vitrine serve` (package.json's start script through a shell, say), supervised as
 * startServe's: its own data folder, killed if it does not start, stopped before its database is dropped.
 */
export async function startServeCommand(
  databaseUrl: string,
  file: string,
  argv: string[],
  env: Record<string, string> = {},
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<ServedVitrine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-serve-'));
  const child = spawn(file, argv, {
    env: { ...baseEnv, DATABASE_URL: databaseUrl, VITRINE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    // A server that did not start is killed: a child left running would keep the test file from exiting.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vitrine serve did not start in 30 s: ${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving the catalog API on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vitrine serve exited (${code}): ${output}`));
    });
  });
  const served: ServedVitrine = {
    url,
    output: () => output,
    process: child,
    dataDir,
    async stop() {
      running.delete(served);
      // A child ended by a signal has no exit code, only its signal: waiting for its exit again would hang.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        // A server that does not stop in time fails the suite loudly rather than hanging it.
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  running.set(served, databaseUrl);
  return served;
}

/** The pids of the API processes that logged "Server listening" (LOG_LEVEL info), in order. */
export const listeningPids = (output: string) =>
  [...output.matchAll(/"pid":(\d+)[^\n]*Server listening/g)].map((match) => Number(match[1]));
