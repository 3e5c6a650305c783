export type Language = 'zh' | 'en';

/** The browser's language decides until the operator switches; the switch is remembered (docs/console.md). */
export function initialLanguage(stored: string | null, browserLanguages: readonly string[]): Language {
  if (stored === 'zh' || stored === 'en') return stored;
  for (const language of browserLanguages) {
    const lower = language.toLowerCase();
    if (lower.startsWith('zh')) return 'zh';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

/** Fills `{name}` placeholders; an unknown name stays visible rather than vanishing. */
export function interpolate(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
