// The service's side of `<prefix>.keys`: it answers with the public keys its verdicts are signed
// with, so a client given no key can learn it. The answer is not signed, and signing it would
// prove nothing: a forger would answer with its own key and sign with it. What the answer is worth
// is who else could have answered. In the account layout (deploy/nats/accounts.conf) a team's
// `<prefix>.keys` is a service import of the service's account, its members may not subscribe to
// the subject nor publish to an inbox, so only the service can answer; on a single account anyone
// with its credentials can (keyDiscovery.ts, the client's side, tells the two apart).
//
// Answered at once in the subscription's callback, beside the request server and outside its
// queue: a constant reply, so a flood of other requests never holds a client's start-up.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { silentLogger, type Logger } from "../../logging/index.js";
import type { KeysReply } from "../../verdicts/contract/schemas.js";
import { busNames, defaultSubjectPrefix, keysRequest, queueGroup } from "../subjects.js";

export type KeysResponderOptions = {
  connection: NatsConnection;
  prefix?: string;
  /** The keys verdicts verify with, the signing key's first; empty when the service signs nothing. */
  keys: readonly string[];
  /** With a tenants file the request also arrives on `<prefix>.keys.<tenant>`, through each account's import. */
  tenants: boolean;
  logger?: Logger;
};

export type KeysResponder = { stop(): Promise<void> };

export function startKeysResponder(options: KeysResponderOptions): KeysResponder {
  const names = busNames(options.prefix ?? defaultSubjectPrefix);
  const logger = options.logger ?? silentLogger;
  const reply: KeysReply = { ok: true, keys: [...options.keys] };
  const answer = JSON.stringify(reply);
  const subscribe = (subject: string): Subscription =>
    options.connection.subscribe(subject, {
      queue: queueGroup,
      callback: (error, msg) => {
        if (error) {
          logger.error({ err: error, subject }, "subscription failed");
          return;
        }
        if (msg.reply === undefined) return;
        try {
          msg.respond(answer);
        } catch (cause) {
          logger.warn({ err: cause, subject: msg.subject }, "could not send reply");
        }
      },
    });
  const subscriptions = [subscribe(names.keys), ...(options.tenants ? [subscribe(names.anyTenantRequest(keysRequest))] : [])];
  return {
    async stop() {
      await Promise.allSettled(subscriptions.map((s) => (s.isClosed() ? Promise.resolve() : s.drain())));
    },
  };
}
