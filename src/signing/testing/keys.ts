// Key pairs for tests only: fixed, so a signature in a test is the same on every run (Ed25519 is
// deterministic) and a known-answer vector can be written down for other languages.
import { signingKeyFromSeed } from "../keys.js";

/** The service's key before a rotation. */
export const oldKey = signingKeyFromSeed("SNAGJSASU63H5TXINTPNIAPENPI4LXAOF4LT7DK47YJH4URULEGGNWQFPE");
/** The service's key after it. */
export const newKey = signingKeyFromSeed("SNAGD2BEDG33A6OILBGJWYE3ZVLWLDV7T5ZIJTNX34KEOIFG25D43DEWHI");
/** A NATS user's seed: an nkeys seed, but not one stagewatch signs with. */
export const userSeed = "SUAKD36LUPYG32IQSYRF5CUJ2W6JMCVAJATAWNMT5ZODEXQFG4B4M6APBE";
