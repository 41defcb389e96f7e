// The flags the Helm chart gives `serve`, read from helm/stagewatch/templates/deployment.yaml's
// args: each with the value it is rendered from (`limits.maxInFlight` inside `with .Values.limits`,
// `containerLogs.enabled` for a switch under `if`), or the literal it is fixed to. The template is
// read as text with the few forms it uses; a line of another form throws, so a new form is taught
// here rather than skipped.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const deploymentTemplate = fileURLToPath(new URL("../../helm/stagewatch/templates/deployment.yaml", import.meta.url));

export type ChartFlag =
  /** `--flag={{ ... .Values.path ... }}`, or a switch rendered when `.Values.path` holds. */
  | { readonly flag: string; readonly valuePath: string; readonly isSwitch: boolean }
  /** `--flag=text`, the same in every release. */
  | { readonly flag: string; readonly literal: string };

export function chartServeFlags(template = readFileSync(deploymentTemplate, "utf8")): ChartFlag[] {
  const lines = template.split("\n");
  const start = lines.findIndex((line) => /^\s*args:\s*$/.test(line));
  const end = lines.findIndex((line, index) => index > start && /^\s*env:\s*$/.test(line));
  if (start < 0 || end < 0) throw new Error(`${deploymentTemplate}: no args: ... env: block`);
  // The blocks open around the current line: `with` sets `.`, `if` is the condition of a switch.
  const blocks: { readonly path: string | undefined }[] = [];
  const flags: ChartFlag[] = [];
  for (const line of lines.slice(start + 1, end)) {
    const action = /^\s*\{\{-?\s*(with|if|range|else|end)\b\s*(.*?)\s*-?\}\}\s*$/.exec(line);
    if (action) {
      if (action[1] === "end") blocks.pop();
      else if (action[1] !== "else") blocks.push({ path: /^\.Values\.([\w.]+)$/.exec(action[2]!)?.[1] });
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    const item = /^\s*- (--[a-z][a-z0-9-]*)(?:=(.*))?$/.exec(line);
    if (!item) {
      if (/^\s*- serve\s*$/.test(line)) continue;
      throw new Error(`${deploymentTemplate}: an args line this reader does not know: ${line.trim()}`);
    }
    const [, flag, value] = item as unknown as [string, string, string | undefined];
    const inner = blocks.at(-1)?.path;
    if (value === undefined) {
      if (inner === undefined) throw new Error(`${deploymentTemplate}: ${flag} is rendered under no .Values condition`);
      flags.push({ flag, valuePath: inner, isSwitch: true });
      continue;
    }
    const expression = /\{\{\s*(.*?)\s*\}\}/.exec(value)?.[1];
    if (expression === undefined) {
      flags.push({ flag, literal: value });
      continue;
    }
    const absolute = /\.Values\.([\w.]+)/.exec(expression)?.[1];
    const relative = /(?:^|\s)\.(\w+)/.exec(expression)?.[1];
    const dot = /(?:^|\s)\.(?:\s|$)/.test(expression);
    const valuePath = absolute ?? (inner === undefined ? undefined : relative !== undefined ? `${inner}.${relative}` : dot ? inner : undefined);
    if (valuePath === undefined) throw new Error(`${deploymentTemplate}: cannot tell which value ${flag} is rendered from: ${value}`);
    flags.push({ flag, valuePath, isSwitch: false });
  }
  return flags;
}
