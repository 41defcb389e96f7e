// An EventStore that keeps what the engine published, each event checked against the wire schema
// (what a subscriber would refuse to decode must fail the test that produced it). The store never
// rejects, as the contract says; an invalid event is kept aside and reported by every reader.
// Like the bus's publisher, it signs what it publishes with the service's signer, and counts only a
// verdict the signer trusts as the last event of an observation (hasVerdict); `forge` publishes as
// someone else on the subject would.
import { unsignedService, type ServiceSigner } from "../../signing/index.js";
import type { EventStore } from "../ports.js";
import { ObservationEvent, describeIssues, describeResource, parseWith, type ObservationVerdict } from "../../verdicts/index.js";

export class CapturingEventStore implements EventStore {
  private readonly published: ObservationEvent[] = [];
  private readonly invalid: string[] = [];

  constructor(private readonly signer: ServiceSigner = unsignedService) {}

  async publish(event: ObservationEvent): Promise<void> {
    this.forge(this.signer.sign(event));
  }

  /** An event published on the observation's subject by someone else: stored as it is. */
  forge(event: ObservationEvent): void {
    const parsed = parseWith(ObservationEvent, JSON.parse(JSON.stringify(event)));
    if (parsed.ok) this.published.push(event);
    else this.invalid.push(`${event.type} event: ${describeIssues(parsed.issues)}`);
  }

  async hasVerdict(_deployment: string, observationId: string): Promise<boolean> {
    const last = this.published.findLast((event) => event.observationId === observationId);
    return last?.type === "verdict" && this.signer.trustsEvent(last, observationId).trusted;
  }

  /** Publishing is immediate here: nothing waits to be discarded. */
  discard(): void {}

  /** Every event, in publishing order. */
  get events(): readonly ObservationEvent[] {
    if (this.invalid.length > 0) throw new Error(`published events do not match their schema: ${this.invalid.join("; ")}`);
    return this.published;
  }

  /** The events of one observation, in publishing order. */
  of(observationId: string): ObservationEvent[] {
    return this.events.filter((event) => event.observationId === observationId);
  }

  /** The verdict published for the observation; throws unless exactly one was. */
  verdict(observationId: string): ObservationVerdict {
    const verdicts = this.of(observationId).flatMap((event) => (event.type === "verdict" ? [event.verdict] : []));
    if (verdicts.length !== 1) throw new Error(`expected one verdict for ${observationId}, found ${verdicts.length}`);
    return verdicts[0]!;
  }

  /**
   * One short line an event: `progress Deployment payments/api pending ImagePullBackOff`,
   * `stage applied`, `verdict failed`; enough to assert what changed and in what order.
   */
  lines(observationId: string): string[] {
    return this.of(observationId).map((event) => {
      switch (event.type) {
        case "progress": {
          const { identity, state, reason, warning } = event.resource;
          return `progress ${describeResource(identity)} ${state}${reason === undefined ? "" : ` ${reason}`}${warning ? ` (warning ${warning.reason})` : ""}`;
        }
        case "stage":
          return `stage ${event.stage}`;
        case "stalled":
          return `stalled ${event.waitingFor.map((r) => describeResource(r.identity)).join(", ")}`;
        case "verdict":
          return `verdict ${event.verdict.outcome}`;
      }
    });
  }
}
