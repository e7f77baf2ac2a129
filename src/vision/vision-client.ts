import { Worker } from 'node:worker_threads';
import { loadSharp } from './lazy-sharp.js';
import { ImageRejectedError, type ImageFailure } from './image-rejection.js';
import type { EmbedResult, ModelInfo, ThreadReply, ThreadRequest, VisionThreadOptions } from './vision-protocol.js';
import { modelIdentity } from './model-identity.js';

type Pending = { resolve: (reply: ThreadReply) => void; reject: (error: Error) => void };

/**
 * The event loop's handle on one vision thread. The thread starts on first use (a process that never
 * sees an image never loads the model); if it dies, pending calls fail, `generation` moves on (the
 * matrices it held are gone, so indexes reload), and the next call starts a new thread.
 */
export class VisionClient {
  #worker: Worker | undefined;
  #ready: Promise<ModelInfo> | undefined;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #idleTimer: NodeJS.Timeout | undefined;
  #identity: string | undefined;
  generation = 0;

  /**
   * `idleExitMs`: end the thread after that long without a call (its model and buffers, 50–200 MB,
   * go back to the system); the next call starts it again. The matrices it held go with it: their
   * holders key them by `generation` and rebuild them (visual-index.ts).
   */
  constructor(
    private readonly options: VisionThreadOptions,
    private readonly idleExitMs?: number,
  ) {}

  /** The model's identity from its files, without starting the thread (nor loading the model). */
  modelIdentity(): string {
    return (this.#identity ??= modelIdentity(this.options.modelPath, this.options.headPath));
  }

  info(): Promise<ModelInfo> {
    if (this.#ready) {
      // A use: the idle countdown starts again, so the thread cannot end between a caller's look at
      // the generation and its next call.
      if (this.#pending.size === 0) this.#armIdleExit();
      return this.#ready;
    }
    // The main thread initialises libvips before the thread imports it (see lazy-sharp.ts): a thread
    // without a head loads the model, and sharp with it, as it starts; with a head, at its first image.
    if (!this.options.headPath) loadSharp();
    const worker = new Worker(new URL('./vision-thread.js', import.meta.url), { workerData: this.options });
    this.#worker = worker;
    this.generation++;
    this.#ready = new Promise<ModelInfo>((resolve, reject) => {
      worker.on('message', (message: ThreadReply | { ready: ModelInfo }) => {
        if ('ready' in message) return resolve(message.ready);
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (!pending) return;
        if ('failure' in message) pending.reject(new Error(message.failure));
        else pending.resolve(message);
      });
      const fail = (error: Error) => {
        reject(error);
        if (this.#worker !== worker) return;
        this.#worker = undefined;
        this.#ready = undefined;
        for (const pending of this.#pending.values()) pending.reject(error);
        this.#pending.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the vision thread exited (code ${code})`)));
    });
    // A thread started only to learn the model's identity ends too when nothing follows.
    this.#ready.then(() => this.#armIdleExit()).catch(() => {});
    return this.#ready;
  }

  async #call(request: ThreadRequest & { id: number }): Promise<ThreadReply> {
    clearTimeout(this.#idleTimer);
    await this.info();
    try {
      return await new Promise((resolve, reject) => {
        this.#pending.set(request.id, { resolve, reject });
        this.#worker!.postMessage(request);
      });
    } finally {
      this.#armIdleExit();
    }
  }

  #armIdleExit() {
    if (this.idleExitMs === undefined || this.#pending.size > 0) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#pending.size === 0) void this.close();
    }, this.idleExitMs).unref();
  }

  /** Embeds images; each result is a unit vector or the ImageRejectedError of that image. */
  async embed(images: Uint8Array[]): Promise<Array<Float32Array | ImageRejectedError>> {
    loadSharp();
    const reply = (await this.#call({ op: 'embed', id: this.#nextId++, images })) as { results: EmbedResult[] };
    return reply.results.map((r) =>
      'vector' in r ? r.vector : new ImageRejectedError(r.error.reason as ImageFailure, r.error.message),
    );
  }

  async score(key: string, query: Uint8Array, columns: number): Promise<Int32Array> {
    const reply = (await this.#call({ op: 'score', id: this.#nextId++, key, query, columns })) as {
      scores: Int32Array;
    };
    return reply.scores;
  }

  /** Scores of every column against the normalised mean of the given stored columns (each dequantized with its scale). */
  async scoreLike(
    key: string,
    queries: number[],
    scales: number[],
    columns: number,
  ): Promise<{ scores: Int32Array; queryScale: number }> {
    const reply = (await this.#call({ op: 'scoreLike', id: this.#nextId++, key, queries, scales, columns })) as {
      scores: Int32Array;
      queryScale: number;
    };
    return reply;
  }

  /** Column updates are posted without waiting: the thread handles messages in order, so a later score sees them. */
  setColumns(key: string, columns: number[], codes: Uint8Array) {
    this.#worker?.postMessage({ op: 'set', key, columns, codes } satisfies ThreadRequest);
  }
  clearColumns(key: string, columns: number[]) {
    this.#worker?.postMessage({ op: 'clear', key, columns } satisfies ThreadRequest);
  }
  drop(key: string) {
    this.#worker?.postMessage({ op: 'drop', key } satisfies ThreadRequest);
  }

  /** Asks the thread to release its sessions and end; terminates it only if it does not within 5 s. */
  async close() {
    clearTimeout(this.#idleTimer);
    const worker = this.#worker;
    const ready = this.#ready;
    this.#worker = undefined;
    this.#ready = undefined;
    if (!worker) return;
    const started = await ready?.then(
      () => true,
      () => false,
    );
    if (!started) {
      await worker.terminate();
      return;
    }
    const exited = new Promise<boolean>((resolve) => {
      worker.once('exit', () => resolve(true));
      setTimeout(() => resolve(false), 5000).unref();
    });
    worker.postMessage({ op: 'close' } satisfies ThreadRequest);
    if (!(await exited)) await worker.terminate();
  }
}
