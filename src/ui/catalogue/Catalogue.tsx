/** The catalogue: every preset grouped by lesson, its one-paragraph setup, and both verdicts at once. */
import { Suspense } from 'react';
import { LESSONS, PRESETS, type Preset } from '../../sim';
import { deriveRun, useVisibility } from '../store';
import { ModelNotes } from '../lazyViews';
import { FidelityLine } from '../fidelity/FidelityLine';

function Verdict({ held, summary }: { held: boolean; summary: string }) {
  return <span className={held ? 'held' : 'violated'}><span aria-hidden="true">{held ? '✓ ' : '✗ '}</span><strong>{held ? 'Held' : 'Violated'}</strong>: {summary.replace(/^(Held|Violated): /, '')}</span>;
}

/** Links styled as buttons answer Space as well as Enter (they keep their href for middle-click and "open in new tab"). */
function onSpace(open: () => void) {
  return (e: React.KeyboardEvent<HTMLAnchorElement>) => {
    if (e.key === ' ' && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      open();
    }
  };
}

/** A card without the answer (interview mode): the setup and one way in. */
function BareCard({ preset, onOpen }: { preset: Preset; onOpen: (id: string, variant: 'without' | 'with') => void }) {
  return (
    <li className="preset">
      <h3 id={`p-${preset.id}`}>{preset.title}</h3>
      <p className="small muted"><code>{preset.id}</code></p>
      <p>{preset.situation}</p>
      <div className="preset-actions">
        <a className="button primary" href={`#/sim/${preset.id}`} onClick={(e) => { e.preventDefault(); onOpen(preset.id, 'without'); }} onKeyDown={onSpace(() => onOpen(preset.id, 'without'))} aria-describedby={`p-${preset.id}`}>Open</a>
      </div>
    </li>
  );
}

function PresetCard({ preset, onOpen }: { preset: Preset; onOpen: (id: string, variant: 'without' | 'with') => void }) {
  const without = deriveRun(preset.withoutFix);
  const withFix = deriveRun(preset.withFix);
  return (
    <li className="preset">
      <h3 id={`p-${preset.id}`}>{preset.title}</h3>
      <p className="small muted"><code>{preset.id}</code></p>
      <p>{preset.situation}</p>
      <p className="small muted"><FidelityLine presetId={preset.id} /></p>
      <dl>
        <dt>Without the fix</dt>
        <dd><Verdict held={without.verdict.held} summary={without.verdict.summary} /></dd>
        <dt>With the fix: {preset.fix}</dt>
        <dd><Verdict held={withFix.verdict.held} summary={withFix.verdict.summary} /></dd>
      </dl>
      <div className="preset-actions">
        <a className="button primary" href={`#/sim/${preset.id}`} onClick={(e) => { e.preventDefault(); onOpen(preset.id, 'without'); }} onKeyDown={onSpace(() => onOpen(preset.id, 'without'))} aria-describedby={`p-${preset.id}`}>Open without the fix</a>
        <a className="button" href={`#/sim/${preset.id}/fixed`} onClick={(e) => { e.preventDefault(); onOpen(preset.id, 'with'); }} onKeyDown={onSpace(() => onOpen(preset.id, 'with'))} aria-describedby={`p-${preset.id}`}>Open with the fix</a>
      </div>
    </li>
  );
}

/** The catalogue page. */
export function Catalogue({ onOpen }: { onOpen: (id: string, variant: 'without' | 'with') => void }) {
  const { showAnswer } = useVisibility();
  const Card = showAnswer ? PresetCard : BareCard;
  return (
    <main className="catalogue" id="main" tabIndex={-1}>
      <h1>Two workers attempt the same job. What keeps the invariant true?</h1>
      <p className="tagline">Start from the invariant — what must never happen — and choose the weakest mechanism that enforces it. Open a scenario to step through it, inject faults, and compare mechanisms.</p>
      {showAnswer && <p><a className="button primary" href="#/lessons" data-testid="to-lessons">Guided lessons: a path through this catalogue, with predictions and exercises</a></p>}
      {LESSONS.map((lesson) => (
        <section key={lesson.id} aria-labelledby={`lesson-${lesson.id}`}>
          <h2 id={`lesson-${lesson.id}`}>{lesson.title}</h2>
          <ul className="preset-grid">
            {PRESETS.filter((p) => p.lesson === lesson.id).map((p) => <Card key={p.id} preset={p} onOpen={onOpen} />)}
          </ul>
        </section>
      ))}
      <Suspense fallback={null}>
        <ModelNotes />
      </Suspense>
    </main>
  );
}
