import type { PageProps } from '../app';
import { count, when } from '../format';
import { useLoad } from '../load';

/** GET /v2/feedback/stats (the last 30 days unless asked otherwise). */
interface FeedbackStats {
  since: string;
  events: number;
  providers: { provider: string; counts: Record<string, number> }[];
  domains: { domain: string; delivered: number; bounced: number; bounce_rate: number | null }[];
  verdicts: { upgraded: number; downgraded: number };
}

/** GET /v2/feedback/providers. */
interface ProviderList {
  data: { provider: string; configured_at: string; webhook_path: string }[];
}

const KINDS = ['delivered', 'hard_bounce', 'soft_bounce', 'complaint', 'unsubscribe'] as const;

const rate = (share: number | null) => (share === null ? '–' : `${(100 * share).toFixed(1)} %`);

/**
 * Delivery feedback: the events the account's email providers reported (per provider and kind),
 * each domain's bounce rate, how many verification verdicts that history changed, and the
 * configured providers with the path their webhooks point at (credentials are never shown).
 */
export function FeedbackPage({ api }: PageProps) {
  const stats = useLoad(() => api.json<FeedbackStats>('GET', '/v2/feedback/stats'), []);
  const providers = useLoad(() => api.json<ProviderList>('GET', '/v2/feedback/providers'), []);
  const data = stats.data;
  return (
    <>
      <h1>Delivery feedback</h1>
      {stats.error ? (
        <p class="error" role="alert">
          {stats.error}
        </p>
      ) : null}
      {data ? (
        <>
          <section class="cards" aria-label="Feedback since">
            <div class="card">
              <h2>Events</h2>
              <p class="big" data-testid="feedback-events">
                {count(data.events)}
              </p>
              <p>since {when(data.since)}</p>
            </div>
            <div class="card">
              <h2>Verdicts upgraded</h2>
              <p class="big" data-testid="feedback-upgraded">
                {count(data.verdicts.upgraded)}
              </p>
            </div>
            <div class="card">
              <h2>Verdicts downgraded</h2>
              <p class="big" data-testid="feedback-downgraded">
                {count(data.verdicts.downgraded)}
              </p>
            </div>
          </section>
          <section aria-labelledby="feedback-providers-title">
            <h2 id="feedback-providers-title">Events per provider</h2>
            {data.providers.length === 0 ? (
              <p class="hint">No events yet: point a provider's webhook at the path below.</p>
            ) : (
              <div class="table-wrap">
                <table data-testid="feedback-provider-events">
                  <thead>
                    <tr>
                      <th scope="col">Provider</th>
                      {KINDS.map((kind) => (
                        <th key={kind} scope="col">
                          {kind.replace('_', ' ')}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {data.providers.map((row) => (
                      <tr key={row.provider} data-provider={row.provider}>
                        <td>
                          <code>{row.provider}</code>
                        </td>
                        {KINDS.map((kind) => (
                          <td key={kind}>{count(row.counts[kind] ?? 0)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section aria-labelledby="feedback-domains-title">
            <h2 id="feedback-domains-title">Bounce rate per domain</h2>
            {data.domains.length === 0 ? (
              <p class="hint">No delivered or bounced addresses yet.</p>
            ) : (
              <div class="table-wrap">
                <table data-testid="feedback-domains">
                  <thead>
                    <tr>
                      <th scope="col">Domain</th>
                      <th scope="col">Delivered</th>
                      <th scope="col">Bounced</th>
                      <th scope="col">Bounce rate</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.domains.map((row) => (
                      <tr key={row.domain} data-domain={row.domain}>
                        <td class="wrap-anywhere">{row.domain}</td>
                        <td>{count(row.delivered)}</td>
                        <td>{count(row.bounced)}</td>
                        <td>{rate(row.bounce_rate)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      ) : stats.error ? null : (
        <p>Loading…</p>
      )}
      <section aria-labelledby="feedback-configured-title">
        <h2 id="feedback-configured-title">Configured providers</h2>
        {providers.error ? (
          <p class="error" role="alert">
            {providers.error}
          </p>
        ) : providers.data === null ? (
          <p>Loading…</p>
        ) : providers.data.data.length === 0 ? (
          <p class="hint">
            None configured. A live key configures one with{' '}
            <code>{'PUT /v2/feedback/providers/{provider}'}</code>.
          </p>
        ) : (
          <div class="table-wrap">
            <table data-testid="feedback-configured">
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Configured</th>
                  <th scope="col">Webhook path</th>
                </tr>
              </thead>
              <tbody>
                {providers.data.data.map((row) => (
                  <tr key={row.provider} data-provider={row.provider}>
                    <td>
                      <code>{row.provider}</code>
                    </td>
                    <td>{when(row.configured_at)}</td>
                    <td class="wrap-anywhere">
                      <code>{row.webhook_path}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
