// Refusals logged by sample: the first of each kind (caller, request kind, code, limit) in an
// interval at once, with its message and issues, then at the interval's end one line counting the
// rest. A flood of refused requests used to be one info line each (43,518 in 20 s); now it is at
// most two lines per kind of refusal and interval, and the map holds only this interval's kinds.
import { interval, type SchedulerLike, type Subscription } from "rxjs";
import type { Logger } from "../../logging/index.js";
import type { FieldIssue } from "../../verdicts/contract/schemas.js";

export type RefusalLogOptions = {
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  /** How often the counts are logged. Default 10 s. */
  readonly intervalMs?: number;
  /** Kinds of refusal told apart in one interval; the rest are counted together. Default 1,000. */
  readonly maxKinds?: number;
};

/** One refused request: who (the tenant its subject names, or the sole caller), what it asked, the answer. */
export type Refusal = {
  readonly caller: string;
  readonly kind: string;
  readonly code: string;
  /** The quota it met (`pendingPerCaller`), for `quota`. */
  readonly limit?: string | undefined;
  readonly subject: string;
  readonly message: string;
  readonly issues: readonly FieldIssue[];
};

type Seen = { readonly fields: { caller: string; kind: string; code: string; limit?: string }; more: number };

const overflowKey = "(other)";

export class RefusalLog {
  private readonly options: Required<RefusalLogOptions>;
  private readonly seen = new Map<string, Seen>();
  private readonly timer: Subscription;

  constructor(options: RefusalLogOptions) {
    this.options = { intervalMs: 10_000, maxKinds: 1_000, ...options };
    this.timer = interval(this.options.intervalMs, this.options.scheduler).subscribe(() => this.flush());
  }

  note(refusal: Refusal): void {
    const { caller, kind, code, limit } = refusal;
    let key = [caller, kind, code, limit ?? ""].join("\u0000");
    if (!this.seen.has(key) && this.seen.size >= this.options.maxKinds) key = overflowKey;
    const seen = this.seen.get(key);
    if (seen) {
      seen.more += 1;
      return;
    }
    const fields = key === overflowKey ? { caller: overflowKey, kind: overflowKey, code: overflowKey } : { caller, kind, code, ...(limit !== undefined && { limit }) };
    this.seen.set(key, { fields, more: 0 });
    this.options.logger.info({ ...fields, subject: refusal.subject, message: refusal.message, issues: refusal.issues }, "request refused; more like it are counted");
  }

  /** Logs the counts of the interval that ended, and forgets its kinds: the next refusal of each is logged in full again. */
  flush(): void {
    const seconds = this.options.intervalMs / 1000;
    for (const { fields, more } of this.seen.values()) {
      if (more > 0) this.options.logger.info({ ...fields, refused: more, seconds }, "requests refused like the one logged");
    }
    this.seen.clear();
  }

  stop(): void {
    this.timer.unsubscribe();
    this.flush();
  }
}
