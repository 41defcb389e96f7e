#!/usr/bin/env node
// Node's on-disk cache of compiled modules (as kubectl is one compiled binary): from the second
// run on, `observe` skips compiling the bus client, zod and yaml. NODE_COMPILE_CACHE names
// another directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from "node:module";
enableCompileCache?.();
const { main } = await import("./cli/main.js");

process.exitCode = await main(process.argv.slice(2));
