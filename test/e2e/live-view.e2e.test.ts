/**
 * `stagewatch observe`'s progress as a person sees it: in a real pseudo-terminal (tmux), the live
 * view redraws one line per resource in place and leaves the final state on screen; with stderr
 * not a terminal (a CI log), plain lines without a single control character. The compiled CLI
 * against `stagewatch serve` on the e2e cluster and NATS server.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { compiledStagewatch, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { configMap, deployment, type Declared } from "./support/manifests.ts";
import { useServes } from "./support/serve.ts";
import { apply } from "./support/stagewatch.ts";
import { startInTerminal, type TerminalSession } from "./support/terminal.ts";

const kc = kubeConfig();

describe("observe's progress on a terminal and in a log", () => {
  const serves = useServes();
  const dir = scratchDir("live-view");
  let prefix: string;
  let namespace: string;
  const terminals: TerminalSession[] = [];

  beforeAll(async () => {
    namespace = await createNamespace("live");
    prefix = (await serves.start({ name: "live" })).prefix;
  });

  afterAll(async () => {
    for (const terminal of terminals) terminal.close();
    if (namespace) await deleteNamespace(namespace);
  });

  function manifests(name: string, ...objects: Declared[]): string {
    const path = join(dir, name);
    mkdirSync(path, { recursive: true });
    return writeManifest(join(path, "manifests.yaml"), objects.map((object) => object.manifest));
  }

  it("a TTY: one line per resource redrawn in place with elapsed time and budget left, the final state left on screen", async () => {
    const config = configMap(namespace, "live-config");
    const web = deployment({ namespace, name: "web", replicas: 1 });
    const slow = deployment({ namespace, name: "slow", replicas: 1, fault: Fault.NeverReady });
    await apply(kc, config.manifest, web.manifest, slow.manifest);
    const file = manifests("live", config, web, slow);
    const verdictFile = join(dir, "live-verdict.txt");
    const terminal = startInTerminal({
      dir,
      name: "live",
      columns: 120,
      rows: 30,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir, NATS_URL: natsUrl() },
      script: `'${process.execPath}' '${compiledStagewatch().cli}' observe -f '${file}' --deployment live --timeout 12s --subject-prefix ${prefix} > '${verdictFile}'`,
    });
    terminals.push(terminal);

    // While it runs: the clock has moved on, and still one header: the block was redrawn, not scrolled.
    const running = await eventually("the live view after a few seconds", async () => {
      const screen = terminal.screen();
      const header = screen.find((line) => line.startsWith("deployment live: "));
      return header && /: reached \w+ of healthy {3}([3-9]|1[01])s elapsed, \d+s left$/.test(header) ? screen : undefined;
    });
    expect(running.filter((line) => line.startsWith("deployment live")), running.join("\n")).toHaveLength(1);
    const has = (screen: string[], pattern: RegExp) => expect(screen.some((line) => pattern.test(line)), `${pattern}\n${screen.join("\n")}`).toBe(true);
    has(running, new RegExp(`^settled ConfigMap ${namespace}/live-config +exists$`));
    has(running, new RegExp(`^pending Deployment ${namespace}/slow +ContainersNotReady: 0/1 replicas ready`));

    expect(await terminal.exited()).toBe(1);
    const final = terminal.screen().filter((line) => line !== "");
    expect(final[0], final.join("\n")).toMatch(/^observing 3 resources as \S+$/);
    expect(final.slice(1, 3)).toEqual(["deployment live timed out: reached bootstrapped of healthy in 12s", "stages  applied ✓  bootstrapped ✓  healthy ✗"]);
    expect(final[3]).toMatch(new RegExp(`^settled ConfigMap ${namespace}/live-config +exists$`));
    expect(final[4]).toMatch(new RegExp(`^settled Deployment ${namespace}/web +1/1 replicas ready`));
    expect(final[5]).toMatch(new RegExp(`^pending Deployment ${namespace}/slow +ContainersNotReady: 0/1 replicas ready`));
    // Below the final block, once: no verify key was given, and the one it learned proves nothing
    // on this NATS of one account. The line wraps at the terminal's width, and the screen's rows
    // lose their trailing spaces, so it is compared without white space.
    expect(final.slice(6).join("").replace(/\s/g, ""), final.join("\n")).toMatch(
      /^stagewatch:verdictnotverified:N[A-Z2-7]{55}waslearnedon\S+\.keys,wherethisclient'sowncredentialsmayanswertoo.*;anyonewhomaypublisheventscouldhavewrittenit$/,
    );
    expect(final.filter((line) => line.startsWith("stagewatch: ")), final.join("\n")).toHaveLength(1);
    // The verdict went to stdout (the file), the view to the terminal only.
    expect(readFileSync(verdictFile, "utf8")).toMatch(/^deployment live did not reach healthy within 12s: /);
  }, 120_000);

  it("not a TTY (a CI log): plain lines, one per change, no control character", async () => {
    const plain = deployment({ namespace, name: "plain", replicas: 1 });
    await apply(kc, plain.manifest);
    const result = await runStagewatch(["observe", "-f", manifests("plain", plain), "--deployment", "plain", "--timeout", "2m", `--subject-prefix=${prefix}`], { cwd: dir });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain("stage healthy reached\n");
    // eslint-disable-next-line no-control-regex
    expect(result.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  });
});
