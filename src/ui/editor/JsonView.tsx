/** The raw JSON view of the draft: same schema as the form, errors listed with their field paths. */
import { CURRENT_SCENARIO_VERSION, type ValidationError } from '../../sim';

/** Props: the text, the problems, and the (debounced by the caller) change handler. */
export interface JsonViewProps {
  readonly text: string;
  readonly errors: readonly ValidationError[];
  readonly jsonError: string | null;
  readonly onText: (text: string) => void;
}

/** The JSON view. */
export function JsonView({ text, errors, jsonError, onText }: JsonViewProps) {
  const bad = errors.length > 0 || jsonError !== null;
  return (
    <section className="panel json-view" aria-label="JSON view">
      <h2><label htmlFor="scenario-json">Scenario JSON</label></h2>
      <textarea
        id="scenario-json"
        className="mono"
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        value={text}
        rows={22}
        aria-invalid={bad || undefined}
        aria-describedby="json-problems"
        onChange={(e) => onText(e.target.value)}
      />
      <div id="json-problems" className="json-problems" data-testid="json-problems">
        {jsonError !== null && <p className="field-error">Not valid JSON: {jsonError}. The running scenario is unchanged.</p>}
        {jsonError === null && errors.length > 0 && (
          <ul>
            {errors.slice(0, 30).map((e, i) => <li key={i} className="field-error"><code>{e.path}</code>: {e.message}</li>)}
            {errors.length > 30 && <li>… and {errors.length - 30} more</li>}
          </ul>
        )}
        {!bad && <p className="small muted">Matches the schema (version {CURRENT_SCENARIO_VERSION}; older versions are upgraded). Edits apply after a short pause.</p>}
      </div>
    </section>
  );
}
