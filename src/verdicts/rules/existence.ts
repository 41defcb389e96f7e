// Kinds whose existence is all there is to observe: they have no status, or what it reports is no
// verdict on the apply. The list, with the reason for each, is the `existence` class of
// builtInKinds.ts. Secrets and ConfigMaps are only ever read as metadata.
import { settled, type ResourceReading } from "./reading.js";
import { builtInKinds } from "./builtInKinds.js";

export const existenceOnlyKinds: readonly string[] = [...builtInKinds].filter(([, { judged }]) => judged === "existence").map(([kind]) => kind);

export function settleExisting(): ResourceReading {
  return settled("exists");
}
