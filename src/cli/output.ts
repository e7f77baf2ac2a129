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
