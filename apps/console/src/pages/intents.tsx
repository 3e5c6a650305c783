import { useState } from 'react';
import { Pager } from '../components/pager';
import { Async } from '../components/states';
import { useI18n } from '../i18n/i18n';
import { api, call } from '../api/client';
import { useApiQuery } from '../api/queries';
import { RuleEditor, type Rule } from './intents/rule-editor';
import { TryMessage } from './intents/try-message';
import { EvaluationPanel } from './intents/evaluation';
import { ConfigPanel } from './intents/config';
import { TableHead } from '../components/table-head';
import { IntentStatusLine } from './intents/status';
import { useCanWrite } from '../lib/identity';
import { useUrlState } from '../lib/url-state';

/**
 * Rules (list, editor) with their training status, a try-a-message box with the live trace, the evaluation report
 * and the router config.
 */
export function IntentsPage() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const [list, setList] = useUrlState<{ cursor: readonly string[] }>({ cursor: [] });
  const cursors = list.cursor;
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const cursor = cursors.at(-1);
  const rules = useApiQuery(['intent-rules', cursor], () => call(api.GET('/admin/intent-rules', { params: { query: { limit: 25, cursor } } })));
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.intents')}</h1>
      <TryMessage />
      <article className="card">
        <div className="toolbar">
          <h2>{t('intents.rules')}</h2>
          {canWrite && (
            <button type="button" onClick={() => setEditing('new')}>
              {t('intents.newRule')}
            </button>
          )}
        </div>
        <IntentStatusLine />
        {editing && <RuleEditor rule={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
        <Async state={rules} isEmpty={(data) => data.items.length === 0} empty={t('intents.noRules')}>
          {(data) => (
            <>
              <table>
                <TableHead
                  columns={[
                    t('intents.intent'),
                    t('intents.keywords'),
                    t('intents.examples'),
                    t('intents.priority'),
                    t('intents.action'),
                    t('intents.enabled'),
                    ...(canWrite ? [{ hidden: t('action.edit') }] : []),
                  ]}
                />
                <tbody>
                  {data.items.map((rule) => (
                    <tr key={rule.id}>
                      <td>
                        <strong>{rule.intent}</strong>
                      </td>
                      <td>{rule.keywords.join(', ')}</td>
                      <td className="num">{rule.semanticExamples.length}</td>
                      <td className="num">{rule.priority}</td>
                      <td>{rule.action}</td>
                      <td>{rule.enabled ? '✓' : '—'}</td>
                      {canWrite && (
                        <td>
                          <button type="button" onClick={() => setEditing(rule)} aria-label={t('intents.editRule', { intent: rule.intent })}>
                            {t('action.edit')}
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager cursors={cursors} nextCursor={data.nextCursor} onChange={(next) => setList({ cursor: next })} />
            </>
          )}
        </Async>
      </article>
      <EvaluationPanel />
      <ConfigPanel />
    </section>
  );
}
