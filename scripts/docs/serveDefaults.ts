// docs/reference/serve-defaults.md: every default `serve` applies, from src/service/settings.ts's
// serviceDefaults (the one place a default is written: serve's help prints the same object), with
// the flag that changes it and the chart value that gives the flag.
import { serviceDefaults } from "../../src/service/settings.ts";
import { formatDuration } from "../../src/verdicts/text/text.ts";
import { chartServeFlags, type ChartFlag } from "./chartFlags.ts";
import { definedFlags, helpText, takesFlag } from "./commandLine.ts";
import { code, generatedNotice, table } from "./markdown.ts";

export type SettingKey = keyof typeof serviceDefaults;

/** Settings no flag of serve changes, and what does. */
const settingsWithoutFlag: Partial<Record<SettingKey, string>> = { traces: "the OTEL_* variables ([environment](environment.md))" };

/** `leaseDurationMs` -> `--lease-duration`: serve's flags are its settings' names, without the unit of milliseconds. */
function flagNameOf(key: string): string {
  return `--${key.replace(/Ms$/, "").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** Each setting with a default, and the flag of serve that changes it (undefined: none does); throws when serve's parser does not take the flag its name gives. */
export async function serveSettingFlags(): Promise<Map<SettingKey, string | undefined>> {
  const flags = new Map<SettingKey, string | undefined>();
  for (const key of Object.keys(serviceDefaults) as SettingKey[]) {
    if (settingsWithoutFlag[key] !== undefined) {
      flags.set(key, undefined);
      continue;
    }
    const flag = flagNameOf(key);
    if (!(await takesFlag("serve", flag))) throw new Error(`serviceDefaults.${key}: serve takes no ${flag}; name the setting after its flag, or list it in settingsWithoutFlag (scripts/docs/serveDefaults.ts)`);
    flags.set(key, flag);
  }
  return flags;
}

/** A default as serve's flag takes it: `15s`, `256MiB`, `true`. */
function defaultText(key: SettingKey): string {
  const value = serviceDefaults[key];
  if (key === "traces") return "off";
  if (key.endsWith("Ms")) return formatDuration(value as number);
  if (key.endsWith("Bytes")) return byteSizeText(value as number);
  return String(value);
}

function byteSizeText(bytes: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) if (bytes % size === 0) return `${bytes / size}${unit}`;
  return String(bytes);
}

function chartText(chartFlag: ChartFlag | undefined): string {
  if (chartFlag === undefined) return "not set by the chart";
  return "literal" in chartFlag ? `always ${code(chartFlag.literal)}` : code(chartFlag.valuePath);
}

export async function serveDefaultsPage(): Promise<string> {
  const chart = new Map(chartServeFlags().map((chartFlag) => [chartFlag.flag, chartFlag]));
  const settingFlags = await serveSettingFlags();
  const withDefault = new Set(settingFlags.values());
  const others = definedFlags(await helpText("serve")).filter((flag) => flag.startsWith("--") && flag !== "--help" && !withDefault.has(flag));
  const rows = [...settingFlags].map(([key, flag]) => [
    flag === undefined ? settingsWithoutFlag[key]! : code(flag),
    code(defaultText(key)),
    code(key),
    flag === undefined ? "" : chartText(chart.get(flag)),
  ]);
  return [
    generatedNotice("src/service/settings.ts (serviceDefaults) and helm/stagewatch/templates/deployment.yaml"),
    "# serve's defaults",
    "",
    "What `stagewatch serve` uses when a flag is not given ([what each flag does](cli/serve.md)). The chart's",
    "`values.yaml` gives the same defaults (test/unit/chart-defaults.test.ts holds it to them). serve's other flags",
    `(${others.map(code).join(", ")}) have no default setting: each one's help says what holds without it.`,
    "",
    table(["Flag", "Default", "Setting", "Chart value"], rows),
    "",
  ].join("\n");
}
