/**
 * The bytes of a stopped server's embedded database (`<dataDir>/db`, every file) as one string,
 * so a test can check what is on disk, whatever table or page it landed in.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PGLITE_DIR } from "../../src/index.js";

/** Every file under `<dataDir>/db`, concatenated (latin1, so any byte is kept). Call after `server.close()`. */
export async function databaseBytes(dataDir: string): Promise<string> {
  const parts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) parts.push((await readFile(path)).toString("latin1"));
    }
  };
  await walk(join(dataDir, PGLITE_DIR));
  return parts.join("\n");
}
