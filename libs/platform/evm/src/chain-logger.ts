/** Where the chain's loops (send queues, watchers) say what they do. */
export interface ChainLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
