// Test support for code that consumes src/streams: a scripted API server transport and a
// virtual clock. Not used by the service itself.
export { ScriptedTransport, ScriptedWatch, listBody } from "./scriptedTransport.js";
export type { GetHandler } from "./scriptedTransport.js";
export { SteppedSlicing } from "./steppedSlicing.js";
export { VirtualClock } from "./virtualClock.js";
