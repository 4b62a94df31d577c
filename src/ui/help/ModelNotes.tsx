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
        Every SQL and Redis command in a trace is the literal command, and the fidelity suite replays them against real
        PostgreSQL 15 and Redis 7 and compares each reply, error code, warning, and who waits for whom. The SQS-like
        queue (ReceiveMessage, DeleteMessage, ChangeMessageVisibility) and the destinations (a file store, an external
        API) are Lockscope's models: no server is asked, and a run that touches only them is not replayed.
      </p>
      <p className="fidelity-build">
        <FidelityLine long /> Every run can be exported as a transcript to replay on your own servers
        (Share → Run it yourself, or <code>npm run simulate -- &lt;id&gt; --transcript</code>; it names the calls it
        does not replay); the fidelity suite replays the transcript of every preset run that sends commands to
        PostgreSQL or Redis.
      </p>
      <p>The model simplifies on purpose in these places, which the comparison leaves out:</p>
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
