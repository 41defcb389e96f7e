// The Helm chart's values.yaml restates serve's defaults, one value per flag its deployment
// template renders: each such value must be the service's own default (src/service/settings.ts),
// read as serve reads the flag (`15s`, `256MiB`), so an install with the chart's defaults runs as
// `stagewatch serve` with none. Flags are matched to settings by name (scripts/docs/serveDefaults.ts),
// values to flags by the template itself (scripts/docs/chartFlags.ts).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { chartServeFlags, type ChartFlag } from "../../scripts/docs/chartFlags.ts";
import { helpText } from "../../scripts/docs/commandLine.ts";
import { serveSettingFlags, type SettingKey } from "../../scripts/docs/serveDefaults.ts";
import { booleanFlag } from "../../src/cli/inputs/args.ts";
import { byteSizeFlag } from "../../src/cli/inputs/byteSize.ts";
import { durationFlagSeconds } from "../../src/cli/inputs/duration.ts";
import { serviceDefaults } from "../../src/service/settings.ts";

const values = parse(readFileSync(fileURLToPath(new URL("../../helm/stagewatch/values.yaml", import.meta.url)), "utf8")) as Record<string, unknown>;
const chartFlags = chartServeFlags();
const settingOfFlag = new Map([...(await serveSettingFlags())].flatMap(([key, flag]) => (flag === undefined ? [] : [[flag, key] as const])));

/** Flags the chart renders that set no setting with a default, and why. */
const withoutSettingDefault: Record<string, string> = {
  "--log-level": "the logger's level, defaulted by serve's parser (checked below against its help)",
  "--namespaces": "none: the whole cluster",
  "--secret-namespaces": "none: Secrets everywhere; the chart always gives a list (empty: none), never a cluster-wide list on Secrets",
  "--health-checks": "none: the chart renders a file only when healthChecks holds some",
  "--cluster-name": "none: the chart renders it only when clusterName is set",
  "--fail-on": "none: the chart renders it only when failOn holds some (else defaultFailOn, replaced freely)",
};

function valueAt(path: string): unknown {
  return path.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], values);
}

/** What serve makes of the flag as the chart renders it with values.yaml's defaults. */
function asServeReads(key: SettingKey, chartFlag: ChartFlag): unknown {
  if ("valuePath" in chartFlag && chartFlag.isSwitch) return Boolean(valueAt(chartFlag.valuePath));
  const text = "literal" in chartFlag ? chartFlag.literal : String(valueAt(chartFlag.valuePath));
  const fallback = serviceDefaults[key];
  if (key.endsWith("Ms")) return durationFlagSeconds(chartFlag.flag, text) * 1000;
  if (key.endsWith("Bytes")) return byteSizeFlag(chartFlag.flag, text);
  if (typeof fallback === "boolean") return booleanFlag(chartFlag.flag.slice(2), text);
  if (typeof fallback === "number") return Number(text);
  return text;
}

describe("helm/stagewatch/values.yaml gives serve's defaults", () => {
  test("every flag the template renders is compared here, or sets no setting with a default", () => {
    const unmatched = chartFlags.map((chartFlag) => chartFlag.flag).filter((flag) => !settingOfFlag.has(flag));
    expect(unmatched.sort()).toEqual(Object.keys(withoutSettingDefault).sort());
  });

  test.each(chartFlags.filter((chartFlag) => settingOfFlag.has(chartFlag.flag)).map((chartFlag) => ({ ...chartFlag, name: chartFlag.flag })))("$name", (chartFlag) => {
    const key = settingOfFlag.get(chartFlag.flag)!;
    const from = "literal" in chartFlag ? `the template's ${chartFlag.flag}=${chartFlag.literal}` : `values.yaml ${chartFlag.valuePath}: ${JSON.stringify(valueAt(chartFlag.valuePath))}`;
    expect(asServeReads(key, chartFlag), `${from} is not serve's default ${key}`).toEqual(serviceDefaults[key]);
  });

  test("--log-level's value is the level serve's help gives as its default", async () => {
    const logLevel = chartFlags.find((chartFlag) => chartFlag.flag === "--log-level");
    const stated = /--log-level .*\(default (\w+)\)/.exec(await helpText("serve"))?.[1];
    expect(logLevel && "valuePath" in logLevel ? valueAt(logLevel.valuePath) : undefined).toBe(stated ?? "(no default in serve's help)");
  });
});
