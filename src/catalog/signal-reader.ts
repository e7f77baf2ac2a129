/**
 * What listings read of a store's shopper signals (trend, popular) per product: the events module's
 * SignalTable, or any map of them. A new reader object per read of the signals: orders derived from
 * one are kept per reader.
 */
export interface SignalReader<T> {
  get(code: string): T | undefined;
  forEach(visit: (value: T, code: string) => void): void;
}
