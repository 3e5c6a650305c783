/**
 * The upload of `bench:documents -- --health`, in its own process: reading a 50 MiB file into a form and sending it
 * (Blob, undici) is ~2 s of the sender's own CPU, which in the API's process stalled the very `/health` the bench
 * measures (measured: 1.9 s, docs/hot-paths.md "A large upload and the event loop"). A real client is another
 * process. Sends `{type: 'sending'}` just before the request and `{type: 'done', status, body}` after its answer.
 * Env: TARGET_URL, UPLOAD_FILE, UPLOAD_DOMAIN, UPLOAD_HEADERS (JSON).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const send = (message: unknown) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));

async function main(): Promise<void> {
  const file = process.env.UPLOAD_FILE as string;
  const form = new FormData();
  form.append('domain', process.env.UPLOAD_DOMAIN as string);
  form.append('file', new Blob([readFileSync(file)], { type: 'application/pdf' }), path.basename(file));
  await send({ type: 'sending' });
  const res = await fetch(`${process.env.TARGET_URL}/admin/knowledge/files`, {
    method: 'POST',
    headers: JSON.parse(process.env.UPLOAD_HEADERS as string) as Record<string, string>,
    body: form,
  });
  await send({ type: 'done', status: res.status, body: await res.text() });
  process.disconnect?.();
}

void main().catch(async (error: unknown) => {
  await send({ type: 'done', status: 0, body: String(error) });
  process.exitCode = 1;
  process.disconnect?.();
});
