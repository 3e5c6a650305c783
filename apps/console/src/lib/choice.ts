/** The option a `<select>` chose, typed as its options are: `raw` when it is one of them, else `fallback`. */
export function choiceOf<T extends string>(options: readonly T[], raw: string, fallback: T): T {
  return options.find((option) => option === raw) ?? fallback;
}
