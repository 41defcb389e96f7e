// Loaded into `stagewatch serve` by the cluster benchmark (NODE_OPTIONS="--expose-gc --import=..."):
// SIGUSR2 runs two full collections, so the heap the service's /metrics reports next is what it
// holds, not what it has not collected yet.
process.on("SIGUSR2", () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
});
