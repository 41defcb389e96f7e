// Which CEL library judges health checks: conformance to the CEL spec and evaluation speed of
// the three npm implementations, measured side by side. Not part of `npm run bench` (two of the
// candidates are not dependencies). Run with the candidates installed in a scratch directory:
//   mkdir /tmp/cel && cd /tmp/cel && npm init -y && npm i @bufbuild/cel@0.6.1 @bufbuild/cel-spec@0.6.1 \
//     @marcbachmann/cel-js@8.0.0 cel-js@0.8.2
//   CEL_CANDIDATES=/tmp/cel node bench/cel-libraries.mjs > bench/results/cel-libraries.txt
// Conformance: the cel-spec conformance suite as @bufbuild/cel-spec ships it (cel-spec v0.25.1),
// the tests without bindings, type environments or containers whose expected result is a scalar
// or an evaluation error (1,358). Numbers compare by value (int, uint and double alike), so the
// libraries that represent ints as JS numbers are not penalised for it. Extension suites
// (strings, math, optionals, bindings, block) count in the total but none was enabled.
// Speed: two Flux-style health expressions, compiled once, on a captured CRD; microseconds per
// evaluation, mean of 20,000.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const from = createRequire(`${process.env.CEL_CANDIDATES ?? process.cwd()}/package.json`);
const load = (name) => import(pathToFileURL(from.resolve(name)).href);
const { tests } = await load("@bufbuild/cel-spec/testdata/conformance.js");
const buf = await load("@bufbuild/cel");
const marc = await load("@marcbachmann/cel-js");
const chrome = await load("cel-js");

const libs = {
  "@bufbuild/cel 0.6.1": (expr) => { const r = buf.run(expr); if (buf.isCelError(r)) throw new Error(String(r.message ?? r)); return buf.isCelUint(r) ? r.value : r; },
  "@marcbachmann/cel-js 8.0.0": (expr) => marc.evaluate(expr),
  "cel-js 0.8.2": (expr) => chrome.evaluate(expr),
};
function* walk(suite, path = []) {
  for (const t of suite.tests ?? []) yield [[...path, suite.name].join("/"), t.original];
  for (const s of suite.suites ?? []) yield* walk(s, [...path, suite.name]);
}
function expected(o) {
  if (o.evalError) return { error: true };
  const v = o.value; if (!v) return undefined;
  if ("boolValue" in v) return { v: v.boolValue };
  if ("int64Value" in v) return { v: BigInt(v.int64Value) };
  if ("uint64Value" in v) return { v: BigInt(v.uint64Value) };
  if ("doubleValue" in v) return { v: Number(v.doubleValue) };
  if ("stringValue" in v) return { v: v.stringValue };
  if ("nullValue" in v) return { v: null };
  return undefined;
}
const same = (a, b) => {
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) return Number(a) === Number(b) || (Number.isNaN(Number(a)) && Number.isNaN(Number(b)));
  return a === b;
};
const cases = [];
for (const [suite, o] of walk(tests)) {
  if (o.bindings || o.typeEnv || o.container || o.checkOnly || o.disableMacros) continue;
  const e = expected(o); if (!e) continue;
  cases.push({ suite, o, e });
}
const result = {};
for (const [name, ev] of Object.entries(libs)) {
  let pass = 0; const bySuite = {};
  for (const { suite, o, e } of cases) {
    let ok;
    try { const r = ev(o.expr); ok = !e.error && same(r, e.v); } catch { ok = !!e.error; }
    if (ok) pass++;
    const top = suite.split("/")[1]; bySuite[top] ??= [0, 0]; bySuite[top][1]++; if (ok) bySuite[top][0]++;
  }
  // The language itself, without the extension suites (strings, math, encoders, bindings, block,
  // optionals, two-variable comprehensions) no library was asked to enable.
  const core = Object.entries(bySuite).filter(([suite]) => !/_ext$|^optionals$|^macros2$/.test(suite));
  const corePass = core.reduce((sum, [, [p]]) => sum + p, 0);
  const coreTotal = core.reduce((sum, [, [, t]]) => sum + t, 0);
  result[name] = { pass, total: cases.length, pct: (100 * pass / cases.length).toFixed(1), core: `${corePass}/${coreTotal} (${((100 * corePass) / coreTotal).toFixed(1)}%)`, bySuite: Object.fromEntries(Object.entries(bySuite).map(([k, [p, t]]) => [k, `${p}/${t}`])) };
}
console.log(JSON.stringify(result, null, 1));

// Speed: health expressions compiled once, evaluated on a realistic CR (Flux healthCheckExprs style).
const obj = JSON.parse(readFileSync(new URL("../test/fixtures/kube/captured/crd-established.json", import.meta.url), "utf8"));
const exprs = {
  conditions: "status.conditions.filter(e, e.type == 'Established').all(e, e.status == 'True')",
  nested: "has(status.acceptedNames) && status.acceptedNames.kind == 'Gadget' && metadata.generation >= 1",
};
const compiled = {
  "@bufbuild/cel 0.6.1": (x) => { const env = buf.celEnv(); const p = buf.plan(env, buf.parse(x)); return (ctx) => p(ctx); },
  "@marcbachmann/cel-js 8.0.0": (x) => { const f = marc.parse(x); return (ctx) => f(ctx); },
  "cel-js 0.8.2": (x) => { const p = chrome.parse(x); return (ctx) => chrome.evaluate(p.cst, ctx); },
};
for (const [name, compile] of Object.entries(compiled)) {
  for (const [label, x] of Object.entries(exprs)) {
    let f; try { f = compile(x); } catch (e) { console.log(name, label, "compile error", e.message); continue; }
    const ctx = { status: obj.status, metadata: obj.metadata, spec: obj.spec };
    let out; try { out = f(ctx); } catch (e) { out = "ERR " + e.message; }
    const n = 20000; const t0 = performance.now(); for (let i = 0; i < n; i++) f(ctx); const us = ((performance.now() - t0) * 1000) / n;
    console.log(`${name} ${label}: result ${String(out)} ${us.toFixed(2)} us/eval`);
  }
}
