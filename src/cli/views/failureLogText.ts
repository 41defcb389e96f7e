// The failing container's log tail as the CLI prints it under the verdict's failure line: a header
// naming the pod and container, then the lines indented, so a person reading a CI log sees what the
// container said last without a `kubectl logs` of a pod that may be gone by then.
import type { Failure } from "../../verdicts/contract/schemas.js";

/** The lines to print after the verdict message; empty when the failure carries neither tail nor note. */
export function failureLogText(failure: Failure | undefined): string {
  if (failure?.logTail) {
    const { pod, container, init, previous, lines, truncated } = failure.logTail;
    const which = `${init ? "init container" : "container"} ${container}${previous ? " (previous instance)" : ""}`;
    if (lines.length === 0) return `log of pod ${pod} ${which}: empty\n`;
    const count = `${truncated ? "last " : ""}${lines.length} line${lines.length === 1 ? "" : "s"}`;
    return `log of pod ${pod} ${which}, ${count}:\n${lines.map((line) => `    ${line}\n`).join("")}`;
  }
  return failure?.logNote ? `${failure.logNote}\n` : "";
}
