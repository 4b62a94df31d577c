/**
 * A number of seconds typed by the user. What they type stays in the field; a value the scenario
 * cannot take is said next to the field (and the field marked invalid) instead of being reverted
 * or dropped. A valid value is committed on Enter or leaving the field (or on every keystroke
 * with `commitOnChange`).
 */
import { useEffect, useId, useState } from 'react';

/** Props of a seconds field. */
export interface SecondsInputProps {
  readonly id: string;
  readonly label: string;
  readonly ariaLabel: string;
  /** The committed value, ms (null: empty). */
  readonly ms: number | null;
  /** Why `ms` cannot be committed (null: it can). Called with every valid number typed. */
  readonly check: (ms: number) => string | null;
  readonly onCommit: (ms: number | null) => void;
  /** Empty means null (e.g. "never restart"). */
  readonly allowEmpty?: boolean;
  readonly placeholder?: string;
  readonly commitOnChange?: boolean;
  readonly className?: string;
  readonly step?: number;
}

/** The message for `text`, or null when it is a value `check` accepts. */
export function secondsProblem(text: string, allowEmpty: boolean, check: (ms: number) => string | null): { ms: number | null; problem: string | null } {
  const raw = text.trim();
  if (raw === '') return allowEmpty ? { ms: null, problem: null } : { ms: null, problem: 'Enter a number of seconds.' };
  const v = Number(raw);
  if (!Number.isFinite(v)) return { ms: null, problem: `"${raw.slice(0, 20)}" is not a number of seconds.` };
  const ms = Math.round(v * 1000);
  return { ms, problem: check(ms) };
}

/** A seconds field with its message. */
/** The text a seconds field shows for a value in ms (`1500` → `1.5`): a number to edit, not words. */
export function secondsFieldValue(ms: number): string {
  return String(ms / 1000);
}

export function SecondsInput({ id, label, ariaLabel, ms, check, onCommit, allowEmpty = false, placeholder, commitOnChange = false, className = 'sec-input', step = 0.5 }: SecondsInputProps) {
  const shown = ms === null ? '' : secondsFieldValue(ms);
  const [text, setText] = useState(shown);
  const [problem, setProblem] = useState<string | null>(null);
  const msgId = useId();
  // A change from elsewhere (a dragged marker, a preset) replaces what is typed, unless the field holds a problem the user is fixing.
  useEffect(() => {
    setText((t) => (secondsProblem(t, allowEmpty, () => null).ms === ms ? t : shown));
    setProblem(null);
  }, [ms, shown, allowEmpty]);

  const commit = (t: string) => {
    const r = secondsProblem(t, allowEmpty, check);
    setProblem(r.problem);
    if (r.problem === null && r.ms !== ms) onCommit(r.ms);
  };

  return (
    <span className={`${className}${problem ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        aria-label={ariaLabel}
        type="number"
        step={step}
        value={text}
        placeholder={placeholder}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? msgId : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (commitOnChange) commit(e.target.value);
          else setProblem(secondsProblem(e.target.value, allowEmpty, check).problem);
        }}
        onBlur={(e) => commit(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit((e.target as HTMLInputElement).value);
        }}
      />
      <span aria-hidden="true">s</span>
      {problem && <span className="field-error" id={msgId} role="status">{problem}</span>}
    </span>
  );
}
