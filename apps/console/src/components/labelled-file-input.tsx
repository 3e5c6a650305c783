import type { ChangeEvent } from 'react';

/**
 * A labelled file's input (JSON Lines or JSON) with its expected format beside the label and the reading's problem
 * (its first bad line) below it: the intents' evaluation and the grade's fit read their files this way.
 */
export function LabelledFileInput({
  label,
  format,
  problem,
  disabled,
  onFile,
}: {
  label: string;
  format: string;
  problem: string | null;
  disabled: boolean;
  onFile: (file: File | null) => void;
}) {
  const onChange = (event: ChangeEvent<HTMLInputElement>) => onFile(event.target.files?.[0] ?? null);
  return (
    <>
      <label>
        {label} <span className="muted">{format}</span>
        <input type="file" accept=".jsonl,.json,application/json" onChange={onChange} disabled={disabled} />
      </label>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
