#!/usr/bin/env node
// The installed command. It checks the running Node before it loads anything (nodeVersion.ts): on
// an older Node it says in one line which version it needs and exits 2 (bad input: the wrong
// runtime), rather than failing on the first newer API the bundle touches. So this file, and what
// it imports statically, must parse and link on Node 20: nothing but node:process-level globals
// and dynamic imports.
import { nodeVersionProblem } from "./cli/nodeVersion.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exitCode = 2;
} else {
  // Node's on-disk cache of compiled modules (as kubectl is one compiled binary): from the second
  // run on, `observe` skips compiling the bus client, zod and yaml. NODE_COMPILE_CACHE names
  // another directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  const { enableCompileCache } = await import("node:module");
  enableCompileCache?.();
  const { text } = await import("node:stream/consumers");
  const { main } = await import("./cli/main.js");
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    // process.stdin is only touched when a command reads it: creating it opens the pipe or terminal.
    readStdin: () => text(process.stdin),
    env: process.env,
  });
  // The command has returned, and closed what it opened or started closing it (observe does not
  // wait for its NATS connection's close); once what it wrote has left the process (writes to a
  // pipe are asynchronous on POSIX), the process ends then, whatever a library may still hold on
  // the event loop (a closing socket, an aborted watch, a timer): a pipeline waits on this exit,
  // and what is left of it is the process's own teardown (measured: about 10 ms with the Kubernetes
  // client loaded, 7 to 8 ms with the NATS client and a consumer, 3.5 to 4.5 ms for a bare Node).
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write("", resolve))));
  process.exit(code);
}
