// The one way the bot reads a file it is told about (BOT_CONFIG, a secret, a certificate, a
// kubeconfig, a service account token): a regular file only, opened without blocking and read up
// to a cap. A FIFO would block start-up until someone writes to it, /dev/zero never ends, and a
// huge file would be held in memory several times over; each is refused with why.

import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** Far above any secret, certificate bundle, kubeconfig or BOT_CONFIG the bot reads. */
export const MAX_SMALL_FILE_BYTES = 4 * 1024 * 1024;

/** A file refused for what it is, not for access: `code` is ENOTREG or EFBIG, `message` says why. */
class FileRefused extends Error {
  constructor(
    readonly code: "ENOTREG" | "EFBIG",
    message: string,
  ) {
    super(message);
    this.name = "FileRefused";
  }
}

/** What a path is, in words, when it is not a regular file. */
function kindOf(stat: ReturnType<typeof fstatSync>): string {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  if (stat.isDirectory()) return "a directory";
  return "not a regular file";
}

/** The text of a regular file of at most maxBytes; throws FileRefused, or the system's error. */
export function readSmallFile(path: string, maxBytes = MAX_SMALL_FILE_BYTES): string {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileRefused("ENOTREG", `${path} is ${kindOf(stat)}, not a regular file`);
    const tooLarge = () =>
      new FileRefused("EFBIG", `${path} is larger than ${maxBytes} bytes, far more than the bot reads`);
    if (stat.size > maxBytes) throw tooLarge();
    // Read to the end, not to the size stat gave: the file may have grown (never past the cap).
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) throw tooLarge();
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** A refusal's words, or undefined for an error of the system (missing file, permissions). */
export function refusalOf(error: unknown): string | undefined {
  return error instanceof FileRefused ? `${error.message}; name a regular file` : undefined;
}
