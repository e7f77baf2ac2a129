import type { Command } from 'commander';
import { checkPortFree, loadConfig, parsePort, parseProcesses } from '../command-context.js';

/** `vitrine serve` and `vitrine worker`: the long-running processes. */
export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (migrates the schema first)')
    .option('--port <port>', 'HTTP port (default PORT or 8080)', parsePort)
    .option('--host <host>', 'bind address (default HOST or 127.0.0.1)')
    .option(
      '--processes <n>',
      'API processes sharing the port (default VITRINE_PROCESSES, else one per core; 1 for sqlite::memory:)',
      parseProcesses,
    )
    .option('--no-worker', 'do not fetch and embed catalogue images in this process (run `vitrine worker` instead)')
    .action(async (options: { port?: number; host?: string; processes?: number; worker: boolean }) => {
      const config = await loadConfig(process.env, {
        ...(options.port !== undefined ? { port: options.port } : {}),
        ...(options.host ? { host: options.host } : {}),
        ...(options.processes !== undefined ? { processes: options.processes } : {}),
      });
      const cluster = (await import('node:cluster')).default;
      // An in-memory database lives in one process: it cannot be shared.
      const processes = config.databaseUrl === 'sqlite::memory:' ? 1 : config.processes;
      if (cluster.isPrimary && processes > 1) {
        // A port in use must fail here, before N processes try it.
        await checkPortFree(config.host, config.port);
        process.env.VITRINE_PROCESS_COUNT = String(processes);
        const { runPrimary } = await import('../../cluster/primary.js');
        await runPrimary(config, processes);
        return;
      }
      const { startServer } = await import('../../server.js');
      await startServer(config, undefined, { worker: options.worker });
      // A clustered process whose primary is gone stops too.
      if (cluster.isWorker) process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    });

  program
    .command('worker')
    .description(
      'fetch and embed catalogue images (and run queued imports) without serving the API; run as many as you like against one PostgreSQL database',
    )
    .action(async () => {
      const { startWorker } = await import('../../server.js');
      await startWorker(await loadConfig(process.env));
    });
}
