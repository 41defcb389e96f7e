// The flags every live-cluster benchmark takes besides its own: an existing cluster and NATS
// (--kubeconfig with --nats-url) instead of a local one, and --help for its usage.
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

const clusterOptions = {
  kubeconfig: { type: "string" },
  "nats-url": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export function parseClusterBenchArgs<T extends ParseArgsOptionsConfig>(usage: string, options: T) {
  const { values } = parseArgs({ options: { ...options, ...clusterOptions } });
  const flags = values as Record<string, string | boolean | undefined>;
  if (flags["help"] === true) {
    process.stdout.write(usage);
    process.exit(0);
  }
  /** A flag's value (or each of a comma-separated list's) as a whole number, else the usage and exit 2. */
  const wholeNumbers = (name: keyof T & string, least = 0): number[] => {
    const numbers = String(flags[name]).split(",").map(Number);
    if (numbers.some((n) => !Number.isInteger(n) || n < least)) {
      process.stderr.write(`--${name}: whole numbers of at least ${least}, got ${flags[name]}\n\n${usage}`);
      process.exit(2);
    }
    return numbers;
  };
  return { values, wholeNumber: (name: keyof T & string, least = 0) => wholeNumbers(name, least)[0]!, wholeNumbers };
}
