/**
 * The LIS client: the four calls of spec section 4 with their attempt rules.
 * Plain TypeScript; the Node-RED nodes are thin adapters over this.
 */
import { LisError, invalidInput } from '../errors';
import { ENDPOINTS, type EndpointName } from './endpoints';
import { httpsAgentOptions, postJson, type PostResponse, type TlsSettings } from './transport';
import { HttpExchange } from './http-exchange';
import { resolveProxy, type ProxyConfig } from './proxy';
import { withRetries, type AttemptHooks, type RetryPolicy } from './retry';
import { outcomeOf, type LisObserver } from './observer';
import {
  OrderEnvelopeSchema,
  OrderSchema,
  ProcessedInputSchema,
  ResultItemsSchema,
  TestsResponseSchema,
  describeIssues,
  type LisTest,
  type Order,
  type ResultItem,
} from './schemas';
import { expandEnv, UnsetVariableError, type EnvLookup } from '../util/env-template';
import { SettingError, unresolvedNames } from '../settings/unresolved';

export interface LisTuning {
  /** Whole-exchange time-out of one HTTP request, ms. */
  timeoutMs: number;
  /** Order retrieval: attempts in all (spec 8: 3). */
  orderAttempts: number;
  /** Order retrieval after a SampleNumber mismatch: wait this x the attempt number (spec 8: 100 ms). */
  orderBackoffMs: number;
  /** Additional retries after 5xx, 408 or a time-out (spec 7, 8: 2). */
  transientRetries: number;
  /** Before additional retry n wait 2^n x this (spec 8: 2^n seconds, so 1000). */
  transientBackoffMs: number;
  /** Answers larger than this are refused rather than buffered. */
  maxResponseBytes: number;
}

export const DEFAULT_TUNING: LisTuning = {
  timeoutMs: 30000,
  orderAttempts: 3,
  orderBackoffMs: 100,
  transientRetries: 2,
  transientBackoffMs: 1000,
  maxResponseBytes: 10 * 1024 * 1024,
};

export interface LisSettings extends LisTuning, TlsSettings {
  /** Configured addresses, as typed: they may hold ${VAR} placeholders. */
  urls: Partial<Record<EndpointName, string>>;
  env: EnvLookup;
  bearerToken?: string | undefined;
  /** The proxy LIS requests go through; direct when absent or its address is empty. */
  proxy?: ProxyConfig | undefined;
  /** Told of every request and retry (the metrics); nothing when absent. */
  observer?: LisObserver | undefined;
}

export interface CallInfo {
  /** HTTP status of the last answer. */
  status: number;
  attempts: number;
  requestIds: string[];
  /** From the first request to the last answer, retries and waits included. */
  elapsedMs: number;
}

export type OrderOutcome =
  | { kind: 'order'; order: Order; lisStatus: string | undefined; info: CallInfo }
  | { kind: 'none'; sampleNumber: string; lisStatus: string | undefined; info: CallInfo };

export interface PlainAnswer {
  /** The LIS's answer: parsed JSON, the raw text when it was not JSON, or null when empty. */
  body: unknown;
  info: CallInfo;
  /** Set when the answer was accepted but looked odd (e.g. not JSON). */
  warning?: string;
}

/** Spec 4.3's result items, validated: throws INVALID_INPUT naming each bad field. */
export function checkResults(items: unknown): ResultItem[] {
  const parsed = ResultItemsSchema.safeParse(items);
  if (!parsed.success) throw invalidInput('results not sent', describeIssues(parsed.error, 'results'));
  return parsed.data;
}

type AttemptLimits = Partial<RetryPolicy> & { maxAttempts: number };

export class LisClient {
  /** One axios instance and its agents for every request of this client. */
  private readonly exchange: HttpExchange;
  /** Each endpoint's address as last expanded, once it was found a valid http(s) URL. */
  private readonly checkedUrls = new Map<EndpointName, string>();
  /** The proxy's address as resolved (placeholders expanded), or undefined when requests go direct. */
  readonly proxyUrl: string | undefined;

  /**
   * Reads the CA file (if any) and resolves the proxy's address now: throws a
   * NOT_CONFIGURED LisError naming the setting when either is unusable.
   */
  constructor(private readonly settings: LisSettings) {
    const proxy = resolveProxy(settings.proxy, settings.env);
    this.proxyUrl = proxy?.url;
    this.exchange = new HttpExchange({ tls: httpsAgentOptions(settings), proxy });
  }

  /** True when requests skip certificate verification (the explicit allowUntrustedCertificates option). */
  get verifiesCertificates(): boolean {
    return this.settings.allowUntrustedCertificates !== true;
  }

  /**
   * Closes idle kept-alive connections and keeps none from now on. Requests in
   * flight finish (a redeploy lets lis-send-results drain them: cut off, a
   * batch of results would become uncertain); the client still works afterwards.
   */
  close(): void {
    this.exchange.close();
  }

  /** The address of an endpoint, placeholders expanded; throws NOT_CONFIGURED or INVALID_URL. */
  resolveUrl(endpoint: EndpointName): string {
    const { label } = ENDPOINTS[endpoint];
    const raw = (this.settings.urls[endpoint] ?? '').trim();
    let url: string;
    try {
      url = expandEnv(raw, this.settings.env).trim();
    } catch (err) {
      if (err instanceof UnsetVariableError) {
        const message = `${label} uses \${${err.variable}}, but that environment variable is not set: set ${err.variable} to the endpoint's address (http:// or https://)`;
        throw new SettingError(message, [{ setting: label, variable: err.variable, message }]);
      }
      throw err;
    }
    if (url === '') throw new SettingError(`${label} is not configured`, [{ setting: label, message: `${label} is not configured` }]);
    // The address as expanded is looked up each time (its variables may change), but parsed once for as long as it
    // stays the same: a URL parse and its checks on every request of a host query were a few per cent of its JavaScript.
    if (this.checkedUrls.get(endpoint) === url) return url;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalidUrl(label, raw, `${label} is not a valid URL: ${JSON.stringify(redactUserInfo(url))}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw invalidUrl(label, raw, `${label} must start with http:// or https://, not ${parsed.protocol}`);
    }
    this.checkedUrls.set(endpoint, url);
    return url;
  }

  /** The environment variable an endpoint's address names but that is not set, if any (the optional OrderCompletedAPI is off then, and says so). */
  unsetVariable(endpoint: EndpointName): string | undefined {
    try {
      expandEnv((this.settings.urls[endpoint] ?? '').trim(), this.settings.env);
      return undefined;
    } catch (err) {
      return err instanceof UnsetVariableError ? err.variable : undefined;
    }
  }

  /** False when the endpoint has no address (or only an unset ${VAR}); used for the optional OrderCompletedAPI. */
  isConfigured(endpoint: EndpointName): boolean {
    try {
      this.resolveUrl(endpoint);
      return true;
    } catch (err) {
      if (err instanceof LisError && err.code === 'NOT_CONFIGURED') return false;
      return true; // configured, but wrongly: let the call report it
    }
  }

  /** Spec 4.1: one attempt. */
  async getTests(filter: { Name?: string; Code?: string }, hooks: AttemptHooks = {}): Promise<{ tests: LisTest[]; info: CallInfo }> {
    const body: Record<string, string> = {};
    if (filter.Name) body.Name = filter.Name;
    if (filter.Code) body.Code = filter.Code;
    const { value, info } = await this.call('LabTestsAPI', body, { maxAttempts: 1 }, hooks, (res) => {
      const json = requireJson('LabTestsAPI', res);
      const parsed = TestsResponseSchema.safeParse(json);
      if (!parsed.success) throw badResponse('LabTestsAPI', res, describeIssues(parsed.error, ''));
      return parsed.data.tests;
    });
    return { tests: value, info };
  }

  /** Spec 4.2: up to orderAttempts attempts, the response's SampleNumber checked against the request. */
  async getOrder(sampleNumber: string, options: { allTests?: boolean }, hooks: AttemptHooks = {}): Promise<OrderOutcome> {
    const body: Record<string, string> = { SampleNumber: sampleNumber };
    if (options.allTests) body.allTests = '1';
    const policy = { maxAttempts: this.settings.orderAttempts, mismatchBackoffMs: this.settings.orderBackoffMs };
    const headers = { 'X-Expected-Sample': sampleNumber };
    const { value, info } = await this.call('TransactionInfoAPI', body, policy, hooks, (res) => readOrder(res, sampleNumber), headers);
    return value.order
      ? { kind: 'order', order: value.order, lisStatus: value.lisStatus, info }
      : { kind: 'none', sampleNumber, lisStatus: value.lisStatus, info };
  }

  /** Spec 4.3: exactly one attempt whatever happens; every item validated before anything is sent. */
  async sendResults(items: unknown, hooks: AttemptHooks = {}): Promise<PlainAnswer> {
    return this.sendCheckedResults(checkResults(items), hooks);
  }

  /** sendResults for items checkResults already accepted (the journal checks them before storing the batch). */
  async sendCheckedResults(results: ResultItem[], hooks: AttemptHooks = {}): Promise<PlainAnswer> {
    return this.plainCall('ResultAPI', { results }, { maxAttempts: 1 }, hooks);
  }

  /** Spec 4.4: Tests travels as a JSON-serialised string; transient failures retried. */
  async markProcessed(input: unknown, hooks: AttemptHooks = {}): Promise<PlainAnswer> {
    const parsed = ProcessedInputSchema.safeParse(input);
    if (!parsed.success) throw invalidInput('processed notification not sent', describeIssues(parsed.error, 'payload'));
    const body = { SampleNumber: parsed.data.SampleNumber, Tests: JSON.stringify(parsed.data.Tests) };
    return this.plainCall('OrderCompletedAPI', body, { maxAttempts: 1 + this.settings.transientRetries }, hooks);
  }

  private plainCall(endpoint: EndpointName, body: unknown, policy: AttemptLimits, hooks: AttemptHooks): Promise<PlainAnswer> {
    return this.call(endpoint, body, policy, hooks, (res) => res).then(({ value: res, info }) => {
      const answer: PlainAnswer = { body: res.json ?? (res.text === '' ? null : res.text), info };
      // The LIS accepted the request (2xx): reporting a failure here would invite a resend, so only warn.
      if (res.jsonError) answer.warning = `LIS ${endpoint} accepted the request (${res.status}) but its ${res.jsonError}`;
      return answer;
    });
  }

  private async call<T>(
    endpoint: EndpointName,
    body: unknown,
    policy: AttemptLimits,
    hooks: AttemptHooks,
    read: (res: PostResponse) => T,
    headers?: Record<string, string>,
  ): Promise<{ value: T; info: CallInfo }> {
    const url = this.resolveUrl(endpoint);
    const started = performance.now();
    let status = 0;
    const fullPolicy: RetryPolicy = {
      transientRetries: this.settings.transientRetries,
      transientBackoffMs: this.settings.transientBackoffMs,
      mismatchBackoffMs: 0,
      ...policy,
    };
    const once = async (): Promise<{ value: T; requestId: string }> => {
      const res = await postJson({
        endpoint,
        url,
        body,
        bearerToken: this.settings.bearerToken,
        headers: headers ?? {},
        timeoutMs: this.settings.timeoutMs,
        maxResponseBytes: this.settings.maxResponseBytes,
        signal: hooks.signal,
        exchange: this.exchange,
      });
      status = res.status;
      return { value: read(res), requestId: res.requestId };
    };
    const observer = this.settings.observer;
    const { value, attempts, requestIds } = observer
      ? await withRetries(fullPolicy, watchedHooks(observer, endpoint, hooks), () => watched(observer, endpoint, once))
      : await withRetries(fullPolicy, hooks, once);
    return { value, info: { status, attempts, requestIds, elapsedMs: Math.round(performance.now() - started) } };
  }
}

/** The caller's hooks, with each retry told to the observer as well. */
function watchedHooks(observer: LisObserver, endpoint: EndpointName, hooks: AttemptHooks): AttemptHooks {
  return {
    signal: hooks.signal,
    onRetry: (notice) => {
      observer.retry(endpoint, outcomeOf(notice.error));
      hooks.onRetry?.(notice);
    },
  };
}

/** One attempt, its outcome and duration told to the observer. */
function watched<R>(observer: LisObserver, endpoint: EndpointName, attempt: () => Promise<R>): Promise<R> {
  const started = performance.now();
  return attempt().then(
    (answer) => {
      observer.request(endpoint, 'ok', (performance.now() - started) / 1000);
      return answer;
    },
    (err: unknown) => {
      observer.request(endpoint, err instanceof LisError ? outcomeOf(err) : 'network', (performance.now() - started) / 1000);
      throw err;
    },
  );
}

function requireJson(endpoint: EndpointName, res: PostResponse): unknown {
  if (res.json === undefined) {
    throw badResponse(endpoint, res, [res.jsonError ?? 'body is empty; a JSON object was expected']);
  }
  return res.json;
}

function badResponse(endpoint: EndpointName, res: PostResponse, errors: string[]): LisError {
  return new LisError(`LIS ${endpoint} answered ${res.status} with an invalid body: ${errors.join('; ')}`, {
    code: 'INVALID_RESPONSE',
    status: res.status,
    errors,
    requestId: res.requestId,
  });
}

function readOrder(res: PostResponse, asked: string): { order?: Order; lisStatus: string | undefined } {
  const envelope = OrderEnvelopeSchema.safeParse(requireJson('TransactionInfoAPI', res));
  if (!envelope.success) throw badResponse('TransactionInfoAPI', res, describeIssues(envelope.error, ''));
  const lisStatus = envelope.data.status ?? undefined;
  const raw = envelope.data.order;
  if (raw === undefined || raw === null || (isPlainObject(raw) && Object.keys(raw).length === 0)) return { lisStatus };
  // Checked before the full schema: an order for another patient's sample is the
  // more dangerous fault, and it is the one spec 4.2 says to retry.
  const got = isPlainObject(raw) ? raw.SampleNumber : undefined;
  if (typeof got === 'string' && got !== asked) {
    throw new LisError(`LIS TransactionInfoAPI returned the order of sample ${JSON.stringify(got)} when asked for ${JSON.stringify(asked)}`, {
      code: 'SAMPLE_MISMATCH',
      status: res.status,
      requestId: res.requestId,
      retry: 'mismatch',
    });
  }
  const order = OrderSchema.safeParse(raw);
  if (!order.success) throw badResponse('TransactionInfoAPI', res, describeIssues(order.error, 'order'));
  return { order: order.data, lisStatus };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function redactUserInfo(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//***@');
}

/** INVALID_URL naming the setting, and the variable the address came from when it came from one. */
function invalidUrl(label: string, raw: string, message: string): SettingError {
  const [variable] = unresolvedNames(raw);
  return new SettingError(message, [{ setting: label, ...(variable === undefined ? {} : { variable }), message }], 'INVALID_URL');
}
