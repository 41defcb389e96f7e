// `stagewatch keys`: the service's signing key pair for operators. `create` writes a new seed to a
// file only its owner may read and prints the public key (what clients and the chart's ConfigMap
// are given); `show` prints the public key of an existing seed file, e.g. to check which key a
// Secret holds during a rotation; `pem` prints a public key as PEM, the form standard verifiers of
// the verdict's in-toto attestation read (cosign --key, in-toto, go-securesystemslib, openssl).
import { writeFileSync } from "node:fs";
import { newSigningSeed, SigningKeyError, verifyKeyOf } from "../../signing/keys.js";
import { parseCommandArgsWithOperands } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { readSigningKey } from "../inputs/signingKeyFile.js";
import { exitCodes, UsageError } from "../io/usage.js";

export const keysUsage = `Usage: stagewatch keys create FILE
       stagewatch keys show FILE
       stagewatch keys pem KEY

The key pair stagewatch serve signs verdicts with (an nkeys server key: seed SN..., public key N...).

  create FILE   writes a new seed to FILE (mode 0600; an existing FILE is never overwritten) and
                prints its public key: give the seed to 'stagewatch serve --signing-key FILE' (in
                Kubernetes, a Secret), the public key to clients (STAGEWATCH_VERIFY_KEY)
  show FILE     prints the public key of the seed in FILE
  pem KEY       prints the public key KEY (N...) as PEM (SubjectPublicKeyInfo, RFC 8410): the
                key to give cosign, in-toto or Kyverno to verify the in-toto attestation that
                'stagewatch observe --verdict-file' writes

Exit codes: 0 done, 2 bad input (an existing or unreadable FILE, no seed in it, not a public key).
`;

export async function keysCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgsWithOperands(argv, { help: { type: "boolean", short: "h" } });
  if (values.help) {
    io.stdout.write(keysUsage);
    return exitCodes.reached;
  }
  const [action, path, ...rest] = positionals;
  if (path === undefined || rest.length > 0 || (action !== "create" && action !== "show" && action !== "pem")) {
    throw new UsageError("expected 'keys create FILE', 'keys show FILE' or 'keys pem KEY'");
  }
  if (action === "pem") {
    io.stdout.write(publicKeyPem(path));
    return exitCodes.reached;
  }
  if (action === "show") {
    io.stdout.write(`${readSigningKey(path, "keys show").publicKey}\n`);
    return exitCodes.reached;
  }
  const { seed, publicKey } = newSigningSeed();
  try {
    // `wx`: a seed in use is never replaced by accident (its verdicts would stop verifying).
    writeFileSync(path, `${seed}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    throw new UsageError(`keys create: cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
  io.stdout.write(`${publicKey}\n`);
  return exitCodes.reached;
}

function publicKeyPem(publicKey: string): string {
  try {
    return verifyKeyOf(publicKey).pem;
  } catch (error) {
    if (error instanceof SigningKeyError) throw new UsageError(`keys pem: ${error.message}`, { cause: error });
    throw error;
  }
}
