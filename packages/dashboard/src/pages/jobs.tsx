import { JOB_TYPE_IDS, JOB_TYPES } from '@svc/core/job-types';
import { useState } from 'preact/hooks';
import type { PageProps } from '../app';
import { JobProgress } from '../components/progress';
import { when } from '../format';
import { useAction, useLoad } from '../load';
import type { Job, JobPage, TestEventResult } from '../types';

/** The job types the form offers: every one, labelled as `@svc/core`'s registry describes it. */
const TYPES = JOB_TYPE_IDS.map((id) => [id, JOB_TYPES[id].label] as const);
/** The API's own upload limit is 8 MiB by default; refuse bigger files before sending them. */
const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

/** The account's batch jobs, a form to start one from a list, and a test event for a webhook URL. */
export function JobsPage({ api }: PageProps) {
  const [cursor, setCursor] = useState<string | null>(null);
  const [jobs, setJobs] = useState<Job[]>([]);
  const page = useLoad(async () => {
    const url = `/v2/batch?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const next = await api.json<JobPage>('GET', url);
    setJobs((before) => (cursor ? [...before, ...next.data] : next.data));
    return next;
  }, [cursor]);

  const upload = useAction();
  const [type, setType] = useState<string>('verify_email');
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [column, setColumn] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const job = await upload.run(async () => {
      if (file && file.size > MAX_UPLOAD_BYTES)
        throw new Error(`${file.name} is larger than 8 MiB; split it into several jobs.`);
      const body = file ? await file.text() : text;
      if (!body.trim()) throw new Error('Choose a file or paste at least one record, one per line.');
      const csv = file ? /\.csv$/i.test(file.name) || file.type === 'text/csv' : false;
      const query = new URLSearchParams({ type });
      if (csv && column.trim()) query.set('column', column.trim());
      if (webhookUrl.trim()) query.set('webhook_url', webhookUrl.trim());
      return api.upload<Job>(`/v2/batch?${query}`, body, csv ? 'text/csv' : 'text/plain');
    });
    if (job) location.hash = `#/jobs/${job.id}`;
  };

  const test = useAction();
  const [testUrl, setTestUrl] = useState('');
  const [tested, setTested] = useState<TestEventResult | null>(null);
  const sendTest = async (event: Event) => {
    event.preventDefault();
    setTested(
      await test.run(() => api.json<TestEventResult>('POST', '/v2/webhooks/test', { url: testUrl.trim() })),
    );
  };

  return (
    <>
      <h1>Batch jobs</h1>
      <section class="card" aria-labelledby="start-title">
        <h2 id="start-title">Start a job from a list</h2>
        <form onSubmit={submit}>
          <div class="row wrap">
            <label>
              Job type
              <select name="type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
                {TYPES.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <label class="grow">
              File (CSV or text, one record per line)
              <input
                type="file"
                name="file"
                accept=".csv,.txt,text/csv,text/plain"
                onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              />
            </label>
            <label>
              CSV column (optional)
              <input
                name="column"
                value={column}
                onInput={(e) => setColumn(e.currentTarget.value)}
                placeholder="email"
              />
            </label>
          </div>
          <label>
            …or paste records, one per line
            <textarea
              name="records"
              rows={4}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
              disabled={file !== null}
            />
          </label>
          <label>
            Webhook URL (optional: a signed event when the job ends)
            <input
              type="url"
              name="webhook_url"
              value={webhookUrl}
              onInput={(e) => setWebhookUrl(e.currentTarget.value)}
              placeholder="https://example.com/hooks/svc"
            />
          </label>
          <button type="submit" disabled={upload.busy}>
            Start job
          </button>
        </form>
        {upload.error ? (
          <p class="error" role="alert" data-testid="upload-error">
            {upload.error}
          </p>
        ) : null}
      </section>
      <section aria-labelledby="jobs-title">
        <h2 id="jobs-title">Jobs</h2>
        {page.error ? (
          <p class="error" role="alert">
            {page.error}
          </p>
        ) : null}
        <div class="table-wrap">
          <table data-testid="jobs">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {jobs.length === 0 && page.data ? (
                <tr>
                  <td colSpan={5}>No jobs yet.</td>
                </tr>
              ) : null}
              {jobs.map((job) => (
                <tr key={job.id} data-job-id={job.id}>
                  <td>
                    <a href={`#/jobs/${job.id}`}>
                      <code>{job.id}</code>
                    </a>
                  </td>
                  <td>{job.type}</td>
                  <td class={`status ${job.status}`}>{job.status}</td>
                  <td>
                    <JobProgress job={job} />
                  </td>
                  <td>{when(job.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {page.data?.has_more ? (
          <button type="button" class="secondary" onClick={() => setCursor(page.data?.next_cursor ?? null)}>
            Load more
          </button>
        ) : null}
      </section>
      <section class="card" aria-labelledby="test-title">
        <h2 id="test-title">Send a test event</h2>
        <form class="row wrap" onSubmit={sendTest}>
          <label class="grow">
            Webhook URL
            <input
              type="url"
              name="test_url"
              required
              value={testUrl}
              onInput={(e) => setTestUrl(e.currentTarget.value)}
              placeholder="https://example.com/hooks/svc"
            />
          </label>
          <button type="submit" disabled={test.busy}>
            Send test event
          </button>
        </form>
        {test.error ? (
          <p class="error" role="alert">
            {test.error}
          </p>
        ) : null}
        {tested ? (
          <p role="status" data-testid="test-result">
            {tested.delivered ? 'Delivered' : 'Not delivered'}: {tested.url} answered{' '}
            {tested.status ?? 'nothing'} in {tested.latency_ms ?? '—'} ms
            {tested.error ? ` (${tested.error})` : ''}; event <code>{tested.event_id}</code>.
          </p>
        ) : null}
      </section>
    </>
  );
}
