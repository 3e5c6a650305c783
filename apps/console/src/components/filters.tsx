import { useState, type FormEvent } from 'react';
import { useI18n } from '../i18n/i18n';

export interface WindowFilter {
  from: string;
  to: string;
  channel: string;
}

/** Date range and channel; applied on submit, so typing does not fire a request per key. */
export function WindowFilterForm({ value, onApply }: { value: WindowFilter; onApply(next: WindowFilter): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...draft, channel: draft.channel.trim() });
  };
  return (
    <form className="filters" onSubmit={submit}>
      <label>
        {t('filter.from')}
        <input type="date" value={draft.from} onChange={(event) => setDraft({ ...draft, from: event.target.value })} />
      </label>
      <label>
        {t('filter.to')}
        <input type="date" value={draft.to} onChange={(event) => setDraft({ ...draft, to: event.target.value })} />
      </label>
      <label>
        {t('filter.channel')}
        <input
          type="text"
          value={draft.channel}
          placeholder={t('filter.allChannels')}
          onChange={(event) => setDraft({ ...draft, channel: event.target.value })}
        />
      </label>
      <button type="submit">{t('action.apply')}</button>
    </form>
  );
}
