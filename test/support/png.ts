// Decodes a PNG far enough to prove it is one: signature, chunk CRCs, IHDR size, and the inflated
// image data matching width × height for its colour type. No pixel filtering is undone.

import { crc32, inflateSync } from "node:zlib";

export interface DecodedPng {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function decodePng(bytes: Uint8Array): DecodedPng {
  const buf = Buffer.from(bytes);
  if (!buf.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG signature");
  let offset = 8;
  let header: DecodedPng | undefined;
  const idat: Buffer[] = [];
  let ended = false;
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.subarray(offset + 4, offset + 8).toString("latin1");
    const data = buf.subarray(offset + 8, offset + 8 + length);
    const crc = buf.readUInt32BE(offset + 8 + length);
    if (crc32(buf.subarray(offset + 4, offset + 8 + length)) !== crc) throw new Error(`bad CRC in ${type}`);
    if (type === "IHDR") {
      header = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        bitDepth: data[8]!,
        colourType: data[9]!,
      };
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") {
      ended = true;
      break;
    }
    offset += 12 + length;
  }
  if (!header || !ended) throw new Error("PNG without IHDR or IEND");
  const raw = inflateSync(Buffer.concat(idat));
  const bytesPerPixel = ((CHANNELS[header.colourType] ?? 0) * header.bitDepth) / 8;
  const expected = header.height * (1 + Math.ceil(header.width * bytesPerPixel));
  if (raw.length !== expected) throw new Error(`image data is ${raw.length} bytes, expected ${expected}`);
  return header;
}
