/**
 * A duration or instant typed by the user, in seconds or in milliseconds (`unit`: the fault
 * panel speaks the unit of the run's time axis, so a fault titled "at 50 ms" has a field reading
 * 50 ms, not 0.05 s). What they type stays in the field; a value the scenario cannot take is said
 * next to the field (and the field marked invalid) instead of being reverted or dropped. A valid
 * value is committed on Enter or leaving the field (or on every keystroke with `commitOnChange`).
 */
import { useEffect, useId, useState } from 'react';

/** The unit a field is typed in: seconds, or whole milliseconds. */
export type FieldUnit = 's' | 'ms';

/** The unit's name in a sentence ("Enter a number of seconds.") and in a field's accessible name. */
export const UNIT_WORD: Readonly<Record<FieldUnit, string>> = { s: 'seconds', ms: 'milliseconds' };

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
  /** The spinner's step, in `unit`s (default 0.5 s, or 10 ms). */
  readonly step?: number;
  /** The unit typed and shown (default seconds). */
  readonly unit?: FieldUnit;
}

/**
 * The value typed in `text` (in `unit`s, rounded to the ms) and the message for it, or null when
 * it is a value `check` accepts.
 */
export function secondsProblem(text: string, allowEmpty: boolean, check: (ms: number) => string | null, unit: FieldUnit = 's'): { ms: number | null; problem: string | null } {
  const raw = text.trim();
  if (raw === '') return allowEmpty ? { ms: null, problem: null } : { ms: null, problem: `Enter a number of ${UNIT_WORD[unit]}.` };
  const v = Number(raw);
  if (!Number.isFinite(v)) return { ms: null, problem: `"${raw.slice(0, 20)}" is not a number of ${UNIT_WORD[unit]}.` };
  const ms = Math.round(unit === 's' ? v * 1000 : v);
  return { ms, problem: check(ms) };
}

/** The text a seconds field shows for a value in ms (`1500` → `1.5`): a number to edit, not words. */
export function secondsFieldValue(ms: number): string {
  return String(ms / 1000);
}

/** The text a field in `unit` shows for a value in ms: `1500` → `1.5` in seconds, `1500` in ms. */
export function fieldValue(ms: number, unit: FieldUnit): string {
  return unit === 's' ? secondsFieldValue(ms) : String(ms);
}

/** A seconds (or milliseconds) field with its message. */
export function SecondsInput({ id, label, ariaLabel, ms, check, onCommit, allowEmpty = false, placeholder, commitOnChange = false, className = 'sec-input', step, unit = 's' }: SecondsInputProps) {
  const shown = ms === null ? '' : fieldValue(ms, unit);
  const [text, setText] = useState(shown);
  const [problem, setProblem] = useState<string | null>(null);
  const msgId = useId();
  // A change from elsewhere (a dragged marker, a preset) replaces what is typed, unless the field holds a problem the user is fixing.
  useEffect(() => {
    setText((t) => (secondsProblem(t, allowEmpty, () => null, unit).ms === ms ? t : shown));
    setProblem(null);
  }, [ms, shown, allowEmpty, unit]);

  const commit = (t: string) => {
    const r = secondsProblem(t, allowEmpty, check, unit);
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
        step={step ?? (unit === 's' ? 0.5 : 10)}
        value={text}
        placeholder={placeholder}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? msgId : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (commitOnChange) commit(e.target.value);
          else setProblem(secondsProblem(e.target.value, allowEmpty, check, unit).problem);
        }}
        onBlur={(e) => commit(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit((e.target as HTMLInputElement).value);
        }}
      />
      <span aria-hidden="true">{unit}</span>
      {/* What the run uses meanwhile: the timeline beside it still shows the last valid value (a newcomer saw "at 3 s" over a field reading 500). */}
      {problem && <span className="field-error" id={msgId} role="status">{problem} {ms === null ? 'The run keeps this empty until it is fixed.' : `The run keeps ${shown} ${unit} until it is fixed.`}</span>}
    </span>
  );
}
