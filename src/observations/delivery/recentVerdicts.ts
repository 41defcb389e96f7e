import type { ObservationVerdict } from "../../verdicts/index.js";

/** Decided verdicts kept for `get`, oldest forgotten first; the records bucket has them all. */
export class RecentVerdicts {
  private readonly verdicts = new Map<string, ObservationVerdict>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  remember(verdict: ObservationVerdict): void {
    this.verdicts.set(verdict.observationId, verdict);
    if (this.verdicts.size > this.capacity) {
      const oldest = this.verdicts.keys().next().value;
      if (oldest !== undefined) this.verdicts.delete(oldest);
    }
  }

  get(observationId: string): ObservationVerdict | undefined {
    return this.verdicts.get(observationId);
  }
}
