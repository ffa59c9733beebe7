import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app';
import { JobProgress } from '../components/progress';
import { count, when } from '../format';
import { useAction, useLoad } from '../load';
import type { Job, JobEvent } from '../types';

const RUNNING = new Set(['queued', 'running']);
/** How often a running job is asked again: the API's polling is O(1), and a second reads as live. */
const POLL_MS = 1_000;

/** One job: updates while it runs, cancel, downloads, and its webhook deliveries with every attempt. */
export function JobPage({ api, id }: PageProps & { id: string }) {
  const job = useLoad(() => api.json<Job>('GET', `/v2/batch/${id}`), [id]);
  const events = useLoad(() => api.json<{ data: JobEvent[] }>('GET', `/v2/batch/${id}/events`), [id]);
  const action = useAction();
  const [downloaded, setDownloaded] = useState<string | null>(null);
  const running = job.data ? RUNNING.has(job.data.status) : false;

  // Deliveries keep changing after the job ends: its event is queued when it finishes, then
  // attempted (and retried) by the dispatcher. Ask again while anything can still change.
  const waiting =
    events.data?.data.some((event) => event.state === 'pending') === true ||
    (job.data?.webhook_url != null && events.data?.data.length === 0);
  useEffect(() => {
    if (!running && !waiting) return;
    const timer = setInterval(() => {
      if (running) job.reload();
      events.reload();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [running, waiting]);

  const cancel = async () => {
    const cancelled = await action.run(() => api.json<Job>('POST', `/v2/batch/${id}/cancel`));
    if (cancelled) job.setData(cancelled);
  };
  const download = async (format: 'csv' | 'ndjson') => {
    const blob = await action.run(() => api.blob(`/v2/batch/${id}/results?format=${format}`));
    if (!blob) return;
    // The results need the token, so a plain link cannot fetch them: hand the browser a blob.
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `${id}.${format}`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    setDownloaded(`Downloaded ${id}.${format} (${count(blob.size)} bytes).`);
  };
  const resend = async (eventId: string) => {
    if (await action.run(() => api.json<JobEvent>('POST', `/v2/events/${eventId}/resend`))) events.reload();
  };

  const data = job.data;
  return (
    <>
      <p>
        <a href="#/jobs">← Batch jobs</a>
      </p>
      <h1>
        Job <code>{id}</code>
      </h1>
      {job.error ? (
        <p class="error" role="alert">
          {job.error}
        </p>
      ) : null}
      {action.error ? (
        <p class="error" role="alert">
          {action.error}
        </p>
      ) : null}
      {data ? (
        <section class="card" aria-label="Job">
          <dl class="facts">
            <dt>Status</dt>
            <dd class={`status ${data.status}`} data-testid="job-status" aria-live="polite">
              {data.status}
            </dd>
            <dt>Progress</dt>
            <dd>
              <JobProgress job={data} />
            </dd>
            <dt>Type</dt>
            <dd>{data.type}</dd>
            <dt>Results</dt>
            <dd data-testid="job-counts">
              {Object.entries(data.counts ?? {})
                .map(([k, v]) => `${k}: ${count(v as number)}`)
                .join(', ') || '—'}
            </dd>
            <dt>Created</dt>
            <dd>{when(data.created_at)}</dd>
            <dt>Started</dt>
            <dd>{when(data.started_at)}</dd>
            <dt>Ended</dt>
            <dd>{when(data.completed_at)}</dd>
            <dt>Webhook</dt>
            <dd>{data.webhook_url ?? '—'}</dd>
            {data.error ? (
              <>
                <dt>Error</dt>
                <dd>{typeof data.error === 'string' ? data.error : JSON.stringify(data.error)}</dd>
              </>
            ) : null}
          </dl>
          <div class="row wrap">
            {running ? (
              <button type="button" class="danger" onClick={cancel} disabled={action.busy}>
                Cancel job
              </button>
            ) : null}
            <button type="button" onClick={() => download('csv')} disabled={action.busy}>
              Download CSV
            </button>
            <button type="button" onClick={() => download('ndjson')} disabled={action.busy}>
              Download NDJSON
            </button>
          </div>
          <p role="status" aria-live="polite">
            {downloaded}
          </p>
        </section>
      ) : job.error ? null : (
        <p>Loading…</p>
      )}
      <section aria-labelledby="events-title">
        <h2 id="events-title">Webhook deliveries</h2>
        {events.error ? (
          <p class="error" role="alert">
            {events.error}
          </p>
        ) : null}
        {events.data && events.data.data.length === 0 ? (
          <p>No events: the job has no webhook URL, or has not ended yet.</p>
        ) : null}
        {(events.data?.data ?? []).map((event) => (
          <article class="card event" key={event.id} data-event-id={event.id} data-state={event.state}>
            <div class="row spread wrap">
              <h3>
                <code>{event.type}</code> <span class={`status ${event.state}`}>{event.state}</span>
              </h3>
              <button type="button" onClick={() => resend(event.id)} disabled={action.busy}>
                Resend <span class="visually-hidden">{event.id}</span>
              </button>
            </div>
            <p>
              <code>{event.id}</code> to {event.url}, created {when(event.created_at)}
              {event.next_attempt_at ? `, next attempt ${when(event.next_attempt_at)}` : ''}
            </p>
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Delivery attempts of {event.id}</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Trigger</th>
                    <th scope="col" class="num">
                      Status
                    </th>
                    <th scope="col" class="num">
                      Latency
                    </th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  {event.attempts.map((attempt, index) => (
                    <tr key={`${attempt.at}-${index}`} data-testid="attempt">
                      <td>{when(attempt.at)}</td>
                      <td>{attempt.trigger}</td>
                      <td class="num">{attempt.status ?? '—'}</td>
                      <td class="num">{attempt.latency_ms} ms</td>
                      <td>{attempt.error ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </article>
        ))}
      </section>
    </>
  );
}
