import { useState } from 'preact/hooks';
import type { PageProps } from '../app';
import { DailyChart } from '../components/chart';
import { count, when } from '../format';
import { useLoad } from '../load';
import type { Account, Usage } from '../types';

/** This month's calls and units per endpoint, a chart per day, the plan, and the invoice lines. */
export function UsagePage({ api }: PageProps) {
  const [month, setMonth] = useState(new Date().toISOString().slice(0, 7));
  const account = useLoad(() => api.json<Account>('GET', '/v2/account'), []);
  const usage = useLoad(
    () => api.json<Usage>('GET', `/v2/usage?month=${encodeURIComponent(month)}`),
    [month],
  );
  const plan = account.data?.plan;
  return (
    <>
      <h1>Usage</h1>
      {account.error ? (
        <p class="error" role="alert">
          {account.error}
        </p>
      ) : null}
      {plan && account.data ? (
        <section class="cards" aria-label="Plan">
          <div class="card">
            <h2>Plan</h2>
            <p class="big" data-testid="plan-name">
              {plan.name}
            </p>
            <p>
              Account {account.data.name} ({account.data.id})
            </p>
          </div>
          <div class="card">
            <h2>Rate limit</h2>
            <p class="big" data-testid="rate-limit">
              {count(plan.rate_per_second)} / s
            </p>
            <p>bursts of {count(plan.burst)} requests</p>
          </div>
          <div class="card">
            <h2>This month</h2>
            <p class="big" data-testid="month-units">
              {count(account.data.usage.units)} units
            </p>
            <p>
              {plan.monthly_allowance === null
                ? 'unlimited allowance'
                : `of ${count(plan.monthly_allowance)} (${count(account.data.usage.remaining)} left)`}
            </p>
          </div>
        </section>
      ) : null}
      <section aria-labelledby="invoice-title">
        <div class="row spread">
          <h2 id="invoice-title">Invoice lines</h2>
          <label>
            Month{' '}
            <input
              type="month"
              value={month}
              onChange={(e) => e.currentTarget.value && setMonth(e.currentTarget.value)}
            />
          </label>
        </div>
        {usage.error ? (
          <p class="error" role="alert">
            {usage.error}
          </p>
        ) : null}
        {usage.data ? (
          <>
            <DailyChart usage={usage.data} />
            <div class="table-wrap">
              <table data-testid="usage-lines">
                <caption class="visually-hidden">
                  Billable calls and units per endpoint in {usage.data.month}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Endpoint</th>
                    <th scope="col" class="num">
                      Calls
                    </th>
                    <th scope="col" class="num">
                      Units
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.lines.length === 0 ? (
                    <tr>
                      <td colSpan={3}>No billable calls on live keys in {usage.data.month}.</td>
                    </tr>
                  ) : (
                    usage.data.lines.map((line) => (
                      <tr key={line.endpoint} data-endpoint={line.endpoint}>
                        <td>
                          <code>{line.endpoint}</code>
                        </td>
                        <td class="num">{count(line.calls)}</td>
                        <td class="num">{count(line.units)}</td>
                      </tr>
                    ))
                  )}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row">Total</th>
                    <td class="num" data-testid="total-calls">
                      {count(usage.data.total.calls)}
                    </td>
                    <td class="num" data-testid="total-units">
                      {count(usage.data.total.units)}
                    </td>
                  </tr>
                </tfoot>
              </table>
            </div>
            <p class="hint">
              Calls on test keys are never billed and do not appear here. Allowance:{' '}
              {usage.data.allowance === null ? 'unlimited' : `${count(usage.data.allowance)} units a month`}.
              Updated {when(new Date().toISOString())}.
            </p>
          </>
        ) : usage.error ? null : (
          <p>Loading…</p>
        )}
      </section>
    </>
  );
}
