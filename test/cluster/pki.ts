/**
 * Keys and certificates of a throw-away control plane: a CA, the API server's serving certificate
 * (signed by it, valid for the loopback address and the in-cluster names) and the key pair that
 * signs ServiceAccount tokens. Made fresh for every start; nothing here is a secret worth keeping.
 *
 * Node's crypto makes keys but cannot issue X.509 certificates, so those come from the openssl
 * command line, which every machine this runs on has.
 */
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Pki {
  caCertFile: string;
  servingCertFile: string;
  servingKeyFile: string;
  serviceAccountKeyFile: string;
  serviceAccountPublicKeyFile: string;
}

/** The first address of the service range, which the API server gives the `kubernetes` Service. */
export const SERVICE_CLUSTER_IP_RANGE = "10.96.0.0/16";
const KUBERNETES_SERVICE_IP = "10.96.0.1";

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

export function createPki(dir: string): Pki {
  const file = (name: string) => join(dir, name);
  const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

  openssl(["req", "-x509", ...ecKey, "-keyout", file("ca.key"), "-out", file("ca.crt"),
    "-days", "30", "-subj", "/CN=stagewatch-local-ca"]);

  const altNames = [
    "IP:127.0.0.1",
    `IP:${KUBERNETES_SERVICE_IP}`,
    "DNS:localhost",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
  ].join(",");
  writeFileSync(file("apiserver.ext"), [
    `subjectAltName=${altNames}`,
    "keyUsage=critical,digitalSignature,keyEncipherment",
    "extendedKeyUsage=serverAuth",
    "basicConstraints=critical,CA:FALSE",
    "",
  ].join("\n"));
  openssl(["req", ...ecKey, "-keyout", file("apiserver.key"), "-out", file("apiserver.csr"),
    "-subj", "/CN=kube-apiserver"]);
  openssl(["x509", "-req", "-in", file("apiserver.csr"), "-CA", file("ca.crt"), "-CAkey", file("ca.key"),
    "-CAcreateserial", "-days", "30", "-extfile", file("apiserver.ext"), "-out", file("apiserver.crt")]);

  const serviceAccount = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  writeFileSync(file("sa.key"), serviceAccount.privateKey, { mode: 0o600 });
  writeFileSync(file("sa.pub"), serviceAccount.publicKey);

  return {
    caCertFile: file("ca.crt"),
    servingCertFile: file("apiserver.crt"),
    servingKeyFile: file("apiserver.key"),
    serviceAccountKeyFile: file("sa.key"),
    serviceAccountPublicKeyFile: file("sa.pub"),
  };
}
