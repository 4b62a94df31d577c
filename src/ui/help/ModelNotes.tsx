/**
 * "How faithful is the model?": the deliberate simplifications (from src/sim) and how the model
 * is checked against real PostgreSQL and Redis.
 */
import { MODEL_SIMPLIFICATIONS } from '../../sim';
import { FidelityLine } from '../fidelity/FidelityLine';

/** The help section listing what the model leaves out on purpose. */
export function ModelNotes() {
  return (
    <section className="model-notes" aria-labelledby="model-notes-title">
      <h2 id="model-notes-title">How faithful is the model?</h2>
      <p>
        Every command in a trace is the literal SQL or Redis command, and the fidelity suite replays them against real
        PostgreSQL 15 and Redis 7 and compares each reply, error code, warning, and who waits for whom. The model
        simplifies on purpose in these places, which the comparison leaves out:
      </p>
      <p className="fidelity-build">
        <FidelityLine long /> Every run can be exported as a transcript to replay on your own servers
        (Share → Run it yourself, or <code>npm run simulate -- &lt;id&gt; --transcript</code>); the fidelity suite
        replays the transcript of every preset.
      </p>
      <dl>
        {MODEL_SIMPLIFICATIONS.map((s) => (
          <div key={s.title} className="model-note">
            <dt>{s.title}</dt>
            <dd>{s.detail}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
