// Health rules users write in CEL for custom kinds, in the shape Flux's Kustomization takes them
// (`spec.healthCheckExprs`, RFC-0009): per apiVersion and kind, a required `current` expression and
// optional `inProgress` and `failed` ones, each reading the object's own fields as top-level
// variables (`status`, `metadata`, `spec`). After the generic checks (deleting, generation not yet
// observed), they are evaluated in Flux's order, inProgress, failed, current; the first that holds
// decides, and none holding is pending. For a kind with such a rule, it decides instead of the
// health library's entry and the fallback.
//
// A reading carries the object's own words, not only the expression that held: optional `reason`
// and `message` expressions (CEL returning a string) say them; without those, a pending or failed
// reading takes the condition that speaks against the object, else `status.message`, and a settled
// one its positive condition (signals.ts). Only when the object says nothing is the expression shown.
//
// Where stagewatch differs from Flux, on purpose:
// - An expression that errors at run time (a field not written yet, a type mismatch) is a pending
//   reading with the error, never a crash and never a failure: Flux fails the health check, and
//   `status.conditions` before the operator wrote any would fail every fresh apply.
// - Expressions are compiled once, at start-up. A syntax error, or a call of a function the
//   library does not have (found by one evaluation against an empty object), is a start-up error
//   naming the kind and the expression; other run-time errors depend on the object and cannot be
//   told apart before one arrives.
// - The rule is keyed by group and kind, like every rule: the apiVersion's version is ignored.
// - Built-in kinds cannot be given CEL rules: they have their rule (or classification) already.
// - An expression whose estimated cost on an object passes the cost limit (celCost.ts) is not
//   evaluated: the reading is pending, HealthCheckError naming the limit.
//
// CEL is evaluated by @bufbuild/cel; why that library is in docs/design/decisions.md (conformance,
// speed, upkeep).
// It has no optional-field syntax (`status.?conditions`): guard with `has(status.conditions)`.
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { z } from "zod";
import type { KubeObject } from "../../kube/objects.js";
import { groupKind } from "../contract/kinds.js";
import { failed, pending, readingReasons, settled, type ResourceReading } from "../rules/reading.js";
import { costPolynomial, defaultCelCostLimit, estimatedCost, largestRange, type CostPolynomial } from "./celCost.js";
import { fieldsReadByCheck, type FieldTree } from "./fieldsRead.js";

export type { FieldTree } from "./fieldsRead.js";
import { reasonWord, wordsAgainst, wordsFor } from "../rules/signals.js";
import { builtInKinds } from "../rules/builtInKinds.js";
import type { Rule, RuleInput } from "../rules/input.js";

const expression = z.string().trim().min(1, "an empty expression");

export const HealthCheck = z.strictObject({
  apiVersion: z.string().min(1).regex(/^[^/]+(\/[^/]+)?$/, "group/version, or v1"),
  kind: z.string().min(1),
  current: expression,
  inProgress: expression.optional(),
  failed: expression.optional(),
  /** CEL returning the reason a pending or failed reading carries (a CamelCase word). */
  reason: expression.optional(),
  /** CEL returning the object's own words for the reading (a condition's message, `status.message`). */
  message: expression.optional(),
});
export type HealthCheck = z.infer<typeof HealthCheck>;

/** The file `serve --health-checks` reads (YAML or JSON), and the chart's `healthChecks` value renders. */
export const HealthCheckConfig = z.strictObject({ healthChecks: z.array(HealthCheck) });
export type HealthCheckConfig = z.infer<typeof HealthCheckConfig>;

export const healthCheckReasons = {
  /** An expression could not be evaluated on this object (field missing, wrong type). */
  expressionError: "HealthCheckError",
  /** The `failed` expression holds. */
  failedExpression: "HealthCheckFailed",
  /** No expression holds yet. */
  inProgress: "HealthCheckInProgress",
} as const;

type Which = "inProgress" | "failed" | "current" | "reason" | "message";

/** An expression that does not compile: which kind, which of its expressions, and why. */
export class HealthCheckCompileError extends Error {
  override readonly name = "HealthCheckCompileError";
  readonly kindKey: string;
  readonly which: Which;
  readonly expression: string;
  constructor(kindKey: string, which: Which, expression: string, reason: string, options?: { cause?: unknown }) {
    super(`health check for ${kindKey}: ${which} expression ${JSON.stringify(expression)} does not compile: ${reason}`, options);
    this.kindKey = kindKey;
    this.which = which;
    this.expression = expression;
  }
}

type Program = (object: KubeObject) => { value: unknown } | { error: string };

function compile(kindKey: string, which: Which, source: string, costLimit: number): Program {
  let run: ReturnType<typeof plan>;
  let cost: CostPolynomial;
  try {
    const parsed = parse(source);
    cost = costPolynomial(parsed);
    run = plan(celEnv(), parsed);
  } catch (error) {
    throw new HealthCheckCompileError(kindKey, which, source, error instanceof Error ? error.message : String(error), { cause: error });
  }
  const program: Program = (object) => {
    // An absent spec or status reads as empty, so that `has(status.conditions)` guards hold false
    // rather than fail: the cache drops the spec of kinds whose checks read none of it.
    const bindings: Record<string, unknown> = { spec: {}, status: {} };
    for (const [key, value] of Object.entries(object)) if (value !== undefined && value !== null) bindings[key] = value;
    const estimate = estimatedCost(cost, largestRange(object));
    if (estimate > costLimit) return { error: `estimated cost ${Math.round(estimate)} over the CEL cost limit ${costLimit} (serve --cel-cost-limit) for lists this long; not evaluated` };
    try {
      const result = run(bindings as never);
      return isCelError(result) ? { error: result.message } : { value: result };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  const probe = program({ apiVersion: "", kind: "", metadata: { name: "", uid: "" }, spec: {}, status: {} });
  if ("error" in probe && probe.error.startsWith("unbound function")) throw new HealthCheckCompileError(kindKey, which, source, probe.error);
  return program;
}

/** The string an optional words expression gives for this object; undefined when absent, failing or empty. */
function said(program: Program | undefined, object: KubeObject): string | undefined {
  const outcome = program?.(object);
  return outcome && "value" in outcome && typeof outcome.value === "string" && outcome.value !== "" ? outcome.value : undefined;
}

export type HealthCheckCompileOptions = {
  /** The estimated cost past which an expression is not evaluated on an object (celCost.ts). */
  readonly costLimit?: number;
};

/** One health check compiled into a rule; throws HealthCheckCompileError as compileHealthChecks does. */
export function compileHealthCheck(check: HealthCheck, kindKey: string, options: HealthCheckCompileOptions = {}): Rule {
  const costLimit = options.costLimit ?? defaultCelCostLimit;
  const steps = (
    [
      ["inProgress", check.inProgress],
      ["failed", check.failed],
      ["current", check.current],
    ] as const
  ).flatMap(([which, source]) => (source === undefined ? [] : [{ which, source, program: compile(kindKey, which, source, costLimit) }]));
  const reasonProgram = check.reason === undefined ? undefined : compile(kindKey, "reason", check.reason, costLimit);
  const messageProgram = check.message === undefined ? undefined : compile(kindKey, "message", check.message, costLimit);

  const notDone = (object: KubeObject, fallbackReason: string, fallbackMessage: string) => {
    const against = wordsAgainst(object);
    const reason = said(reasonProgram, object) ?? against?.reason;
    return { reason: reasonWord(reason, fallbackReason), message: said(messageProgram, object) ?? against?.message ?? fallbackMessage };
  };

  const rule = ({ object }: RuleInput): ResourceReading => {
    // Before its controller writes a status, an object can only be settled by an entry that settles
    // on existence (`current: "true"`); an expression failing on the missing fields says no more.
    const unwritten = object.status === undefined || object.status === null;
    const awaitingStatus = pending(readingReasons.awaitingStatus, "no status written yet");
    for (const { which, source, program } of steps) {
      const outcome = program(object);
      if ("error" in outcome) {
        return unwritten ? awaitingStatus : pending(healthCheckReasons.expressionError, `${which} expression ${source}: ${outcome.error}`);
      }
      if (typeof outcome.value !== "boolean") {
        return pending(healthCheckReasons.expressionError, `${which} expression ${source}: returned ${typeof outcome.value}, not a bool`);
      }
      if (!outcome.value) continue;
      if (which === "current") return settled(said(messageProgram, object) ?? wordsFor(object) ?? `current holds: ${source}`);
      const reading = notDone(object, which === "failed" ? healthCheckReasons.failedExpression : healthCheckReasons.inProgress, `${which} holds: ${source}`);
      return which === "failed" ? failed(reading.reason, reading.message) : pending(reading.reason, reading.message);
    }
    if (unwritten) return awaitingStatus;
    const waiting = notDone(object, healthCheckReasons.inProgress, `waiting for current: ${check.current}`);
    return pending(waiting.reason, waiting.message);
  };
  fieldsByRule.set(rule, fieldsReadByCheck(check));
  return rule;
}

const fieldsByRule = new WeakMap<Rule, FieldTree>();

/** The fields of spec and status a rule compiled from a health check reads (what the cache must keep); undefined for other rules. */
export function fieldsReadByRule(rule: Rule): FieldTree | undefined {
  return fieldsByRule.get(rule);
}

/**
 * The rules of a configuration, by kind key, compiled. Throws HealthCheckCompileError for an
 * expression that does not compile, and a plain Error for a built-in kind or a kind named twice.
 */
export function compileHealthChecks(checks: readonly HealthCheck[], options: HealthCheckCompileOptions = {}): ReadonlyMap<string, Rule> {
  const compiled = new Map<string, Rule>();
  for (const check of checks) {
    const kindKey = groupKind(check.apiVersion, check.kind);
    if (builtInKinds.has(kindKey)) throw new Error(`health check for ${kindKey}: built-in kinds keep their own rule; CEL health checks are for custom kinds`);
    if (compiled.has(kindKey)) throw new Error(`health check for ${kindKey}: given twice`);
    compiled.set(kindKey, compileHealthCheck(check, kindKey, options));
  }
  return compiled;
}
