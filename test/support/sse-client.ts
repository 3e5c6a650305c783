import { request as httpRequest } from 'node:http';

/** One server-sent block: a named or unnamed event with its data line, or a comment (a heartbeat). */
export interface SseFrame {
  event?: string;
  data?: string;
  comment?: string;
  /** Milliseconds from the request to this frame. */
  at: number;
}

export interface SseResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  frames: SseFrame[];
  /** The whole body as received (a JSON error body when the stream never opened). */
  body: string;
  /** The client hung up itself (`onFrame` returned 'disconnect'). */
  disconnected: boolean;
}

/** Parses complete `\n\n`-terminated blocks; returns them and what is left over. */
export function parseSseBlocks(text: string, started: number): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let rest = text;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const frame: SseFrame = { at: Math.round(performance.now() - started) };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      else if (line.startsWith('event: ')) frame.event = line.slice(7);
      else if (line.startsWith('data: ')) frame.data = frame.data === undefined ? line.slice(6) : `${frame.data}\n${line.slice(6)}`;
    }
    frames.push(frame);
  }
  return { frames, rest };
}

/**
 * A POST over a real socket whose answer is read as server-sent events, frame by frame as they arrive;
 * `onFrame` may return 'disconnect' to hang up mid-stream (the socket is destroyed).
 */
export function postSse(
  port: number,
  path: string,
  headers: Record<string, string>,
  payload: unknown,
  onFrame?: (frame: SseFrame) => 'disconnect' | void,
  timeoutMs = 30_000,
): Promise<SseResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const data = JSON.stringify(payload);
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`stream did not end within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      const result: SseResult = { status: res.statusCode ?? 0, headers: res.headers, frames: [], body: '', disconnected: false };
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        result.body += chunk;
        const parsed = parseSseBlocks(pending + chunk, started);
        pending = parsed.rest;
        for (const frame of parsed.frames) {
          result.frames.push(frame);
          if (!result.disconnected && onFrame?.(frame) === 'disconnect') {
            result.disconnected = true;
            clearTimeout(timer);
            req.destroy();
            resolve(result);
            return;
          }
        }
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve(result);
      });
      res.on('error', () => undefined);
    });
    req.end(data);
  });
}
