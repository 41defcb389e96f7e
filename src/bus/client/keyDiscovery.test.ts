import { describe, expect, it } from "vitest";
import { newKey, oldKey } from "../../signing/testing/keys.js";
import { configuredVerification, verificationFrom, type KeysLearned, type Verification } from "./keyDiscovery.js";

const subject = "stagewatch.keys";
const refusedBoth = { subscribeRefused: true, inboxPublishRefused: true };

describe("what a key learned on <prefix>.keys proves", () => {
  const cases: { name: string; learned: KeysLearned; expected: Omit<Verification, "keys"> & { keys: string[] } }[] = [
    {
      name: "the account layout: the server refused this client both the keys subject and inboxes, so only the service answered",
      learned: { answer: { keys: [newKey.publicKey, oldKey.publicKey] }, ...refusedBoth },
      expected: {
        keys: [newKey.publicKey, oldKey.publicKey],
        source: "service",
        trusted: true,
        account: `verified with ${newKey.publicKey} (and 1 more), learned on stagewatch.keys, where only the service may answer`,
      },
    },
    {
      name: "a single account: this client may take the request and answer on inboxes, so anyone with its credentials could have answered",
      learned: { answer: { keys: [newKey.publicKey] }, subscribeRefused: false, inboxPublishRefused: false },
      expected: {
        keys: [newKey.publicKey],
        source: "unproven",
        trusted: false,
        account: `not verified: ${newKey.publicKey} was learned on stagewatch.keys, where this client's own credentials may answer too (they may subscribe to stagewatch.keys and publish to an inbox: one account for all), so it proves only that whoever answered also signed`,
      },
    },
    {
      name: "the keys subject denied but inboxes open: a member could still answer on the asker's inbox",
      learned: { answer: { keys: [newKey.publicKey] }, subscribeRefused: true, inboxPublishRefused: false },
      expected: { keys: [newKey.publicKey], source: "unproven", trusted: false, account: expect.stringContaining("(they may publish to an inbox: one account for all)") as unknown as string },
    },
    {
      name: "inboxes denied but the keys subject open: a member could take the request first",
      learned: { answer: { keys: [newKey.publicKey] }, subscribeRefused: false, inboxPublishRefused: true },
      expected: { keys: [newKey.publicKey], source: "unproven", trusted: false, account: expect.stringContaining("(they may subscribe to stagewatch.keys: one account for all)") as unknown as string },
    },
    {
      name: "a service that signs nothing: no key, whoever answered",
      learned: { answer: { keys: [] }, ...refusedBoth },
      expected: { keys: [], source: "none", trusted: false, account: "not verified: no key given, and the service signs nothing (stagewatch.keys lists no key)" },
    },
    {
      name: "no answer (a service older than keys, or none)",
      learned: { answer: { missing: "no one answers there" }, ...refusedBoth },
      expected: { keys: [], source: "none", trusted: false, account: "not verified: no key given, none learned on stagewatch.keys (no one answers there)" },
    },
    {
      name: "an answer naming a key whose checksum is wrong",
      learned: { answer: { keys: [`${newKey.publicKey.slice(0, -1)}A`] }, ...refusedBoth },
      expected: { keys: [], source: "none", trusted: false, account: expect.stringMatching(/^not verified: no key given, and stagewatch\.keys answered no public key/) as unknown as string },
    },
  ];

  it.each(cases)("$name", ({ learned, expected }) => {
    const verification = verificationFrom(learned, subject);
    expect({ ...verification, keys: verification.keys.map((key) => key.publicKey) }).toEqual(expected);
  });

  it("keys given to the client are trusted as given; none given is no verification", () => {
    expect(configuredVerification([newKey.verifyKey])).toMatchObject({ source: "configured", trusted: true, keys: [newKey.verifyKey] });
    expect(configuredVerification([])).toEqual({ keys: [], source: "none", trusted: false, account: "not verified: no key given" });
  });
});
