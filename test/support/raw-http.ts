import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes the client had handed to the socket when the response arrived. */
  bytesSent: number;
  /** From the first byte sent to the response's status line. */
  msToResponse: number;
  /** The server closed the connection after answering. */
  closedByServer: boolean;
}

export interface RawBodyPlan {
  /** What Content-Length announces (omit for `Transfer-Encoding: chunked`). */
  contentLength?: number;
  /** Body bytes to send at most. */
  total: number;
  /** One chunk's bytes; the body is this chunk repeated (the last one cut). */
  chunk: Buffer;
  /** Pause between chunks (a slow client); 0 = as fast as the socket takes them. */
  pauseMs?: number;
}

/**
 * One HTTP/1.1 request over a raw socket, with a body sent the way no well-behaved client would send
 * it: announced larger than it is, trickled, or far over a limit. Sending stops as soon as a response
 * arrives, so `bytesSent` tells how much of the body the server let in before answering.
 */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  plan: RawBodyPlan,
  timeoutMs = 60_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunked = plan.contentLength === undefined;
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      (chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${plan.contentLength}\r\n`) +
      '\r\n';
    const started = performance.now();
    let bytesSent = 0;
    let responseAt: number | undefined;
    let received = Buffer.alloc(0);
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);

    const parsed = (): Omit<RawResponse, 'bytesSent' | 'msToResponse' | 'closedByServer'> | null => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headerMap = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = Number(headerMap['content-length'] ?? 0);
      const body = received.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      if (body.length < length) return null;
      return { status: Number(statusLine.split(' ')[1]), headers: headerMap, body: body.subarray(0, length).toString('utf8') };
    };

    function finish(error: Error | null, closedByServer = false): void {
      if (settled) return;
      const response = parsed();
      if (!error && !response) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error && !response) reject(error);
      else if (response) resolve({ ...response, bytesSent, msToResponse: (responseAt ?? performance.now()) - started, closedByServer });
    }

    socket.on('data', (data: Buffer) => {
      responseAt ??= performance.now();
      received = Buffer.concat([received, data]);
      // A complete response on a connection the server keeps open: wait briefly for a close that may follow.
      if (parsed()) setTimeout(() => finish(null, false), 300).unref();
    });
    socket.on('end', () => finish(null, true));
    socket.on('close', () => finish(new Error('connection closed without a complete response'), true));
    socket.on('error', () => finish(new Error('socket error before a complete response'), true));

    const pump = (): void => {
      while (responseAt === undefined && bytesSent < plan.total && !socket.destroyed) {
        const size = Math.min(plan.chunk.length, plan.total - bytesSent);
        const piece = plan.chunk.subarray(0, size);
        const framed = chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        bytesSent += size;
        const more = socket.write(framed);
        if (plan.pauseMs) {
          setTimeout(pump, plan.pauseMs);
          return;
        }
        if (!more) {
          socket.once('drain', pump);
          return;
        }
      }
      if (chunked && bytesSent >= plan.total && responseAt === undefined && !socket.destroyed) socket.write('0\r\n\r\n');
    };
    socket.once('connect', () => {
      socket.write(head);
      pump();
    });
  });
}
