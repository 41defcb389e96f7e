// Metric checks of the `verified` stage as the operator defines them (`serve --analyses FILE`),
// shaped like an Argo Rollouts AnalysisTemplate: a name, the arguments a request may give, a
// PromQL query template, a success condition, and how often, how many times and with how many
// failures or inconclusive results allowed it is measured.
//
// A request only names a template and gives the arguments it declares; it never carries PromQL.
// What keeps a tenant inside its own namespaces is checked here, when the file is read:
// - every query selects the request's namespace (`{{namespace}}`), which the service fills in
//   from the request's resolved namespace, one the tenant may observe;
// - every placeholder sits inside a double-quoted PromQL string literal, and every value is
//   written into it escaped (renderQuery), so no argument can close the literal and add a
//   matcher, an `or`, or another selector: the most an argument can do is select less.
import { z } from "zod";
import { AnalysisArgName, AnalysisArgValue, AnalysisName } from "../contract/schemas.js";
import { parseCondition } from "./condition.js";

/** What the service fills in itself; `args.NAME` are the request's. */
export const servicePlaceholders = ["namespace", "deployment", "revision"] as const;


const placeholderPattern = /\{\{\s*([^}]*?)\s*\}\}/g;

/** Where each placeholder of `query` sits: inside a double-quoted string literal or not. */
function placeholdersOf(query: string): { name: string; quoted: boolean }[] {
  const found: { name: string; quoted: boolean }[] = [];
  let quote: string | undefined;
  for (let i = 0; i < query.length; i++) {
    const char = query[i]!;
    if (quote !== undefined) {
      if (char === "\\" && quote !== "`") i++;
      else if (char === quote) quote = undefined;
      else if (query.startsWith("{{", i)) {
        const end = query.indexOf("}}", i);
        if (end < 0) break;
        found.push({ name: query.slice(i + 2, end).trim(), quoted: quote === '"' });
        i = end + 1;
      }
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (query.startsWith("{{", i)) {
      const end = query.indexOf("}}", i);
      if (end < 0) break;
      found.push({ name: query.slice(i + 2, end).trim(), quoted: false });
      i = end + 1;
    }
  }
  return found;
}

export const AnalysisTemplate = z
  .strictObject({
    name: AnalysisName,
    /** The arguments a request may (or, without a default, must) give. */
    args: z.array(z.strictObject({ name: AnalysisArgName, default: AnalysisArgValue.optional() })).max(16).default([]),
    query: z.string().min(1, "required").max(8192, "at most 8192 characters"),
    /** `result < 0.01`: what a measurement must meet to succeed. */
    successCondition: z.string().max(256),
    /** Seconds between measurements, the first one when the window opens. */
    intervalSeconds: z.int().positive().max(3600),
    /** Measurements taken; the check passes once all were taken within the limits. */
    count: z.int().positive().max(100),
    /** Failed measurements allowed; one more fails the check (Argo's failureLimit, default 0). */
    failureLimit: z.int().nonnegative().default(0),
    /** Measurements with no value (an empty result, NaN) allowed; one more fails the check (Argo's inconclusiveLimit, default 0). */
    inconclusiveLimit: z.int().nonnegative().default(0),
  })
  .superRefine((template, ctx) => {
    if (!parseCondition(template.successCondition).ok) {
      ctx.addIssue({ code: "custom", path: ["successCondition"], message: "must be 'result <op> <number>', <op> one of <, <=, >, >=, ==, != (e.g. 'result < 0.01')" });
    }
    const declared = new Set(template.args.map((arg) => arg.name));
    const placeholders = placeholdersOf(template.query);
    for (const { name, quoted } of placeholders) {
      const known = (servicePlaceholders as readonly string[]).includes(name) || (name.startsWith("args.") && declared.has(name.slice(5)));
      if (!known) ctx.addIssue({ code: "custom", path: ["query"], message: `{{${name}}} is neither ${servicePlaceholders.map((p) => `{{${p}}}`).join(", ")} nor a declared {{args.NAME}}` });
      else if (!quoted) ctx.addIssue({ code: "custom", path: ["query"], message: `{{${name}}} must sit inside a double-quoted string ("..."): a value outside one could change the query, not only the value` });
    }
    if (!placeholders.some((p) => p.name === "namespace")) {
      ctx.addIssue({ code: "custom", path: ["query"], message: 'must select the request\'s namespace (namespace="{{namespace}}"): a tenant may read only its own namespaces' });
    }
    if (template.intervalSeconds * (template.count - 1) > 24 * 3600) ctx.addIssue({ code: "custom", path: ["count"], message: "the measurements must fit in 24 hours" });
  });
export type AnalysisTemplate = z.infer<typeof AnalysisTemplate>;

export const AnalysesFile = z
  .strictObject({ analyses: z.array(AnalysisTemplate).min(1, "at least one analysis").max(64) })
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    file.analyses.forEach((template, index) => {
      const earlier = seen.get(template.name);
      if (earlier !== undefined) ctx.addIssue({ code: "custom", path: ["analyses", index, "name"], message: `'${template.name}' is already analyses[${earlier}]'s name` });
      else seen.set(template.name, index);
    });
  });
export type AnalysesFile = z.infer<typeof AnalysesFile>;

/** `value` as the inside of a double-quoted PromQL string literal (Go's escaping: `\` and `"`). */
export function promqlStringContent(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

export interface QueryBindings {
  readonly namespace: string;
  readonly deployment: string;
  /** The new revision: a Deployment's current ReplicaSet's pod-template-hash. */
  readonly revision: string;
  /** The request's arguments, defaults applied (resolveArgs). */
  readonly args: Readonly<Record<string, string>>;
}

/** The template's query with every placeholder replaced by its escaped value. */
export function renderQuery(template: AnalysisTemplate, bindings: QueryBindings): string {
  return template.query.replace(placeholderPattern, (_whole, raw: string) => {
    const name = raw.trim();
    const value = name.startsWith("args.") ? bindings.args[name.slice(5)] : bindings[name as (typeof servicePlaceholders)[number]];
    // AnalysisTemplate's check and resolveArgs leave no placeholder without a value.
    if (value === undefined) throw new RangeError(`analysis ${template.name}: no value for {{${name}}}`);
    return promqlStringContent(value);
  });
}

/** What a request gave for a template's arguments, checked against what it declares: problems name `args.NAME`. */
export function resolveArgs(template: AnalysisTemplate, given: Readonly<Record<string, string>>): { ok: true; args: Record<string, string> } | { ok: false; problems: { arg: string; message: string }[] } {
  const problems: { arg: string; message: string }[] = [];
  const declared = new Map(template.args.map((arg) => [arg.name, arg]));
  for (const name of Object.keys(given)) if (!declared.has(name)) problems.push({ arg: name, message: `analysis ${template.name} declares no argument '${name}'` });
  const args: Record<string, string> = {};
  for (const arg of template.args) {
    const value = given[arg.name] ?? arg.default;
    if (value === undefined) problems.push({ arg: arg.name, message: `required by analysis ${template.name}` });
    else {
      const parsed = AnalysisArgValue.safeParse(value);
      if (parsed.success) args[arg.name] = value;
      else problems.push({ arg: arg.name, message: parsed.error.issues[0]?.message ?? "invalid" });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, args };
}
