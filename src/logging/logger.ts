// The one logging port of every layer: the subset of pino's Logger that stagewatch calls, fields
// first and message second as pino wants, so a pino logger (or a child) fits as it is. The service
// plugs pino in once at start-up; unit tests and the client library log nothing by default.
// What is logged is identities, reasons and counts: never manifest content or Secret data.

type LogMethod = (fields: object, message: string) => void;

export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
