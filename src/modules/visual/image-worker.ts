import { setMaxListeners } from 'node:events';
import { processOwnerId } from '../../jobs/process-owner.js';
import type { JobLog } from '../../jobs/workers.js';
import { FetchFailedError, FetchTimeoutError, fetchToBuffer, HttpStatusError } from '../../net/safe-fetch.js';
import type { VisionClient } from '../../vision/vision-client.js';
import { quantize } from '../../vision/quantize.js';
import type { ClaimedImage, ImageJobs, ImageOutcome } from './image-jobs.js';
import { RunCounters, type BackgroundWorker, type WorkerStatus } from '../../jobs/workers.js';
import { MAX_IMAGE_BYTES } from '../../catalog/limits.js';

/** CONTRACT §8: catalogue images are fetched within 10 MB and 10 s, through at most 3 redirects. */
export const IMAGE_FETCH_LIMITS = { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 10_000, maxRedirects: 3 };
const BATCH = 16;

/**
 * The workers' stop signal: every fetch of every lane's batch listens to it at once (32 with two lanes),
 * past Node's warning at 10 listeners, each removed when its fetch settles.
 */
function stoppingSignal(lanes = 2): AbortController {
  const controller = new AbortController();
  setMaxListeners(2 * lanes * BATCH, controller.signal);
  return controller;
}

/** Transient failures are retried with backoff; a refused address, a bad URL or a file that is not an image never will succeed. */
function isTransient(error: unknown) {
  return error instanceof HttpStatusError || error instanceof FetchTimeoutError || error instanceof FetchFailedError;
}

/**
 * Works through the image queue: claims a batch, fetches the images in parallel (SSRF-checked),
 * embeds them in the vision thread (never on the event loop), and stores the quantized vectors.
 * Two lanes run at once so that one batch downloads while the other is embedded.
 */
export class ImageWorker implements BackgroundWorker {
  readonly name = 'visual.embed';
  readonly id = processOwnerId('images');
  #lanes: Promise<void>[] = [];
  #running = false;
  /** Aborted on stop: in-flight fetches end at once instead of running out their 10 s. */
  #stopping = stoppingSignal();
  #wake: Array<() => void> = [];
  readonly #counters = new RunCounters();

  constructor(
    private readonly jobs: ImageJobs,
    private readonly vision: VisionClient,
    private readonly options: {
      allowPrivateFetch: boolean;
      /** Bytes of a URL this service serves itself (uploaded media), read without a network fetch. */
      localImage?: (url: string) => Promise<Buffer | undefined>;
      lanes?: number;
      idleMs?: number;
      /**
       * How long after `start` the lanes first look at the queue, unless images are queued here first
       * (`wake`): a restarted process answers its first requests before it loads the fetch and image
       * libraries for a backlog (60-90 ms of its event loop, measured on the first search after a
       * restart at 1,000 stores).
       */
      firstRunAfterMs?: number;
      onError?: (error: unknown) => void;
      log?: JobLog;
    },
  ) {}

  /** Starts working; images queued in this process wake it so they start at once. */
  async start() {
    if (this.#running) return;
    this.#running = true;
    this.#stopping = stoppingSignal(this.options.lanes);
    // The model's identity from its files: the vision thread starts only once there is an image to embed.
    await this.jobs.requeueOtherModels(this.vision.modelIdentity());
    for (let i = 0; i < (this.options.lanes ?? 2); i++) this.#lanes.push(this.#lane());
  }

  /** Images were queued: idle lanes look at once instead of at their next poll. */
  wake() {
    for (const wake of this.#wake.splice(0)) wake();
  }

  status(): WorkerStatus {
    return this.#counters.status(this.name, this.#running);
  }

  /** Processes queued images until none is ready (tests and `vitrine images index`); returns how many were handled. */
  async drain(): Promise<number> {
    // A worker stopped earlier keeps its aborted signal: draining afterwards must not discard every batch.
    if (!this.#running) this.#stopping = stoppingSignal(this.options.lanes);
    let handled = 0;
    for (;;) {
      const claimed = await this.jobs.claim(this.id, BATCH);
      if (claimed.length === 0) return handled;
      await this.#process(claimed);
      handled += claimed.length;
    }
  }

  async #lane() {
    if (this.options.firstRunAfterMs) await this.#idle(this.options.firstRunAfterMs);
    while (this.#running) {
      try {
        const claimed = await this.jobs.claim(this.id, BATCH);
        this.#counters.ran();
        if (claimed.length > 0) {
          await this.#process(claimed);
          continue;
        }
      } catch (error) {
        this.#counters.failed(error);
        this.options.onError?.(error);
      }
      await this.#idle(this.options.idleMs ?? 500);
    }
  }

  /** Waits `ms`, or less when woken (images queued here, or a stop). */
  #idle(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.#wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async #process(claimed: ClaimedImage[]) {
    const { model, zeroPoint } = await this.vision.info();
    const fetched = await Promise.all(
      claimed.map(async (image) => {
        try {
          return (
            (await this.options.localImage?.(image.url)) ??
            (await fetchToBuffer(image.url, {
              ...IMAGE_FETCH_LIMITS,
              allowPrivate: this.options.allowPrivateFetch,
              signal: this.#stopping.signal,
            }))
          );
        } catch (error) {
          return error as Error;
        }
      }),
    );
    // Stopping: nothing fetched is recorded as a failure; the claims go back to the queue.
    if (this.#stopping.signal.aborted) return;
    const outcomes: ImageOutcome[] = [];
    const toEmbed: Array<{ image: ClaimedImage; bytes: Buffer }> = [];
    claimed.forEach((image, i) => {
      const result = fetched[i];
      if (result instanceof Error)
        outcomes.push({ kind: 'failed', image, error: result.message, permanent: !isTransient(result) });
      else if (result.length === 0)
        outcomes.push({ kind: 'failed', image, error: 'the URL answered an empty body', permanent: true });
      else toEmbed.push({ image, bytes: result });
    });
    if (toEmbed.length > 0) {
      const vectors = await this.vision.embed(toEmbed.map((t) => t.bytes));
      toEmbed.forEach(({ image }, i) => {
        const vector = vectors[i];
        if (vector instanceof Error) outcomes.push({ kind: 'failed', image, error: vector.message, permanent: true });
        else {
          const { codes, scale } = quantize(vector, zeroPoint);
          outcomes.push({ kind: 'indexed', image, model, vector: codes, scale });
        }
      });
    }
    await this.jobs.finish(this.id, outcomes);
    const failed = outcomes.filter((outcome) => outcome.kind === 'failed');
    this.options.log?.info(
      {
        job: 'images',
        indexed: outcomes.length - failed.length,
        failed: failed.length,
        ...(failed.length > 0
          ? { first_failure: `${failed[0].image.url}: ${(failed[0] as { error?: string }).error}` }
          : {}),
      },
      'image batch embedded',
    );
  }

  async stop() {
    this.#running = false;
    this.#stopping.abort();
    this.wake();
    await Promise.all(this.#lanes);
    this.#lanes = [];
    await this.jobs.release(this.id).catch(() => {});
  }
}
