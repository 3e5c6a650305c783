import { useState, type FormEvent } from 'react';
import { choiceOf } from '../lib/choice';
import { useI18n } from '../i18n/i18n';
import { lastDays } from '../lib/format';

export type WindowFilter = {
  from: string;
  to: string;
  channel: string;
};

/** The Overview's and the gaps' window by default: the last 30 days, every channel. */
export const defaultWindow = (): WindowFilter => ({ ...lastDays(30), channel: '' });

/**
 * Date range and channel; applied on submit, so typing does not fire a request per key. Keyed by the value it
 * shows (`key={JSON.stringify(value)}`), so the browser's back and forward put the applied filter back in it.
 */
export function WindowFilterForm({ value, onApply }: { value: WindowFilter; onApply(next: WindowFilter): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...draft, channel: draft.channel.trim() });
  };
  return (
    <form className="filters" onSubmit={submit}>
      <WindowFields draft={draft} onChange={setDraft} channelPlaceholder={t('filter.allChannels')} />
      <button type="submit">{t('action.apply')}</button>
    </form>
  );
}

/** The window's fields (from, to, channel), for a filter form that has more (the conversations'). */
export function WindowFields<F extends WindowFilter>({
  draft,
  onChange,
  channelPlaceholder,
}: {
  draft: F;
  onChange(next: F): void;
  channelPlaceholder?: string;
}) {
  const { t } = useI18n();
  return (
    <>
      <label>
        {t('filter.from')}
        <input type="date" value={draft.from} onChange={(event) => onChange({ ...draft, from: event.target.value })} />
      </label>
      <label>
        {t('filter.to')}
        <input type="date" value={draft.to} onChange={(event) => onChange({ ...draft, to: event.target.value })} />
      </label>
      <label>
        {t('filter.channel')}
        <input type="text" value={draft.channel} placeholder={channelPlaceholder} onChange={(event) => onChange({ ...draft, channel: event.target.value })} />
      </label>
    </>
  );
}

/** A filter over API values, '' being "All"; each value shown as the API names it. */
export function ChoiceFilter<T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly T[];
  value: T;
  onChange(next: T): void;
}) {
  const { t } = useI18n();
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(choiceOf(options, event.target.value, value))}>
        {options.map((option) => (
          <option key={option} value={option}>
            {option || t('filter.all')}
          </option>
        ))}
      </select>
    </label>
  );
}
