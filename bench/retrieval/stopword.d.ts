/** The part of the `stopword` package (v3, untyped) that keyword-form.ts uses. */
declare module 'stopword' {
  export function removeStopwords(tokens: string[], stopwords?: readonly string[]): string[];
  export const eng: string[];
  export const zho: string[];
}
