import { describe, expect, it } from '@jest/globals';
import { replyConfidence, type ReplyConfidence, type ReplyConfidenceInput } from './reply-confidence.js';

describe('replyConfidence: one named field per measure, `confidence` defined by the turn', () => {
  const rows: [string, ReplyConfidenceInput, ReplyConfidence][] = [
    [
      'knowledge answer: confidence = retrieval',
      { routing: 0.98, retrieval: 0.82, selfEvaluation: 75 },
      { confidence: 0.82, routingConfidence: 0.98, retrievalConfidence: 0.82, answerConfidence: 0.75 },
    ],
    [
      '"not found" exit: 0, not the routing 0.98; the lookup score stays named',
      { routing: 0.98, retrieval: 0.47, selfEvaluation: 75, notFound: true },
      { confidence: 0, routingConfidence: 0.98, retrievalConfidence: 0.47, answerConfidence: 0.75 },
    ],
    [
      'pointer back to an earlier answer: the retrieval score',
      { routing: 0.98, retrieval: 0.6, selfEvaluation: null },
      { confidence: 0.6, routingConfidence: 0.98, retrievalConfidence: 0.6, answerConfidence: null },
    ],
    [
      'no lookup (rule answer, clarify, hand-off): routing; no retrieval',
      { routing: 0.625, retrieval: null, selfEvaluation: 70 },
      { confidence: 0.625, routingConfidence: 0.625, retrievalConfidence: null, answerConfidence: 0.7 },
    ],
    [
      "verified case's answer: the case's similarity; no retrieval",
      { routing: 0.4, retrieval: null, selfEvaluation: 70, caseSimilarity: 0.93 },
      { confidence: 0.93, routingConfidence: 0.4, retrievalConfidence: null, answerConfidence: 0.7 },
    ],
    [
      'failed run: confidence 0, the measures as recorded',
      { routing: 0.9, retrieval: 0.4, selfEvaluation: 0, failed: true },
      { confidence: 0, routingConfidence: 0.9, retrievalConfidence: 0.4, answerConfidence: 0 },
    ],
    [
      'clamped to [0, 1]',
      { routing: 1.2, retrieval: -0.1, selfEvaluation: 130 },
      { confidence: 0, routingConfidence: 1, retrievalConfidence: 0, answerConfidence: 1 },
    ],
  ];
  it.each(rows)('%s', (_name, input, expected) => {
    expect(replyConfidence(input)).toEqual(expected);
  });
});
