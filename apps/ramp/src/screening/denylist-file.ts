import { readFileSync, statSync } from 'fs';
import { complianceReason, listedCounterparty, parseDenylist, type CounterpartyRole, type Denylist } from '@ramp/ramping';
import type { Logger } from '@ramp/service-kit';

/** How often, at most, the file's modification time is looked at again: an operator's update counts within this. */
const LOOK_AGAIN_MS = 2_000;

/**
 * The operator's screening denylist (SCREENING_DENYLIST_FILE): read at start (a file named but unreadable refuses the
 * start: live ramps are never run unscreened by mistake), then read again whenever its modification time changes, at
 * most every LOOK_AGAIN_MS, so that an update counts without a restart. A file that becomes unreadable or is removed
 * keeps the last list read (logged), never an empty one. No file named: nothing is screened (logged at start, as a
 * warning when live providers are enabled).
 */
export class DenylistFile {
  private list: Denylist = { addresses: new Set(), ignored: 0 };
  private modifiedMs = -1;
  private lookedAt = 0;

  constructor(
    private readonly path: string | undefined,
    private readonly logger?: Pick<Logger, 'warn' | 'error' | 'info'>,
    /** LIVE_PROVIDERS_ENABLED: without a file, a warning then (live ramps run unscreened), a line of information else. */
    liveEnabled = false,
  ) {
    if (!path) {
      const unscreened = 'SCREENING_DENYLIST_FILE is not set: live ramps are not screened against a denylist';
      if (liveEnabled) logger?.warn({}, unscreened);
      else logger?.info({}, unscreened);
      return;
    }
    this.read();
  }

  /**
   * The first counterparty on the list, with the hold's reason (undefined: none is, or nothing is screened). Reads the
   * file again first when it changed.
   */
  screen(
    counterparties: readonly { address: string | null | undefined; role: CounterpartyRole }[],
  ): { address: string; role: CounterpartyRole; reason: string } | undefined {
    this.refresh();
    const listed = listedCounterparty(this.list, counterparties);
    return listed && { ...listed, reason: complianceReason(listed.role) };
  }

  /** How many addresses the list holds now. */
  get size(): number {
    return this.list.addresses.size;
  }

  private refresh(): void {
    if (!this.path || Date.now() - this.lookedAt < LOOK_AGAIN_MS) return;
    this.lookedAt = Date.now();
    try {
      if (statSync(this.path).mtimeMs !== this.modifiedMs) this.read();
    } catch (error) {
      this.logger?.error(
        { path: this.path, error: (error as Error).message, addresses: this.size },
        'the screening denylist cannot be read: the last list read stays in force',
      );
    }
  }

  private read(): void {
    const path = this.path!;
    const modifiedMs = statSync(path).mtimeMs;
    this.list = parseDenylist(readFileSync(path, 'utf8'));
    this.modifiedMs = modifiedMs;
    this.lookedAt = Date.now();
    this.logger?.info({ path, addresses: this.list.addresses.size, ignored: this.list.ignored }, 'screening denylist read');
  }
}
