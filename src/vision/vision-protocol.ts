/** Messages between the event loop and the vision thread (see vision-thread.ts). */
export interface VisionThreadOptions {
  modelPath: string;
  /** head.json of the head applied on top of the model; undefined: the model's own embedding. */
  headPath: string | undefined;
  threads: number;
}

export interface ModelInfo {
  model: string;
  dimensions: number;
  zeroPoint: number;
}

export type ThreadRequest =
  | { op: 'embed'; id: number; images: Uint8Array[] }
  | { op: 'set'; key: string; columns: number[]; codes: Uint8Array }
  | { op: 'clear'; key: string; columns: number[] }
  | { op: 'drop'; key: string }
  | { op: 'close' }
  | { op: 'score'; id: number; key: string; query: Uint8Array; columns: number }
  | { op: 'scoreLike'; id: number; key: string; queries: number[]; scales: number[]; columns: number };

export type EmbedResult = { vector: Float32Array } | { error: { reason: string; message: string } };

export type ThreadReply =
  | { id: number; results: EmbedResult[] }
  | { id: number; scores: Int32Array; queryScale?: number }
  | { id: number; failure: string };
