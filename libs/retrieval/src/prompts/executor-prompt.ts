import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findProjectRoot } from '@arbiter/config';

/**
 * Versioned executor prompts (docs/spec/retrieval.md T5). Files live in `libs/retrieval/src/prompts/` and are read
 * from there at runtime (the production build copies no assets), relative to the project root.
 */
export const EXECUTOR_PROMPT_VERSIONS = ['v1'] as const;
export type ExecutorPromptVersion = (typeof EXECUTOR_PROMPT_VERSIONS)[number];
export const CURRENT_EXECUTOR_PROMPT_VERSION: ExecutorPromptVersion = 'v1';

export const EXECUTOR_PROMPTS_DIR = path.join('libs', 'retrieval', 'src', 'prompts');

const cache = new Map<string, string>();

export function executorPromptPath(version: ExecutorPromptVersion, root: string = findProjectRoot()): string {
  return path.join(root, EXECUTOR_PROMPTS_DIR, `executor-prompt.${version}.md`);
}

/**
 * Returns the prompt text of `version` (cached after the first read).
 * @throws Error naming the version when it is unknown (e.g. from config) or the file is missing.
 */
export function loadExecutorPrompt(version: string = CURRENT_EXECUTOR_PROMPT_VERSION, root?: string): string {
  if (!(EXECUTOR_PROMPT_VERSIONS as readonly string[]).includes(version)) {
    throw new Error(`Unknown executor prompt version "${version}" (known: ${EXECUTOR_PROMPT_VERSIONS.join(', ')})`);
  }
  const file = executorPromptPath(version as ExecutorPromptVersion, root);
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Executor prompt ${version} not found at ${file}: ${(error as Error).message}`);
  }
  cache.set(file, text);
  return text;
}
