export * from './types.js';
export * from './config.js';
export * from './rule-validation.js';
export { RuleMatcher, type RuleMatcherOptions } from './rule-matcher.js';
export * from './rule-set-check.js';
export { HashingFeaturizer, normalizeText, type FeaturizerOptions } from './text-features.js';
export { TfidfVectorizer } from './tfidf.js';
export {
  SoftmaxClassifier,
  trainSoftmaxSync,
  type ClassifierTrainOptions,
  type ClassifierHyperparameters,
  type ClassifierWeights,
  type WarmStart,
} from './softmax-classifier.js';
export {
  IntentIndex,
  CARRY_OVER_MIN_KNOWN_INTENTS,
  WARM_START_EPOCHS,
  MAX_WARM_STARTS,
  type IntentIndexOptions,
  type ClassifierState,
  type ClassifierTrainingData,
  type ExampleScores,
} from './intent-index.js';
export * from './interim-matcher.js';
export { SemanticMatcher, type TextEmbedder, type SemanticMatchOptions } from './semantic-matcher.js';
export * from './llm-judge.js';
export * from './fusion-policy.js';
export { IntentRouter, type IntentRouterOptions } from './intent-router.js';
export * from './evaluation.js';
export * from './calibration.js';
export * from './fit.js';
export { jiebaSegmenter } from './jieba-segmenter.js';
