/**
 * One value per key and period, loaded once however many callers ask meanwhile (they share the load in flight): what
 * keeps reads of a slow source (the chain service's networks, a node's pool reserves) to one per period under load.
 * A failed load is forgotten at once, so the next caller loads again.
 */
export class Expiring<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(private readonly maxAgeMs: number) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && Date.now() - entry.at < this.maxAgeMs) return entry.value;
    const fresh = { at: Date.now(), value: load() };
    this.entries.set(key, fresh);
    fresh.value.catch(() => {
      if (this.entries.get(key) === fresh) this.entries.delete(key);
    });
    return fresh.value;
  }
}
