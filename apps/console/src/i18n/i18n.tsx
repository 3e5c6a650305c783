import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { initialLanguage, interpolate, type Language } from './language';
import { MESSAGES, type MessageKey } from './messages';

const LANGUAGE_KEY = 'arbiter.language';

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

interface I18nValue {
  language: Language;
  setLanguage(language: Language): void;
  t: Translate;
}

const I18nContext = createContext<I18nValue | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(() =>
    initialLanguage(window.localStorage.getItem(LANGUAGE_KEY), navigator.languages ?? [navigator.language]),
  );
  useEffect(() => {
    document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
  }, [language]);
  const setLanguage = useCallback((next: Language) => {
    window.localStorage.setItem(LANGUAGE_KEY, next);
    setLanguageState(next);
  }, []);
  const t = useCallback<Translate>((key, values) => interpolate(MESSAGES[language][key], values), [language]);
  const value = useMemo(() => ({ language, setLanguage, t }), [language, setLanguage, t]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
