// A minimal RFC 6455 server side, enough for the Socket Mode stand-in: the opening handshake on
// node:http's 'upgrade', text frames both ways, ping/pong and the close handshake. Written here
// rather than pulled in as a dependency because only the simulator needs it.

import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

// Fixed by the RFC: the server proves it speaks WebSocket by hashing the client's key with it.
const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
// A test double never needs more; a larger frame means a bug, not a real message.
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
// A peer that never answers our close frame must not keep the socket (and the test run) alive.
const CLOSE_WAIT_MS = 1000;

const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

export interface WebSocketHandlers {
  onText(text: string): void;
  onClose?(code: number | undefined): void;
}

export interface WebSocketConnection {
  sendText(text: string): void;
  /** Starts the close handshake; the socket is dropped if the peer does not answer in time. */
  close(code?: number, reason?: string): void;
  /** Drops the TCP connection without a close frame (what a crashed server looks like). */
  terminate(): void;
  readonly open: boolean;
}

function acceptKey(key: string): string {
  return createHash("sha1")
    .update(key + HANDSHAKE_GUID)
    .digest("base64");
}

/**
 * Completes the handshake for an 'upgrade' request, or answers 400 and returns undefined when the
 * request is not a valid WebSocket opening.
 */
export function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  handlers: WebSocketHandlers,
): WebSocketConnection | undefined {
  const key = request.headers["sec-websocket-key"];
  const upgrade = request.headers.upgrade?.toLowerCase();
  if (
    upgrade !== "websocket" ||
    typeof key !== "string" ||
    request.headers["sec-websocket-version"] !== "13"
  ) {
    rejectUpgrade(socket, 400, "Bad Request");
    return undefined;
  }
  // No extensions or subprotocols are offered back, so the client falls back to plain frames.
  socket.write(
    [
      "HTTP/1.1 101 Switching Protocols",
      "Upgrade: websocket",
      "Connection: Upgrade",
      `Sec-WebSocket-Accept: ${acceptKey(key)}`,
      "",
      "",
    ].join("\r\n"),
  );
  return new Connection(socket, handlers, head);
}

export function rejectUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** One server frame: FIN set, never masked (RFC 6455 5.1 forbids masking server to client). */
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length <= 125) {
    header = Buffer.from([0x80 | opcode, length]);
  } else if (length <= 0xffff) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
  /** Bytes the frame took in the buffer. */
  size: number;
}

/** Parses one client frame from the start of buf; undefined until the whole frame has arrived. */
function decodeClientFrame(buf: Buffer): Frame | undefined {
  if (buf.length < 2) return undefined;
  const first = buf[0] ?? 0;
  const second = buf[1] ?? 0;
  if ((second & 0x80) === 0) throw new ProtocolError(1002, "client frames must be masked");
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buf.length < 4) return undefined;
    length = buf.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buf.length < 10) return undefined;
    const big = buf.readBigUInt64BE(2);
    if (big > BigInt(MAX_MESSAGE_BYTES)) throw new ProtocolError(1009, "frame too large");
    length = Number(big);
    offset = 10;
  }
  if (length > MAX_MESSAGE_BYTES) throw new ProtocolError(1009, "frame too large");
  if (buf.length < offset + 4 + length) return undefined;
  const mask = buf.subarray(offset, offset + 4);
  const payload = Buffer.from(buf.subarray(offset + 4, offset + 4 + length));
  for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload, size: offset + 4 + length };
}

class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

class Connection implements WebSocketConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOpcode = 0;
  private closeSent = false;
  private closed = false;
  private closeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Duplex,
    private readonly handlers: WebSocketHandlers,
    head: Buffer,
  ) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", () => socket.destroy());
    socket.on("close", () => this.finish(undefined));
    if (head.length > 0) this.receive(head);
  }

  get open(): boolean {
    return !this.closed && !this.closeSent;
  }

  sendText(text: string): void {
    if (!this.open) return;
    this.socket.write(encodeFrame(OP_TEXT, Buffer.from(text, "utf8")));
  }

  close(code = 1000, reason = ""): void {
    if (this.closed || this.closeSent) return;
    this.closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.socket.write(encodeFrame(OP_CLOSE, payload));
    this.closeTimer = setTimeout(() => this.terminate(), CLOSE_WAIT_MS);
    this.closeTimer.unref();
  }

  terminate(): void {
    this.socket.destroy();
    this.finish(undefined);
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    try {
      for (;;) {
        const frame = decodeClientFrame(this.buffer);
        if (frame === undefined) return;
        this.buffer = this.buffer.subarray(frame.size);
        this.handle(frame);
        if (this.closed) return;
      }
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      this.close(error.code, error.message);
    }
  }

  private handle(frame: Frame): void {
    switch (frame.opcode) {
      case OP_PING:
        if (!this.closeSent) this.socket.write(encodeFrame(OP_PONG, frame.payload));
        return;
      case OP_PONG:
        return;
      case OP_CLOSE: {
        const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : undefined;
        // Echo the close (unless we started it), then end: the client waits for this echo.
        if (!this.closeSent) {
          this.closeSent = true;
          this.socket.write(encodeFrame(OP_CLOSE, frame.payload.subarray(0, 2)));
        }
        this.socket.end();
        this.finish(code);
        return;
      }
      case OP_TEXT:
      case OP_BINARY:
        if (this.fragments.length > 0) throw new ProtocolError(1002, "new message inside a fragmented one");
        if (frame.fin) {
          this.deliver(frame.opcode, frame.payload);
          return;
        }
        this.fragmentOpcode = frame.opcode;
        this.fragments.push(frame.payload);
        return;
      case OP_CONTINUATION: {
        if (this.fragments.length === 0) throw new ProtocolError(1002, "continuation without a message");
        this.fragments.push(frame.payload);
        if (!frame.fin) return;
        const whole = Buffer.concat(this.fragments);
        this.fragments = [];
        this.deliver(this.fragmentOpcode, whole);
        return;
      }
      default:
        throw new ProtocolError(1002, `unknown opcode ${frame.opcode}`);
    }
  }

  private deliver(opcode: number, payload: Buffer): void {
    // Socket Mode only ever sends JSON text; binary is ignored like the real service would.
    if (opcode === OP_TEXT) this.handlers.onText(payload.toString("utf8"));
  }

  private finish(code: number | undefined): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.closeTimer);
    this.handlers.onClose?.(code);
  }
}
