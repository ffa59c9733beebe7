import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Api, createApi, type Failure } from './api';
import { FeedbackPage } from './pages/feedback';
import { HealthPage } from './pages/health';
import { JobPage } from './pages/job';
import { JobsPage } from './pages/jobs';
import { KeysPage } from './pages/keys';
import { SignIn } from './pages/sign-in';
import { UsagePage } from './pages/usage';
import { clearSession, loadSession, type Session } from './session';

/** Hash routes (`#/keys`, `#/jobs/batch_…`): a static build needs no server-side routing. */
function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || '/usage');
  useEffect(() => {
    const onChange = () => setRoute(location.hash.slice(1) || '/usage');
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export interface PageProps {
  api: Api;
  session: Session;
}

const NAV = [
  ['/usage', 'Usage'],
  ['/keys', 'Keys'],
  ['/jobs', 'Batch jobs'],
  ['/feedback', 'Feedback'],
  ['/health', 'Service health'],
] as const;

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [ended, setEnded] = useState<string | null>(null);
  const [banner, setBanner] = useState<Failure | null>(null);
  const [now, setNow] = useState(Date.now());
  const route = useRoute();

  const signOut = (why: string | null) => {
    clearSession();
    setSession(null);
    setEnded(why);
    setBanner(null);
  };

  // Failures every page shares: an ended session goes back to sign-in; a 429 or an unreachable
  // server is a banner above the page (the page keeps what it showed).
  const api = useMemo(
    () =>
      session &&
      createApi(session, (failure) => {
        if (failure.kind === 'session') {
          signOut(
            Date.now() >= session.expiresAt
              ? 'Your session expired. Sign in again with your API key.'
              : `The server no longer accepts this session (${failure.message}): the key you signed in with was revoked or has expired. Sign in again with a working key.`,
          );
        } else if (failure.kind === 'rate_limited' || failure.kind === 'unreachable') {
          setBanner(failure);
        }
      }),
    [session],
  );

  // The token's own expiry ends the session even when the page makes no call.
  useEffect(() => {
    if (!session) return;
    const timer = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= session.expiresAt) signOut('Your session expired. Sign in again with your API key.');
    }, 1000);
    return () => clearInterval(timer);
  }, [session]);

  if (!session || !api) {
    return (
      <Shell>
        <SignIn
          notice={ended}
          onSignedIn={(next) => {
            setEnded(null);
            setSession(next);
          }}
        />
      </Shell>
    );
  }

  // `now` ticks every second to re-render the countdown; the clock itself is read here.
  const retryIn =
    banner?.kind === 'rate_limited' && now ? Math.ceil((banner.retryAt - Date.now()) / 1000) : 0;
  const shownBanner = banner?.kind === 'rate_limited' && retryIn <= 0 ? null : banner;
  const jobId = /^\/jobs\/(batch_[\w-]+)$/.exec(route)?.[1];
  let page = <UsagePage api={api} session={session} />;
  if (route === '/keys') page = <KeysPage api={api} session={session} />;
  else if (route === '/jobs') page = <JobsPage api={api} session={session} />;
  else if (jobId) page = <JobPage api={api} session={session} id={jobId} />;
  else if (route === '/feedback') page = <FeedbackPage api={api} session={session} />;
  else if (route === '/health') page = <HealthPage api={api} session={session} />;

  return (
    <Shell
      nav={
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map(([path, label]) => (
              <li key={path}>
                <a href={`#${path}`} aria-current={route.startsWith(path) ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
          <span class="env" data-testid="session-env">
            {session.environment} · until {new Date(session.expiresAt).toISOString().slice(11, 16)} UTC
          </span>
          <button type="button" class="secondary" onClick={() => signOut('You signed out.')}>
            Sign out
          </button>
        </nav>
      }
    >
      {shownBanner ? (
        <div class="banner" role="alert" data-testid="banner">
          {shownBanner.kind === 'rate_limited'
            ? `Rate limited: the account made too many requests. Retry in ${retryIn} s. (${shownBanner.message})`
            : shownBanner.message}
          <button type="button" class="secondary" onClick={() => setBanner(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {page}
    </Shell>
  );
}

function Shell(props: { nav?: preact.ComponentChildren; children: preact.ComponentChildren }) {
  return (
    <>
      <header>
        <a class="brand" href="#/usage">
          svc
        </a>
        {props.nav}
      </header>
      <main>{props.children}</main>
    </>
  );
}
