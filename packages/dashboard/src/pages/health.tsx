import { health } from '../api';
import type { PageProps } from '../app';
import { when } from '../format';
import { useLoad } from '../load';

/** The email probing self-check as GET /v2/health reports it to the server's owner account. */
interface Probing {
  state: 'idle' | 'running' | 'ready';
  finished_at: string | null;
  next_run_at: string | null;
  report: {
    status: string;
    checked_at: string;
    identity: { public_address: string | null; helo_name: string; mail_from: string; proxy: string | null };
    checks: { id: string; group: string; title: string; status: string; message: string }[];
  } | null;
}

const KNOWN = new Set(['status', 'failing', 'checks', 'version', 'time', 'geo', 'probing']);

/** The status card's colour: green only when every check shown passed. */
function statusClass(status: string, failing: readonly string[]): string {
  return status === 'ok' && failing.length === 0 ? 'ok' : 'degraded';
}

function ChecksSection({ checks }: { checks: { id: string; status: string; message: string }[] }) {
  return (
    <section aria-labelledby="checks-title">
      <h2 id="checks-title">Checks</h2>
      <ChecksTable
        testId="health-checks"
        rows={checks.map((check) => ({ ...check, label: <code>{check.id}</code> }))}
      />
    </section>
  );
}

/** One table of checks (the server's and the probing self-check's): what, result, what was found. */
function ChecksTable({
  rows,
  testId,
}: {
  rows: { id: string; label: preact.ComponentChild; status: string; message: string }[];
  testId?: string;
}) {
  return (
    <div class="table-wrap">
      <table data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Result</th>
            <th scope="col">What was found</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-check={row.id}>
              <td>{row.label}</td>
              <td class={`status ${row.status}`}>{row.status}</td>
              <td>{row.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ProbingSection({ probing }: { probing: Probing }) {
  const report = probing.report;
  return (
    <section aria-labelledby="probing-title" class="card" data-testid="probing">
      <h2 id="probing-title">Email probing self-check</h2>
      <p>
        {probing.state === 'running'
          ? 'A check is running now; below is the previous one.'
          : probing.state === 'idle'
            ? 'No check has run yet; one starts in the background (reload in a minute).'
            : `Checked ${when(probing.finished_at)}; the next check runs after ${when(probing.next_run_at)}.`}
      </p>
      {report ? (
        <>
          <p>
            Overall: <strong class={`status ${report.status}`}>{report.status}</strong>. Probing as{' '}
            <code>{report.identity.helo_name}</code> (MAIL FROM <code>{report.identity.mail_from}</code>) from{' '}
            {report.identity.public_address ?? 'an unknown public address'}
            {report.identity.proxy ? ` through ${report.identity.proxy}` : ''}.
          </p>
          <ChecksTable rows={report.checks.map((check) => ({ ...check, label: check.title }))} />
        </>
      ) : null}
    </section>
  );
}

/**
 * GET /v2/health: the overall status (`degraded`, in the warning colour, names the failed checks;
 * never green above a failed check), the checks, the API version, the geo databases serving now
 * with their build dates and sources, and, for the server's owner account, the email probe's self-check findings (port 25,
 * reverse DNS, blocklists…) when the server offers them. Anything else the report adds is shown
 * as it came.
 */
export function HealthPage({ session }: PageProps) {
  const report = useLoad(() => health(session), []);
  const data = report.data;
  const body = data as unknown as Record<string, unknown> | null;
  const probing = body?.probing as Probing | null | undefined;
  const extra = body ? Object.entries(body).filter(([key]) => !KNOWN.has(key)) : [];
  return (
    <>
      <h1>Service health</h1>
      {report.error ? (
        <p class="error" role="alert">
          {report.error}
        </p>
      ) : null}
      {data ? (
        <>
          <section class="cards" aria-label="Server">
            <div class="card">
              <h2>Status</h2>
              <p class={`big status ${statusClass(data.status, data.failing)}`} data-testid="health-status">
                {data.status}
              </p>
              {data.failing.length > 0 ? (
                <p data-testid="health-failing">Failing: {data.failing.join(', ')}</p>
              ) : null}
            </div>
            <div class="card">
              <h2>API version</h2>
              <p class="big">{data.version}</p>
            </div>
            <div class="card">
              <h2>Server clock</h2>
              <p>{when(data.time)}</p>
            </div>
          </section>
          <ChecksSection checks={data.checks} />
          <section aria-labelledby="geo-title">
            <h2 id="geo-title">Geo databases, in priority order</h2>
            <div class="table-wrap">
              <table data-testid="geo-databases">
                <thead>
                  <tr>
                    <th scope="col">Database</th>
                    <th scope="col">Type</th>
                    <th scope="col">Built</th>
                    <th scope="col">Source</th>
                  </tr>
                </thead>
                <tbody>
                  {data.geo.databases.map((db) => (
                    <tr key={db.id}>
                      <td>
                        <code>{db.id}</code>
                      </td>
                      <td>{db.type}</td>
                      <td>{when(db.built_at)}</td>
                      <td class="wrap-anywhere">{db.source}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          {probing ? (
            <ProbingSection probing={probing} />
          ) : (
            <p class="hint">
              The email probe's self-check is shown here to the server's owner account when the server runs
              it.
            </p>
          )}
          {extra.map(([key, value]) => (
            <section key={key} class="card" aria-label={key}>
              <h2>{key.replaceAll('_', ' ')}</h2>
              <pre>{JSON.stringify(value, null, 2)}</pre>
            </section>
          ))}
        </>
      ) : report.error ? null : (
        <p>Loading…</p>
      )}
    </>
  );
}
