// The logging port shared by every folder (it imports nothing, and anything may import it).
export { silentLogger } from "./logger.js";
export type { Logger } from "./logger.js";
