import { useMemo } from 'react';
import { LESSONS, PRESETS, runScenario, type Preset } from '../sim';

/** One catalogue row: the preset and its verdict without and with the fix, computed live by the core. */
function PresetRow({ preset }: { preset: Preset }) {
  const [without, withFix] = useMemo(() => [runScenario(preset.withoutFix), runScenario(preset.withFix)], [preset]);
  return (
    <li className="preset">
      <h3>{preset.title} <code>{preset.id}</code></h3>
      <p>{preset.situation}</p>
      <dl>
        <dt>Without the fix</dt>
        <dd className={without.verdict.held ? 'held' : 'violated'}>{without.verdict.held ? '✓' : '✗'} {without.verdict.summary}</dd>
        <dt>With the fix: {preset.fix}</dt>
        <dd className={withFix.verdict.held ? 'held' : 'violated'}>{withFix.verdict.held ? '✓' : '✗'} {withFix.verdict.summary}</dd>
      </dl>
    </li>
  );
}

/** The catalogue page: presets grouped by lesson. */
export function App() {
  return (
    <main>
      <h1>Lockscope</h1>
      <p className="tagline">Start from the invariant — what must never happen — and choose the weakest mechanism that enforces it.</p>
      {LESSONS.map((lesson) => (
        <section key={lesson.id} aria-labelledby={`lesson-${lesson.id}`}>
          <h2 id={`lesson-${lesson.id}`}>{lesson.title}</h2>
          <ul>
            {PRESETS.filter((p) => p.lesson === lesson.id).map((p) => <PresetRow key={p.id} preset={p} />)}
          </ul>
        </section>
      ))}
    </main>
  );
}
