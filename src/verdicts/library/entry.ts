// An entry of the health library shipped with stagewatch: a CEL health check in the format
// `serve --health-checks` reads (celHealthChecks.ts), with where its facts come from. One YAML file
// a group and kind under health/ holds an entry and its test objects; the entries without their
// tests are compiled into entries.ts (`npm run health:update`), so the bundled CLI and the
// service read no file at run time.
import { z } from "zod";
import { HealthCheck } from "../cel/celHealthChecks.js";
import { ResourceState } from "../contract/schemas.js";

export const LibraryEntry = HealthCheck.extend({
  /**
   * `group/version` the entry was written from. A group `*.suffix` matches every group ending in
   * `.suffix` (Crossplane's providers), and kind `*` every kind of the group: the exact entry of a
   * kind wins over a wildcard one.
   */
  apiVersion: z.string().regex(/^(\*\.)?[a-z0-9.-]+\/[a-z0-9]+$/, "group/version, the group optionally '*.suffix'"),
  kind: z.string().regex(/^(\*|[A-Za-z][A-Za-z0-9]*)$/, "a kind (Zalando's is 'postgresql'), or '*'"),
  /** The project and version whose API and controller the entry reads, and what it reads there. */
  source: z.string().min(1),
  /**
   * Set for kinds whose controller leaves status.observedGeneration behind on a failed reconcile
   * (Flux's keep -1 or the last good generation): where its source does so. With it, a failure the
   * entry reads from conditions stamped with the object's generation counts while
   * observedGeneration lags (genericChecks.ts); without it, nothing is read until it catches up.
   */
  failsBeforeObserving: z.string().min(1).optional(),
});
export type LibraryEntry = z.infer<typeof LibraryEntry>;

/** A test object: the entry's kind unless named, metadata defaulted (name, namespace, uid, generation 1). */
export const LibraryTest = z.strictObject({
  name: z.string().min(1),
  /** The object as its controller writes it; apiVersion and kind default to the entry's. */
  object: z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    spec: z.unknown().optional(),
    status: z.unknown().optional(),
  }),
  expect: z.strictObject({ state: ResourceState, reason: z.string().optional(), message: z.string().optional() }),
});
export type LibraryTest = z.infer<typeof LibraryTest>;

export const LibraryFile = LibraryEntry.extend({ tests: z.array(LibraryTest).min(1) });
export type LibraryFile = z.infer<typeof LibraryFile>;
