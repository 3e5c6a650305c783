import { useState, type FormEvent } from 'react';
import { api, call } from '../../api/client';
import { useApiMutation } from '../../api/queries';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { splitList } from '../../lib/labelled-file';

export type Rule = components['schemas']['IntentRuleViewDto'];
const ACTIONS = ['knowledge', 'answer', 'transfer'] as const;
/** What the editor sends: the rule's fields (a new rule adds its confidence profile). */
type RuleBody = Omit<components['schemas']['CreateIntentRuleDto'], 'confidenceProfile'>;

interface Draft {
  intent: string;
  keywords: string;
  patterns: string;
  examples: string;
  priority: string;
  enabled: boolean;
  action: (typeof ACTIONS)[number];
  reply: string;
}

function toDraft(rule: Rule | null): Draft {
  return {
    intent: rule?.intent ?? '',
    keywords: rule?.keywords.join(', ') ?? '',
    patterns: rule?.patterns.join('\n') ?? '',
    examples: rule?.semanticExamples.join('\n') ?? '',
    priority: String(rule?.priority ?? 50),
    enabled: rule?.enabled ?? true,
    action: rule?.action ?? 'knowledge',
    reply: rule?.reply ?? '',
  };
}

/**
 * Creates or edits a rule. The API validates (its 400 names the field and is shown as is); what the operator typed
 * stays in the form whatever the answer.
 */
export function RuleEditor({ rule, onDone }: { rule: Rule | null; onDone(): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<Draft>(() => toDraft(rule));
  // A saved rule changes the list and the training status beside it: both are asked again.
  const save = useApiMutation({
    send: (body: RuleBody) =>
      rule
        ? call(api.PATCH('/admin/intent-rules/{id}', { params: { path: { id: rule.id } }, body }))
        : call(api.POST('/admin/intent-rules', { body: { ...body, confidenceProfile: 'search' } })),
    invalidates: ['intent-rules', 'intent-status'],
    onSuccess: onDone,
  });
  const error = save.error;
  const saving = save.isPending;
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: RuleBody = {
      intent: draft.intent.trim(),
      keywords: splitList(draft.keywords, 'comma'),
      patterns: splitList(draft.patterns, 'line'),
      semanticExamples: splitList(draft.examples, 'line'),
      // Not a number stays as typed so the API's message names it ("priority must be an integer …").
      priority: (draft.priority.trim() === '' || Number.isNaN(Number(draft.priority)) ? draft.priority : Number(draft.priority)) as number,
      enabled: draft.enabled,
      action: draft.action,
      reply: draft.reply.trim() ? draft.reply : null,
    };
    save.mutate(body);
  };

  return (
    <form className="editor" onSubmit={submit} aria-label={rule ? t('intents.editRule', { intent: rule.intent }) : t('intents.newRule')}>
      <label>
        {t('intents.intent')}
        <input type="text" value={draft.intent} onChange={(event) => set('intent', event.target.value)} />
      </label>
      <label>
        {t('intents.keywords')} <span className="muted">{t('intents.commaSeparated')}</span>
        <input type="text" value={draft.keywords} onChange={(event) => set('keywords', event.target.value)} />
      </label>
      <label>
        {t('intents.patterns')} <span className="muted">{t('intents.onePerLine')}</span>
        <textarea rows={3} value={draft.patterns} onChange={(event) => set('patterns', event.target.value)} />
      </label>
      <label>
        {t('intents.examples')} <span className="muted">{t('intents.onePerLine')}</span>
        <textarea rows={4} value={draft.examples} onChange={(event) => set('examples', event.target.value)} />
      </label>
      <div className="row">
        <label>
          {t('intents.priority')}
          <input type="text" inputMode="numeric" value={draft.priority} onChange={(event) => set('priority', event.target.value)} />
        </label>
        <label>
          {t('intents.action')}
          <select value={draft.action} onChange={(event) => set('action', event.target.value as Draft['action'])}>
            {ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={draft.enabled} onChange={(event) => set('enabled', event.target.checked)} />
          {t('intents.enabled')}
        </label>
      </div>
      <label>
        {t('intents.reply')}
        <textarea rows={2} value={draft.reply} onChange={(event) => set('reply', event.target.value)} />
      </label>
      {error && <ErrorNotice error={error} />}
      <div className="row">
        <button type="submit" disabled={saving}>
          {saving ? t('action.saving') : t('action.save')}
        </button>
        <button type="button" onClick={onDone}>
          {t('action.cancel')}
        </button>
      </div>
    </form>
  );
}
