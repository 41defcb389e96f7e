// The Node.js the command line needs, checked before anything else is loaded: on an older Node the
// bundle would die on whatever it reaches first (Node 20 on `enableCompileCache`, a SyntaxError
// about an export) instead of saying what to install. Plain code only, nothing imported, so this
// module and cli.ts parse and run on every Node still found on CI images. The minimum is
// package.json's `engines.node` (test/unit/node-version.test.ts keeps the two equal).
export const requiredNode = { major: 22, minor: 19 } as const;

/** undefined when `version` (process.versions.node, "20.20.2") is new enough; else the one line to print. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  const { major: needMajor, minor: needMinor } = requiredNode;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `stagewatch: needs Node.js ${needMajor}.${needMinor} or newer (22 LTS from 22.${needMinor}, or 24); this is Node.js ${version}\n`;
}
