/** Form controls bound to a path of the draft scenario, each showing its own validation errors inline. */
import type { CSSProperties, ReactNode } from 'react';
import type { ValidationError } from '../../sim';
import { fieldId, getIn, parsePath } from './paths';
import { problemWords } from '../fields/words';

/** What every field needs: the draft, the current errors and the edit function. */
export interface FormCtx {
  readonly draft: unknown;
  readonly errors: readonly ValidationError[];
  edit(path: string, value: unknown): void;
  /** Replaces the whole draft at once (an edit of several fields, e.g. steps and the faults placed at them). */
  replace?(value: unknown, key: string): void;
}

/** Errors at exactly this path. */
export function errorsAt(errors: readonly ValidationError[], path: string): readonly ValidationError[] {
  return errors.filter((e) => e.path === path);
}

/** The field's problems in the user's words (../fields/words.ts): its name, the rule with its unit, and the real system's why. */
function FieldError({ id, errors }: { id: string; errors: readonly ValidationError[] }) {
  if (errors.length === 0) return null;
  return (
    <span id={`${id}-err`} className="field-error" data-testid="field-error">
      {errors.map((e, i) => {
        const w = problemWords(e.path, e.message);
        return <span key={i}>{i > 0 ? ' ' : ''}{w.text}{w.why && <span className="field-why"> Why: {w.why}</span>}</span>;
      })}
    </span>
  );
}

interface FieldProps {
  readonly ctx: FormCtx;
  readonly path: string;
  readonly label: ReactNode;
  readonly hint?: string;
}

function Wrap({ id, label, hint, errors, children, inline, minCh }: { id: string; label: ReactNode; hint?: string; errors: readonly ValidationError[]; children: ReactNode; inline?: boolean; minCh?: number }) {
  return (
    <div className={`field${inline ? ' inline' : ''}${errors.length ? ' invalid' : ''}`} style={minCh === undefined ? undefined : ({ '--option-ch': minCh } as CSSProperties)}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <span className="field-hint">{hint}</span>}
      <FieldError id={id} errors={errors} />
    </div>
  );
}

/**
 * A number field: empty stores null, anything else the number typed (the validator judges it).
 * `offset` is added for display and taken off when stored (1: a 0-based step index shown 1-based).
 */
export function NumField({ ctx, path, label, hint, optional, nullable, offset = 0 }: FieldProps & { optional?: boolean; nullable?: boolean; offset?: number }) {
  const id = fieldId(path);
  const v = getIn(ctx.draft, parsePath(path));
  const errs = errorsAt(ctx.errors, path);
  return (
    <Wrap id={id} label={label} hint={hint} errors={errs}>
      <input
        id={id}
        type="number"
        value={typeof v === 'number' && Number.isFinite(v) ? v + offset : ''}
        placeholder={nullable ? 'none' : optional ? '—' : undefined}
        aria-invalid={errs.length > 0 || undefined}
        aria-describedby={errs.length ? `${id}-err` : undefined}
        onChange={(e) => {
          const raw = e.target.value.trim();
          ctx.edit(path, raw === '' ? (optional ? undefined : null) : Number(raw) - offset);
        }}
      />
    </Wrap>
  );
}

/** A text field (optional: empty removes the key). */
export function TextField({ ctx, path, label, hint, optional, multiline }: FieldProps & { optional?: boolean; multiline?: boolean }) {
  const id = fieldId(path);
  const v = getIn(ctx.draft, parsePath(path));
  const errs = errorsAt(ctx.errors, path);
  const common = {
    id,
    value: typeof v === 'string' ? v : '',
    'aria-invalid': errs.length > 0 || undefined,
    'aria-describedby': errs.length ? `${id}-err` : undefined,
    onChange: (e: { target: { value: string } }) => ctx.edit(path, optional && e.target.value === '' ? undefined : e.target.value),
  };
  return (
    <Wrap id={id} label={label} hint={hint} errors={errs}>
      {multiline ? <textarea rows={3} {...common} /> : <input type="text" {...common} />}
    </Wrap>
  );
}

/** A checkbox. */
export function CheckField({ ctx, path, label, hint }: FieldProps) {
  const id = fieldId(path);
  const v = getIn(ctx.draft, parsePath(path));
  const errs = errorsAt(ctx.errors, path);
  return (
    <div className={`field check${errs.length ? ' invalid' : ''}`}>
      <input id={id} type="checkbox" checked={v === true} aria-invalid={errs.length > 0 || undefined} onChange={(e) => ctx.edit(path, e.target.checked)} />
      <label htmlFor={id}>{label}</label>
      {hint && <span className="field-hint">{hint}</span>}
      <FieldError id={id} errors={errs} />
    </div>
  );
}

/** A select over fixed values (an empty choice appears while the value is not one of them; `emptyLabel` names it for an optional field, default '—'; `absentAs` shows the default an absent optional value means). */
export function SelectField({ ctx, path, label, hint, options, optional, onPick, absentAs, emptyLabel = '—' }: FieldProps & { options: readonly (string | { value: string; label: string })[]; optional?: boolean; onPick?: (v: string) => void; absentAs?: string; emptyLabel?: string }) {
  const id = fieldId(path);
  const raw = getIn(ctx.draft, parsePath(path));
  // An optional field whose absence means a default (e.g. mechanism.fenceSource: absent = redis-incr) shows that default.
  const v = raw === undefined && absentAs !== undefined ? absentAs : raw;
  const errs = errorsAt(ctx.errors, path);
  const opts = options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));
  const known = typeof v === 'string' && opts.some((o) => o.value === v);
  return (
    <Wrap id={id} label={label} hint={hint} errors={errs} minCh={Math.max(...opts.map((o) => o.label.length))}>
      <select
        id={id}
        value={known ? (v as string) : ''}
        aria-invalid={errs.length > 0 || undefined}
        aria-describedby={errs.length ? `${id}-err` : undefined}
        onChange={(e) => (onPick ? onPick(e.target.value) : ctx.edit(path, optional && e.target.value === '' ? undefined : e.target.value))}
      >
        {(!known || optional) && <option value="">{optional ? emptyLabel : 'choose…'}</option>}
        {opts.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </Wrap>
  );
}

/** A JSON object field (e.g. a row's columns), committed on blur when it parses. */
export function JsonObjectField({ ctx, path, label, hint }: FieldProps) {
  const id = fieldId(path);
  const v = getIn(ctx.draft, parsePath(path));
  const errs = errorsAt(ctx.errors, path);
  const text = JSON.stringify(v ?? {});
  return (
    <Wrap id={id} label={label} hint={hint} errors={errs}>
      <input
        id={id}
        type="text"
        className="mono"
        defaultValue={text}
        key={text}
        aria-invalid={errs.length > 0 || undefined}
        onBlur={(e) => {
          try {
            const parsed: unknown = JSON.parse(e.target.value);
            if (JSON.stringify(parsed) !== text) ctx.edit(path, parsed);
          } catch {
            ctx.edit(path, e.target.value);
          }
        }}
      />
    </Wrap>
  );
}
