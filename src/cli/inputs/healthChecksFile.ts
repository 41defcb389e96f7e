// `serve --health-checks FILE`: the CEL health checks of custom kinds, read and compiled before
// anything connects, so a bad file is bad input (exit 2) naming the kind and expression.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { compileHealthChecks, describeIssues, HealthCheckConfig, parseWith, type HealthCheckCompileOptions, type Rule } from "../../verdicts/index.js";
import { UsageError } from "../io/usage.js";

export function readHealthChecks(path: string, options: HealthCheckCompileOptions = {}): ReadonlyMap<string, Rule> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`--health-checks: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new UsageError(`--health-checks: ${path} is not YAML or JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = parseWith(HealthCheckConfig, document ?? { healthChecks: [] });
  if (!parsed.ok) throw new UsageError(`--health-checks: ${path}: ${describeIssues(parsed.issues)}`);
  try {
    return compileHealthChecks(parsed.value.healthChecks, options);
  } catch (error) {
    throw new UsageError(`--health-checks: ${path}: ${(error as Error).message}`, { cause: error });
  }
}
