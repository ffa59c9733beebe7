import { svcDataDir } from '@svc/core';
import {
  DEFAULT_DNS_CANARIES,
  DEFAULT_RESULT_CACHE_TTLS,
  type ProxySelection,
  type ResultCacheTtls,
  type SmtpProxyOptions,
} from '@svc/email-verifier';
import type { ServeRole, ServerOptions, VerifyCacheStore } from './config-schema.js';
import type { Plan } from './control-plane/store.js';

export type { ServeRole, ServerOptions, VerifyCacheStore } from './config-schema.js';

/** Every option with its default applied. */
export interface ResolvedServerOptions {
  host: string;
  port: number;
  dataDir: string;
  trustedProxies: string[];
  plans: Record<string, Plan>;
  ownerPlan: string;
  limits: Required<NonNullable<ServerOptions['limits']>>;
  batch: {
    sandboxJobsPerDay: number;
    sandboxRecordsInFlight: number;
    retentionDays: { live: number; test: number };
    sweepIntervalSeconds: number;
  };
  smtp: {
    heloName: string | null;
    mailFrom: string | null;
    port: number;
    allowPrivateMx: boolean;
    proxies: SmtpProxyOptions[];
    proxySelection: ProxySelection;
    proxyCooldown: { initialMs: number; maxMs: number };
  };
  dns: string | null;
  dnsTimeoutMs: number;
  dnsCanaries: string[];
  webhooks: { allowPrivateTargets: string[] };
  tls: { certFile: string; keyFile: string } | null;
  cors: { origins: string[] };
  metrics: { path: string | null };
  geo: {
    databases: string[];
    reloadIntervalSeconds: number;
    listsUpdateIntervalSeconds: number;
    geofeeds: string[];
  };
  logLevel: NonNullable<ServerOptions['logLevel']>;
  probing: {
    intervalSeconds: number;
    testHost: string | null;
    publicAddress: string | null;
    blocklists: string[] | null;
  };
  verifyCache: {
    store: VerifyCacheStore;
    shareAcrossAccounts: boolean;
    ttlSeconds: ResultCacheTtls;
  };
  feedback: { enabled: boolean; shareAcrossAccounts: boolean; retentionDays: number };
  databaseUrl: string | null;
  redisUrl: string | null;
  redisPrefix: string;
  role: ServeRole;
}

/** The plans of DESIGN §8; spec §8 gives the free and pro rates. */
export const DEFAULT_PLANS: Record<string, Plan> = {
  free: {
    id: 'free',
    name: 'Free',
    rate_per_second: 1,
    burst: 10,
    monthly_allowance: 1_000,
    endpoints: null,
    bill_company_misses: false,
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    rate_per_second: 25,
    burst: 100,
    monthly_allowance: 100_000,
    endpoints: null,
    bill_company_misses: false,
  },
  enterprise: {
    id: 'enterprise',
    name: 'Enterprise',
    rate_per_second: 200,
    burst: 200,
    monthly_allowance: 1_000_000,
    endpoints: null,
    bill_company_misses: false,
  },
  self_hosted: {
    id: 'self_hosted',
    name: 'Self-hosted',
    rate_per_second: 1_000,
    burst: 1_000,
    monthly_allowance: null,
    endpoints: null,
    bill_company_misses: false,
  },
};

/** Applies the defaults (the one place they are decided). */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  const plans: Record<string, Plan> = { ...DEFAULT_PLANS };
  for (const [id, patch] of Object.entries(options.plans ?? {})) {
    const base = plans[id] ?? { ...DEFAULT_PLANS.free, id, name: id };
    plans[id] = { ...base, ...patch, id } as Plan;
  }
  const tls =
    options.tls?.certFile && options.tls.keyFile
      ? { certFile: options.tls.certFile, keyFile: options.tls.keyFile }
      : null;
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8080,
    dataDir: options.dataDir ?? svcDataDir(),
    trustedProxies: options.trustedProxies ?? [],
    plans,
    ownerPlan: options.ownerPlan ?? 'self_hosted',
    limits: {
      jsonBodyBytes: options.limits?.jsonBodyBytes ?? 16_777_216,
      uploadBodyBytes: options.limits?.uploadBodyBytes ?? 8_388_608,
      headersTimeoutMs: options.limits?.headersTimeoutMs ?? 10_000,
      requestTimeoutMs: options.limits?.requestTimeoutMs ?? 15_000,
      probeRequestTimeoutMs: options.limits?.probeRequestTimeoutMs ?? 60_000,
      authFailuresPerMinute: options.limits?.authFailuresPerMinute ?? 20,
      drainedBodiesPerMinute: options.limits?.drainedBodiesPerMinute ?? 10,
      unauthenticatedPerSecond: options.limits?.unauthenticatedPerSecond ?? 10,
      unauthenticatedBurst: options.limits?.unauthenticatedBurst ?? 100,
      whenRedisUnavailable: options.limits?.whenRedisUnavailable ?? 'refuse',
      usageFlushMs: options.limits?.usageFlushMs ?? 250,
    },
    batch: {
      sandboxJobsPerDay: options.batch?.sandboxJobsPerDay ?? 10,
      sandboxRecordsInFlight: options.batch?.sandboxRecordsInFlight ?? 50_000,
      retentionDays: {
        live: options.batch?.retentionDays?.live ?? 30,
        test: options.batch?.retentionDays?.test ?? 1,
      },
      sweepIntervalSeconds: options.batch?.sweepIntervalSeconds ?? 600,
    },
    smtp: {
      heloName: options.smtp?.heloName ?? null,
      mailFrom: options.smtp?.mailFrom ?? null,
      port: options.smtp?.port ?? 25,
      allowPrivateMx: options.smtp?.allowPrivateMx ?? false,
      proxies: options.smtp?.proxies ?? [],
      proxySelection: options.smtp?.proxySelection ?? 'per-provider',
      proxyCooldown: {
        initialMs: options.smtp?.proxyCooldown?.initialMs ?? 30_000,
        maxMs: Math.max(
          options.smtp?.proxyCooldown?.maxMs ?? 600_000,
          options.smtp?.proxyCooldown?.initialMs ?? 0,
        ),
      },
    },
    dns: options.dns ?? null,
    dnsTimeoutMs: options.dnsTimeoutMs ?? 5000,
    dnsCanaries: options.dnsCanaries ?? [...DEFAULT_DNS_CANARIES],
    webhooks: { allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? [] },
    tls,
    cors: { origins: options.cors?.origins ?? [] },
    metrics: { path: options.metrics?.path ?? null },
    geo: {
      databases: options.geo?.databases ?? [],
      reloadIntervalSeconds: options.geo?.reloadIntervalSeconds ?? 0,
      listsUpdateIntervalSeconds: options.geo?.listsUpdateIntervalSeconds ?? 0,
      geofeeds: options.geo?.geofeeds ?? [],
    },
    logLevel: options.logLevel ?? 'info',
    probing: {
      intervalSeconds: options.probing?.intervalSeconds ?? 21_600,
      testHost: options.probing?.testHost ?? null,
      publicAddress: options.probing?.publicAddress ?? null,
      blocklists: options.probing?.blocklists ?? null,
    },
    verifyCache: {
      store: options.verifyCache?.store ?? (options.databaseUrl ? 'postgres' : 'sqlite'),
      shareAcrossAccounts: options.verifyCache?.shareAcrossAccounts ?? false,
      ttlSeconds: { ...DEFAULT_RESULT_CACHE_TTLS, ...options.verifyCache?.ttlSeconds },
    },
    feedback: {
      enabled: options.feedback?.enabled ?? true,
      shareAcrossAccounts: options.feedback?.shareAcrossAccounts ?? false,
      retentionDays: options.feedback?.retentionDays ?? 730,
    },
    databaseUrl: options.databaseUrl ?? null,
    redisUrl: options.redisUrl ?? null,
    redisPrefix: options.redisPrefix ?? 'svc',
    role: options.role ?? 'all',
  };
}
