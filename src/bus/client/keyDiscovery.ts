// Where a client's verify keys come from, and what a verdict that verifies with them proves.
//
// A key given to the client (STAGEWATCH_VERIFY_KEY, --verify-key, `verifyKey`) is the operator's
// word. A client given none asks the service on `<prefix>.keys` (keysResponder.ts). The answer is
// worth what its source is worth: whoever can answer that request can name a key of their own and
// sign forgeries with it. So the client also asks the one party no one on the bus can impersonate,
// the NATS server, about its own connection: it subscribes to `<prefix>.keys` and publishes to an
// inbox, and the server either refuses both (a permissions violation, sent on this connection and
// nowhere else) or not. In the account layout (deploy/nats/accounts.conf) it refuses both: a team's
// `<prefix>.keys` is an import of the service's account, and no one holding the team's credentials
// may take the request or put an answer on the asker's inbox, so only the service can have
// answered. On a single account it refuses neither: the key then proves only that whoever answered
// `keys` also signed the verdict, which a forger answering both would satisfy. What the server says
// is about this connection's user: the layout gives every user of a team's account the same
// permissions ($TEAM_PERMISSIONS), and a user of the same account given more is one no client can see.
//
// The cost: a round trip at connect, only when no key is given, and in the account layout two
// permission violations in the NATS server's log per client (the price of asking the server
// rather than anyone else). Give the key and neither happens.
import { createInbox, Empty, PermissionViolationError, RequestError, TimeoutError, type NatsConnection } from "@nats-io/transport-node";
import { SigningKeyError, verifyKeysOf, type VerifyKey } from "../../signing/keys.js";
import { KeysReply } from "../../verdicts/contract/schemas.js";
import { parseWith } from "../../verdicts/contract/validation.js";
import type { BusNames } from "../subjects.js";

/**
 * configured: given to the client. service: learned where only the service can answer. unproven:
 * learned where this client's own credentials could have answered. none: no key.
 */
export const keySources = ["configured", "service", "unproven", "none"] as const;
export type KeySource = (typeof keySources)[number];

export interface Verification {
  /** What verdicts and events are checked with; none: nothing is checked. */
  readonly keys: readonly VerifyKey[];
  readonly source: KeySource;
  /** Whether a verdict that verifies with `keys` is the service's word (configured, or service). */
  readonly trusted: boolean;
  /** One sentence for a person: where the keys came from and what a verdict checked with them proves. */
  readonly account: string;
}

export function configuredVerification(keys: readonly VerifyKey[]): Verification {
  return keys.length === 0 ? unverified("no key given") : { keys, source: "configured", trusted: true, account: "verified with the keys given" };
}

const unverified = (why: string): Verification => ({ keys: [], source: "none", trusted: false, account: `not verified: ${why}` });

/** What asking found: the service's answer (or why there is none), and what the server refused this connection. */
export interface KeysLearned {
  readonly answer: { readonly keys: readonly string[] } | { readonly missing: string };
  /** The server refused this connection a subscription to `<prefix>.keys`. */
  readonly subscribeRefused: boolean;
  /** The server refused this connection a publish to an inbox (`_INBOX.` and a random token). */
  readonly inboxPublishRefused: boolean;
}

/** What `learned` proves, for keys asked on `subject`. */
export function verificationFrom(learned: KeysLearned, subject: string): Verification {
  if ("missing" in learned.answer) return unverified(`no key given, none learned on ${subject} (${learned.answer.missing})`);
  if (learned.answer.keys.length === 0) return unverified(`no key given, and the service signs nothing (${subject} lists no key)`);
  let keys: VerifyKey[];
  try {
    keys = verifyKeysOf(learned.answer.keys.join(","));
  } catch (error) {
    if (!(error instanceof SigningKeyError)) throw error;
    return unverified(`no key given, and ${subject} answered no public key (${error.message})`);
  }
  const key = `${keys[0]!.publicKey}${keys.length > 1 ? ` (and ${keys.length - 1} more)` : ""}`;
  if (learned.subscribeRefused && learned.inboxPublishRefused) {
    return { keys, source: "service", trusted: true, account: `verified with ${key}, learned on ${subject}, where only the service may answer` };
  }
  const allowed = [...(learned.subscribeRefused ? [] : [`subscribe to ${subject}`]), ...(learned.inboxPublishRefused ? [] : ["publish to an inbox"])].join(" and ");
  return {
    keys,
    source: "unproven",
    trusted: false,
    account: `not verified: ${key} was learned on ${subject}, where this client's own credentials may answer too (they may ${allowed}: one account for all), so it proves only that whoever answered also signed`,
  };
}

/** Asks the service for its keys and the server what it refuses this connection, at once; never throws. */
export async function learnVerifyKeys(nc: NatsConnection, names: BusNames, timeoutMs: number): Promise<Verification> {
  const [answer, refused] = await Promise.all([askKeys(nc, names.keys, timeoutMs), refusals(nc, names.keys, timeoutMs)]);
  return verificationFrom({ answer, ...refused }, names.keys);
}

async function askKeys(nc: NatsConnection, subject: string, timeoutMs: number): Promise<KeysLearned["answer"]> {
  let json: unknown;
  try {
    json = (await nc.request(subject, Empty, { timeout: timeoutMs })).json();
  } catch (error) {
    if (error instanceof RequestError && error.isNoResponders()) return { missing: "no one answers there: a service older than keys, or none running" };
    if (error instanceof TimeoutError) return { missing: `no answer within ${timeoutMs} ms` };
    return { missing: error instanceof Error ? error.message : String(error) };
  }
  const reply = parseWith(KeysReply, json);
  if (!reply.ok) return { missing: "an answer that is no list of keys" };
  return reply.value.ok ? { keys: reply.value.keys } : { missing: `refused: ${reply.value.error.message}` };
}

/**
 * Whether the server refuses this connection a subscription to `keysSubject` and a publish to an
 * inbox. The server answers a refused SUB or PUB with an error before the PONG of the PING sent
 * after them, so once the flush resolves each refusal has been seen, and no refusal by then means
 * none. The probe subscription, if the server allowed it, is dropped at once and answers nothing.
 */
async function refusals(nc: NatsConnection, keysSubject: string, timeoutMs: number): Promise<Pick<KeysLearned, "subscribeRefused" | "inboxPublishRefused">> {
  let subscribeRefused = false;
  let inboxPublishRefused = false;
  const probe = nc.subscribe(keysSubject, {
    callback: (error) => {
      if (error instanceof PermissionViolationError) subscribeRefused = true;
    },
  });
  // A request rather than a publish: nats.js hands a publish's permission violation to the request
  // that made it. Its answer is not waited for (on one account anyone subscribed to `_INBOX.>`
  // receives it and may never answer); a connection closed first ends it.
  void nc.request(createInbox(), Empty, { timeout: timeoutMs }).catch((error: unknown) => {
    if (isPermissionViolation(error)) inboxPublishRefused = true;
  });
  try {
    await nc.flush();
    // The request's rejection reaches its handler through promise hops of nats.js's own: a turn of
    // the event loop lets every one queued before the PONG run.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    if (!probe.isClosed()) probe.unsubscribe();
  }
  return { subscribeRefused, inboxPublishRefused };
}

function isPermissionViolation(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof PermissionViolationError) return true;
  return false;
}
