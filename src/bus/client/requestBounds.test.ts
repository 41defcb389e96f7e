// What the request schemas accept for the fields that become subject tokens and KV keys always
// makes subjects far below nats-server's max_control_line (4 KiB), with a prefix of 64 characters
// (the arithmetic is written above DeploymentName in src/verdicts/contract/schemas.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { observationRequest } from "../../../test/fixtures/observation.js";
import { requestFieldValue } from "../../../test/fixtures/requestFields.js";
import { GetRequest, ObservationRequest } from "../../verdicts/contract/schemas.js";
import { busNames } from "../subjects.js";

const names = busNames(`${"p".repeat(31)}.${"q".repeat(32)}`);
/** What nats.js asks for `kv.get(key)` on a bucket that allows direct gets, as the records bucket does. */
const directGet = (bucket: string, key: string) => `$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.${key}`;
const request = observationRequest();

describe("subjects made of accepted request fields", () => {
  it("an accepted observationId makes record, lease and event subjects under 512 characters", () => {
    fc.assert(
      fc.property(requestFieldValue, (observationId) => {
        if (!GetRequest.safeParse({ observationId }).success) return;
        const subjects = [
          directGet(names.recordsBucket, `observations.${observationId}`),
          directGet(names.leasesBucket, observationId),
          names.eventSubject("d".repeat(63), observationId),
          names.eventSubject("d".repeat(63), observationId, "t".repeat(64)),
          ...names.eventFilters(observationId),
        ];
        for (const subject of subjects) expect(subject.length).toBeLessThan(512);
      }),
      { examples: [["a".repeat(64)]] },
    );
  });

  it("an accepted deployment is a subject token", () => {
    fc.assert(
      fc.property(requestFieldValue, (deployment) => {
        if (!ObservationRequest.safeParse({ ...request, deployment }).success) return;
        expect(names.eventSubject(deployment, "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b").length).toBeLessThan(512);
      }),
    );
  });
});
