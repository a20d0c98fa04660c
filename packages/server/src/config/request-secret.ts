/**
 * The server's secret key for keyed digests of requests (HMAC-SHA-256): idempotency compares a
 * retry with the first request by this digest, so the records never hold an unsalted hash of a
 * body that may carry secrets (`redact` values, typed passwords). Configured
 * (`requestHashSecret` / `WF_REQUEST_HASH_SECRET`) or generated once into `<dataDir>/secret.key`
 * (mode 0600), so digests still match after a restart.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** File of the generated secret inside the data directory. */
export const SECRET_FILE = "secret.key";

/** Prefix of the request digests made with the secret (older records hold a bare SHA-256). */
export const REQUEST_HASH_PREFIX = "hmac-sha256:";

/**
 * The secret key: `configured` when given, else the one kept in `<dataDir>/secret.key`, created
 * (32 random bytes, hex, mode 0600) on first use. An existing file readable by others is set
 * back to 0600.
 *
 * @throws {@link Error} when the file exists but is empty, or can't be read or created.
 */
export async function loadServerSecret(dataDir: string, configured?: string): Promise<Buffer> {
  if (configured !== undefined && configured.length > 0) return Buffer.from(configured, "utf8");
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, SECRET_FILE);
  try {
    await writeFile(path, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    await chmod(path, 0o600);
  }
  const text = (await readFile(path, "utf8")).trim();
  if (text.length === 0) throw new Error(`${path} is empty. Delete it (a new secret is generated; idempotency keys of earlier steps then no longer match) or set WF_REQUEST_HASH_SECRET.`);
  return Buffer.from(text, "utf8");
}
