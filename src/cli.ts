#!/usr/bin/env node
// Node's on-disk cache of compiled modules (as kubectl is one compiled binary): from the second
// run on, `observe` skips compiling the bus client, zod and yaml. NODE_COMPILE_CACHE names
// another directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from "node:module";
import { text } from "node:stream/consumers";
enableCompileCache?.();
const { main } = await import("./cli/main.js");

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // process.stdin is only touched when a command reads it: creating it opens the pipe or terminal.
  readStdin: () => text(process.stdin),
  env: process.env,
});
