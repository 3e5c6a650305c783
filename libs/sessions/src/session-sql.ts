import { sql, type RawBuilder } from '@arbiter/database';
import { KNOWLEDGE_LOOKUP_TOOL, LOW_ROUTING_CONFIDENCE, type FailureFactsRow } from './failure-attribution.js';

/**
 * The sessions lib's SQL fragments that other libs embed in their statements (read models in
 * docs/CONVENTIONS.md): Kysely `sql` expressions, so their values are parameters Kysely numbers
 * (docs/data-layer.md). Kept apart from the pure twins in session.types.ts and failure-attribution.ts.
 */

/** SQL twin of `runSucceeded` over a `diagnosis_session` alias. */
export function runSucceededSql(alias: string): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.status`)} IN ('SUCCESS', 'BAD_CASE') AND ${sql.ref(`${alias}.outcome`)} IS DISTINCT FROM 'FAILED')`;
}

/**
 * The select list of the failure facts (`FailureFactsRow`) over a `diagnosis_session` alias `s` (the sessions lib
 * owns these columns and `tool_invocation`, so readers take the projection from here — their read models in
 * docs/CONVENTIONS.md). `coverageReason` and `labelIntent` are the caller's expressions for the coverage decision's
 * reason code and the bad-case label's intent (NULL when it has none). Malformed jsonb reads as absent, never as an error.
 */
export function failureFactsSql(
  s: string,
  opts: { coverageReason: RawBuilder<string | null>; labelIntent: RawBuilder<string | null> },
): RawBuilder<FailureFactsRow> {
  const col = (name: string) => sql.ref(`${s}.${name}`);
  const trace = sql`(CASE WHEN jsonb_typeof(${col('route_trace')}) = 'object' THEN ${col('route_trace')} END)`;
  const chat = sql`(CASE WHEN jsonb_typeof(${trace}->'chat') = 'object' THEN ${trace}->'chat' END)`;
  const str = (expr: RawBuilder<unknown>) => sql`(CASE WHEN jsonb_typeof(${expr}) = 'string' THEN ${expr} #>> '{}' END)`;
  const lookups = sql`FROM tool_invocation t WHERE t.tenant_id = ${col('tenant_id')} AND t.session_id = ${col('id')}
        AND (t.tool_name = ${sql.lit(KNOWLEDGE_LOOKUP_TOOL)} OR t.relevance_level IS NOT NULL)`;
  return sql<FailureFactsRow>`(${col('status')} = 'FAILED' OR ${col('outcome')} = 'FAILED') AS ff_run_failed,
    ${col('feedback')} AS ff_feedback,
    (${opts.coverageReason}) AS ff_coverage_reason,
    ${str(sql`${trace}->'decisionReason'`)} AS ff_decision_reason,
    (CASE WHEN jsonb_typeof(${trace}->'needClarify') = 'boolean' THEN (${trace}->>'needClarify')::boolean ELSE false END) AS ff_need_clarify,
    (CASE WHEN jsonb_typeof(${trace}->'finalConfidence') = 'number' THEN (${trace}->>'finalConfidence')::float8 < ${sql.lit(LOW_ROUTING_CONFIDENCE)} ELSE false END) AS ff_routing_low,
    ${str(sql`${chat}->'branch'`)} AS ff_branch,
    ((${opts.labelIntent}) IS NOT NULL AND (${opts.labelIntent}) IS DISTINCT FROM ${col('intent')}) AS ff_label_disagrees,
    ${col('knowledge_searched')} AS ff_knowledge_searched,
    (jsonb_typeof(${col('source_references')}) = 'array' AND jsonb_array_length(${col('source_references')}) > 0) AS ff_has_references,
    EXISTS (SELECT 1 ${lookups}) AS ff_looked_up,
    EXISTS (SELECT 1 ${lookups} AND t.status = 'FAILED') AS ff_lookup_failed,
    EXISTS (SELECT 1 ${lookups} AND t.status = 'SUCCESS' AND t.relevance_level IN ('PRECISE', 'HIGHLY_RELEVANT')) AS ff_grade_sufficient,
    EXISTS (SELECT 1 ${lookups} AND t.status = 'SUCCESS' AND t.relevance_level = 'REFERENCE'
            AND COALESCE(CASE WHEN jsonb_typeof(t.retrieval_details) = 'object' THEN t.retrieval_details->>'completeness_hint' END, '') = 'PARTIAL') AS ff_grade_partial,
    (COALESCE(${str(sql`${chat}->'confidence'->'source'`)} = 'not_found', false)
      OR COALESCE((${opts.coverageReason}) = 'uncovered_explicit_no_answer', false)) AS ff_said_no_answer`;
}
