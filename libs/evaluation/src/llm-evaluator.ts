/**
 * LLM track of the self-evaluation, pure parts: the prompt (final answer + step summary, asking for
 * evidence-citing reasoning) and the strict parser of `{"confidence": 0-100 integer, "reasoning"}`.
 */
export interface EvaluationEvidence {
  query: string;
  answer: string | null;
  status: string;
  intent: string | null;
  stepCount: number;
  toolCallCount: number;
  knowledgeSearched: boolean;
  references: { title?: string; filePath?: string; score: number }[];
  toolInvocations: { toolName: string; status: string; relevanceLevel: string | null; resultSummary: string | null }[];
}

export const MAX_REASONING_LENGTH = 2000;
const MAX_ANSWER_CHARS = 6000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [truncated, ${text.length - max} more characters]`;
}

export const EVALUATION_SYSTEM_PROMPT = [
  'You review answers given by a customer-support and fault-diagnosis assistant (industrial robot arms; Chinese or English users).',
  'Judge how far the final answer can be trusted: is it supported by the knowledge it retrieved, does it actually address the question, is anything invented or unsupported?',
  'Cite evidence: name the references or tool results that support or fail to support specific claims, and say what is missing.',
  'Reply with ONE JSON object and nothing else: {"confidence": <integer 0-100>, "reasoning": "<at most 5 sentences citing the evidence, in the language of the question>"}.',
  'confidence 90-100: fully supported; 60-89: mostly supported; 30-59: partly supported or generic; 0-29: unsupported, wrong or no real answer.',
].join('\n');

export function buildEvaluationPrompt(e: EvaluationEvidence): { system: string; user: string } {
  const refs = e.references.length
    ? e.references
        .slice(0, 10)
        .map((r, i) => `  ${i + 1}. ${r.title ?? r.filePath ?? '(untitled)'}${r.filePath && r.title ? ` [${r.filePath}]` : ''} — score ${r.score.toFixed(2)}`)
        .join('\n')
    : '  (none)';
  const tools = e.toolInvocations.length
    ? e.toolInvocations
        .slice(0, 10)
        .map(
          (t, i) =>
            `  ${i + 1}. ${t.toolName} → ${t.status}${t.relevanceLevel ? `, relevance ${t.relevanceLevel}` : ''}${t.resultSummary ? `: ${clip(t.resultSummary.replace(/\s+/g, ' '), 300)}` : ''}`,
        )
        .join('\n')
    : '  (no tool calls recorded)';
  const user = [
    `Question: ${clip(e.query, 2000)}`,
    '',
    `Final answer: ${e.answer ? clip(e.answer, MAX_ANSWER_CHARS) : '(no answer)'}`,
    '',
    'Step summary:',
    `  status ${e.status}; ${e.stepCount} steps; ${e.toolCallCount} tool calls; knowledge base searched: ${e.knowledgeSearched ? 'yes' : 'no'}; intent: ${e.intent ?? 'unknown'}`,
    'References used:',
    refs,
    'Tool calls:',
    tools,
    '',
    'Return the JSON object now.',
  ].join('\n');
  return { system: EVALUATION_SYSTEM_PROMPT, user };
}

export type ParsedEvaluation = { ok: true; confidence: number; reasoning: string } | { ok: false; problem: string };

/**
 * Accepts exactly one JSON object (optionally inside a ```json fence) with an integer `confidence`
 * in 0..100 and a non-empty string `reasoning`; anything else is a problem named for the fallback.
 */
export function parseLlmEvaluation(text: string): ParsedEvaluation {
  let body = text.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(body);
  if (fenced) body = fenced[1].trim();
  if (!body.startsWith('{') || !body.endsWith('}')) return { ok: false, problem: 'reply is not a JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, problem: 'reply is not valid JSON' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: 'reply is not a JSON object' };
  const { confidence, reasoning } = value as Record<string, unknown>;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence)) return { ok: false, problem: 'confidence is missing or not a number' };
  if (!Number.isInteger(confidence)) return { ok: false, problem: `confidence ${confidence} is not an integer` };
  if (confidence < 0 || confidence > 100) return { ok: false, problem: `confidence ${confidence} is outside 0-100` };
  if (typeof reasoning !== 'string' || reasoning.trim() === '') return { ok: false, problem: 'reasoning is missing or empty' };
  const trimmed = reasoning.trim();
  return { ok: true, confidence, reasoning: trimmed.length > MAX_REASONING_LENGTH ? `${trimmed.slice(0, MAX_REASONING_LENGTH)}…` : trimmed };
}
