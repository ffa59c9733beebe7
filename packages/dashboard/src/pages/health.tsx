import { health } from '../api';
import { when } from '../format';
import { useLoad } from '../load';

type Finding = Record<string, unknown>;
const KNOWN = new Set(['status', 'version', 'time', 'geo']);

/** The first of these fields a finding has, as text. */
function pick(finding: Finding, names: string[]): string {
  for (const name of names) {
    const value = finding[name];
    if (value !== undefined && value !== null)
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
  return '—';
}

/** A list of findings (the probe's self-check: port 25, reverse DNS, blocklists…) as a table. */
function Findings({ title, items }: { title: string; items: Finding[] }) {
  return (
    <section aria-label={title} class="card">
      <h2>{title.replaceAll('_', ' ')}</h2>
      <div class="table-wrap">
        <table data-testid={`findings-${title}`}>
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Result</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {items.map((finding, index) => (
              <tr key={index}>
                <td>{pick(finding, ['name', 'id', 'check', 'title'])}</td>
                <td class={`status ${pick(finding, ['status', 'level', 'result', 'ok'])}`}>
                  {pick(finding, ['status', 'level', 'result', 'ok'])}
                </td>
                <td>{pick(finding, ['message', 'detail', 'details', 'summary', 'fix'])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * GET /v2/health (no key): the API version, the geo databases serving now with their build dates
 * and sources, and whatever self-check findings the server adds to its report (each list of
 * findings is shown as a table, anything else as it came).
 */
export function HealthPage() {
  const report = useLoad(health, []);
  const data = report.data;
  const extra = data
    ? Object.entries(data as unknown as Record<string, unknown>).filter(([key]) => !KNOWN.has(key))
    : [];
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
              <p class="big status ok" data-testid="health-status">
                {data.status}
              </p>
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
          {extra.map(([key, value]) =>
            Array.isArray(value) && value.every((item) => item && typeof item === 'object') ? (
              <Findings key={key} title={key} items={value as Finding[]} />
            ) : value && typeof value === 'object' && Object.values(value).some(Array.isArray) ? (
              Object.entries(value as Record<string, unknown>)
                .filter(([, inner]) => Array.isArray(inner))
                .map(([inner, items]) => (
                  <Findings key={`${key}.${inner}`} title={`${key}_${inner}`} items={items as Finding[]} />
                ))
            ) : (
              <section key={key} class="card" aria-label={key}>
                <h2>{key.replaceAll('_', ' ')}</h2>
                <pre>{JSON.stringify(value, null, 2)}</pre>
              </section>
            ),
          )}
        </>
      ) : report.error ? null : (
        <p>Loading…</p>
      )}
    </>
  );
}
