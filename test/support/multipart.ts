/** One part of a multipart upload: a file (bytes and name) or a plain field. */
export type FormPart = { name: string; fileName: string; bytes: Uint8Array; type?: string } | { name: string; value: string };

/**
 * A multipart/form-data body as a browser's FormData encodes it (Node's own FormData and Request, i.e.
 * undici: a client no one here wrote), with its content-type header, for Fastify's inject.
 */
export async function multipartBody(parts: readonly FormPart[]): Promise<{ payload: Buffer; headers: { 'content-type': string } }> {
  const form = new FormData();
  for (const part of parts) {
    if ('value' in part) form.append(part.name, part.value);
    else form.append(part.name, new Blob([part.bytes], { type: part.type ?? 'application/octet-stream' }), part.fileName);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type') as string } };
}
