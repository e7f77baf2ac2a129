import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';

// Loaded when a bar is first drawn (on a terminal): the quick commands never need it.
const loadCliProgress = () => createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
/** What a CLI command prints: with --json exactly one JSON object on stdout, else readable lines. */
export function printResult(json: boolean, result: unknown, human: string | string[]) {
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`${(Array.isArray(human) ? human : [human]).join('\n')}\n`);
}

/** One line on stderr and a non-zero exit: the CLI's only way to fail. */
export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`vitrine: ${message.split('\n')[0]}\n`);
  process.exit(exitCode);
}

/**
 * Progress on stderr (rows of a file, files of a folder): a bar with rows, rows/s and ETA on a terminal, a plain line every
 * few seconds otherwise (logs, CI). Nothing touches stdout, which --json keeps for the summary.
 */
export function createProgress(action = 'importing', unit = 'rows') {
  const started = Date.now();
  let lastLine = 0;
  let bar: import('cli-progress').SingleBar | undefined;
  const update = (rows: number, bytesRead: number, totalBytes: number) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = Math.round(rows / seconds);
    if (process.stderr.isTTY) {
      if (!bar) {
        const cliProgress = loadCliProgress();
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `${action} [{bar}] {percentage}% | {rows} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(totalBytes, 0, { rows: 0, rate: 0 });
      }
      bar.update(bytesRead, { rows, rate });
    } else if (Date.now() - lastLine > 2000) {
      lastLine = Date.now();
      const percent = totalBytes > 0 ? Math.round((bytesRead / totalBytes) * 100) : 0;
      process.stderr.write(`${action}: ${rows} ${unit}, ${rate} ${unit}/s, ${percent}%\n`);
    }
  };
  return {
    update,
    stop: () => {
      bar?.stop();
      bar = undefined;
    },
  };
}
