/** Messages between the API process and its child launcher (child-launcher.ts, docs/documents.md "Scanned PDFs (OCR)"). */
export type LauncherRequest =
  | { type: 'run'; id: number; command: string; args: string[]; env: Record<string, string>; withStderr: boolean; maxOutputBytes: number }
  | { type: 'kill'; id: number };

/** `output`: stdout (and stderr when asked), at most `maxOutputBytes`; `failure`: the spawn's own error (a missing program). */
export interface LauncherReply {
  type: 'exited';
  id: number;
  code: number | null;
  output: string;
  failure?: string;
}
