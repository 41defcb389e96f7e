/**
 * A forger on a NATS account shared with the service and its clients (the single-account install):
 * it may subscribe and publish anywhere, as any holder of the account's credentials may. What it
 * writes and what it learns by watching, for the tests of signed verdicts and of the keys a client
 * learns (signed-verdicts.e2e.test.ts, learned-keys.e2e.test.ts).
 */
import type { NatsConnection } from "@nats-io/transport-node";
import type { BusNames } from "../../../src/bus/index.ts";
import type { ObservationVerdict, VerdictEvent } from "../../../src/verdicts/contract/schemas.ts";

/**
 * A plausible verdict event, as a forger writes it: what the service would say, with the outcome it
 * wants, and no signature. `key`: the request's idempotency key, when the forger saw the request.
 */
export function forgedVerdict(
  observationId: string,
  deployment: string,
  options: { outcome?: ObservationVerdict["outcome"]; key?: string } = {},
): VerdictEvent {
  const at = new Date().toISOString();
  return {
    type: "verdict",
    observationId,
    deployment,
    at,
    verdict: {
      observationId,
      key: options.key ?? "whatever",
      deployment,
      required: "healthy",
      reached: "healthy",
      outcome: options.outcome ?? "succeeded",
      resources: [],
      message: `deployment ${deployment} reached healthy: 1 resource settled`,
      startedAt: at,
      deadline: at,
      decidedAt: at,
    },
  };
}

/** An observation the service accepted, as the forger saw it go by. */
export interface SeenObservation {
  readonly observationId: string;
  /** The request's idempotency key. */
  readonly key: string;
}

/**
 * The forger's view of `observe`: each request on `<prefix>.observe` (with the requester's inbox and
 * the request's key) and the service's answer on that inbox. `accepted` is called once an answer
 * names the observation. Both subscriptions are in place at the server when this resolves, so a
 * client started after it is seen, however fast it asks.
 */
export async function watchObservations(nc: NatsConnection, names: BusNames, accepted: (seen: SeenObservation) => void): Promise<{ stop(): void }> {
  const inboxes = new Map<string, string>();
  const requests = nc.subscribe(names.observe, {
    callback: (_, message) => {
      if (message.reply) inboxes.set(message.reply, message.json<{ key: string }>().key);
    },
  });
  const replies = nc.subscribe("_INBOX.>", {
    callback: (_, message) => {
      const key = inboxes.get(message.subject);
      if (key === undefined) return;
      const reply = message.json<{ ok: boolean; observationId?: string }>();
      if (reply.ok && reply.observationId) accepted({ observationId: reply.observationId, key });
    },
  });
  await nc.flush();
  return {
    stop() {
      requests.unsubscribe();
      replies.unsubscribe();
    },
  };
}
