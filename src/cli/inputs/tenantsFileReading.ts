// `serve --tenants FILE` (or $STAGEWATCH_TENANTS_FILE): the tenants file, read and checked before
// anything connects, so a bad file is bad input (exit 2) naming the field.
import { readFileSync } from "node:fs";
import { parseTenantsFile, TenantsFileError, type TenantDirectory } from "../../tenants/index.js";
import { UsageError } from "../io/usage.js";

export const tenantsFileVariable = "STAGEWATCH_TENANTS_FILE";

/** The flag, else the variable (empty counts as unset); undefined when neither names a file. */
export function readTenants(flag: string | undefined, env: NodeJS.ProcessEnv): TenantDirectory | undefined {
  const fromEnv = env[tenantsFileVariable];
  const path = flag ?? (fromEnv === "" ? undefined : fromEnv);
  if (path === undefined) return undefined;
  const where = flag === undefined ? tenantsFileVariable : "--tenants";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`${where}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return parseTenantsFile(text, path);
  } catch (error) {
    if (error instanceof TenantsFileError) throw new UsageError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
}
